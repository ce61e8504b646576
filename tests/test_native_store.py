"""The native provider: exact writes, automatic edges, graph, related, link, soft delete, op log."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.spaces.workspaces import default_space
from memoryhub.memories.write import gateway, oplog
from memoryhub.memories.models import Edge, Entry, OpLog
from memoryhub.memories.native import NativeProvider
from providers.base import ProviderError

pytestmark = pytest.mark.django_db


@pytest.fixture
def space():
    return default_space()


@pytest.fixture
def native(space):
    return NativeProvider({}, space=space)


def write(space, body, **kw):
    return gateway.write(space, gateway.Draft(body=body, **kw)).entry


def test_remember_is_an_exact_committed_write(native):
    receipt = native.remember("Exact words, kept as they are.", title="T", category="fact")
    assert receipt.state == "committed"
    assert native.get(receipt.provider_id).text == "Exact words, kept as they are."


def test_same_session_gets_a_temporal_backbone(space):
    a = write(space, "first step", session_id="s")
    b = write(space, "second step", session_id="s")
    backbone = Edge.objects.get(source=a, target=b, edge_type="temporal")
    assert backbone.metadata["sub_type"] == "backbone" and backbone.weight == 1.0
    assert Edge.objects.filter(source=b, target=a, edge_type="temporal").exists()


def test_entries_within_a_day_get_proximity_edges_weighted_by_hours(space):
    now = timezone.now()
    a = write(space, "alpha", at=now - timedelta(hours=3), session_id="x")
    b = write(space, "beta", at=now, session_id="y")
    edge = Edge.objects.get(source=a, target=b, edge_type="temporal")
    assert edge.metadata["sub_type"] == "proximity"
    assert edge.weight == pytest.approx(1 / (1 + 3), rel=0.01)
    far = write(space, "gamma", at=now - timedelta(days=3), session_id="z")
    assert not Edge.objects.filter(source=far, target=b).exists()


def test_shared_entities_link_entries(space):
    a = write(space, "Moved the cache to Redis", session_id="a", at=timezone.now() - timedelta(days=5))
    b = write(space, "Redis needs more memory", session_id="b")
    edge = Edge.objects.get(source=a, target=b, edge_type="entity")
    assert edge.metadata == {"entity": "Redis", "kind": "tech"}


def test_graph_and_related(native, space):
    a = write(space, "Deploy uses Docker", session_id="s")
    b = write(space, "Docker image is 200MB", session_id="s")
    graph = native.graph()
    assert {n["id"] for n in graph["nodes"]} == {str(a.pk), str(b.pk)}
    assert any(e["type"] == "entity" for e in graph["edges"])
    assert [r.id for r in native.related(str(a.pk))] == [str(b.pk)]


def test_link_creates_both_directions_and_validates_weight(native, space):
    a = write(space, "cause", at=timezone.now() - timedelta(days=9))
    b = write(space, "effect")
    native.link(str(a.pk), str(b.pk), "causal", 0.8)
    assert Edge.objects.filter(source=a, target=b, edge_type="causal", weight=0.8).exists()
    assert Edge.objects.filter(source=b, target=a, edge_type="causal").exists()
    with pytest.raises(ProviderError):
        native.link(str(a.pk), str(b.pk), "causal", 1.5)


def test_forget_is_soft_and_unknown_ids_raise(native, space):
    a = write(space, "to be forgotten")
    native.forget(str(a.pk))
    assert Entry.objects.get(pk=a.pk).deleted_at is not None
    with pytest.raises(ProviderError):
        native.forget(str(a.pk))
    with pytest.raises(ProviderError):
        native.get("not-an-id")


def test_hub_browsing_and_searching_never_bump_access(native, space):
    a = write(space, "browsing should not count")
    native.browse()
    native.search("browsing")
    native.get(str(a.pk))
    a.refresh_from_db()
    assert a.hits == 0 and a.last_accessed_at is None
    assert not OpLog.objects.filter(operation="recall").exists()


def test_status_reports_counts(native, space):
    write(space, "one PostgreSQL")
    write(space, "two PostgreSQL")
    status = native.status()
    assert status["healthy"] and status["total"] == 2 and status["top_entities"][0] == ("PostgreSQL", 2)


def test_op_log_keeps_only_the_last_operations(space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "OPLOG_KEEP": 20}
    for i in range(130):
        oplog.log_op(space, "recall", "", f"q={i}")
    count = OpLog.objects.filter(space=space).count()
    assert 20 <= count < 20 + 50
    assert OpLog.objects.filter(space=space).order_by("-id").first().detail == "q=129"


def test_search_ranks_by_bm25_with_a_log_hit_boost(space, native):
    a = write(space, "kafka consumer lag alert")
    b = write(space, "kafka consumer lag alert again")
    Entry.objects.filter(pk=b.pk).update(hits=50)
    assert [r.id for r in native.search("kafka consumer lag")][0] == str(b.pk)
    assert a.pk != b.pk
