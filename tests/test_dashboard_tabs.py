"""A native space's other tabs: persona frame and rebuild job, facts by hand, recall preview, graph."""

import json

import pytest
from django.conf import settings
from django.urls import reverse

from memoryhub.jobs.models import Job
from memoryhub.memories.facts import slots as facts
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Entry, Fact, Persona
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def url(name, *args):
    return reverse(f"dashboard:{name}", args=args)


@pytest.mark.parametrize("name,args,method", [
    ("persona", ["default"], "get"), ("persona", ["default"], "post"), ("persona_rebuild", ["default"], "post"),
    ("persona_job", ["default", 1], "get"), ("facts", ["default"], "get"), ("facts", ["default"], "post"),
    ("fact_history", ["default"], "get"), ("fact_invalidate", ["default", 1], "post"), ("recall", ["default"], "get"),
    ("graph", ["default"], "get"), ("graph_data", ["default"], "get"),
])
def test_tabs_require_login(client, name, args, method):
    default_space()
    r = getattr(client, method)(url(name, *args))
    assert r.status_code == 302 and r["Location"].startswith("/login/")
    assert not Job.objects.exists() and not Fact.objects.exists()


# --- persona ---------------------------------------------------------------------------

def test_persona_shows_frame_and_saves_profile(client, staff):
    space = default_space()
    facts.assert_fact(space, "user", "nickname", "Bob")
    r = client.get(url("persona", "default"))
    assert r.status_code == 200 and b"<html" in r.content and b"Bob" in r.content and b"Rebuild with AI" in r.content
    r = client.post(url("persona", "default"), {"profile": "Prefers short answers."}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content and b"Saved." in r.content
    assert Persona.objects.get(space=space).profile == "Prefers short answers."
    r = client.get(url("persona", "default"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="persona-frame")
    assert b"<html" not in r.content and b"Bob" in r.content and b"<form" not in r.content


def test_too_long_profile_is_refused_inline(client, staff):
    space = default_space()
    cap = settings.MEMORYHUB["MAX_ENTRY_CHARS"]  # memory_profile's cap, for people as for agents
    r = client.post(url("persona", "default"), {"profile": "x" * (cap + 1)}, **HX)
    assert r.status_code == 200 and f"the limit is {cap}".encode() in r.content
    assert not Persona.objects.filter(space=space).exclude(profile="").exists()


def test_rebuild_enqueues_job_and_polling_stops_when_done(client, staff):
    space = default_space()
    r = client.post(url("persona_rebuild", "default"), **HX)
    job = Job.objects.get(kind="persona_rebuild", space=space)
    assert r.status_code == 200 and b"<html" not in r.content and b'id="job-status"' in r.content
    assert job.created_by == staff and job.status == "succeeded"  # tests run jobs synchronously
    r = client.get(url("persona_job", "default", job.pk), **HX)
    assert b'hx-trigger="every 1s"' not in r.content and r["HX-Trigger"] == "personaRebuilt"
    Job.objects.filter(pk=job.pk).update(status="running", progress=40, message="reading")
    r = client.get(url("persona_job", "default", job.pk), **HX)
    assert b'hx-trigger="every 1s"' in r.content and b"40%" in r.content and "HX-Trigger" not in r


def test_persona_is_only_for_native_spaces(client, staff):
    ProviderService.objects.create(kind="holographic")
    MemorySpace.objects.create(slug="holo", name="Holo", provider="holographic")
    assert client.get(url("persona", "holo")).status_code == 404
    assert client.get(url("facts", "holo")).status_code == 404
    assert client.get(url("activity", "holo")).status_code == 404


# --- facts -----------------------------------------------------------------------------

def test_assert_and_invalidate_facts_by_hand_with_history(client, staff):
    space = default_space()
    r = client.post(url("facts", "default"), {"subject": "user", "predicate": "nickname", "value": "Bob"}, **HX)
    assert r.status_code == 200 and b"<html" not in r.content and "factsChanged" in r["HX-Trigger"]
    bob = Fact.objects.get(space=space, value="Bob")
    assert bob.method == "manual" and bob.status == "active"
    client.post(url("facts", "default"), {"subject": "user", "predicate": "nickname", "value": "Robert"}, **HX)
    bob.refresh_from_db()
    assert bob.status == "invalidated"
    robert = Fact.objects.get(space=space, value="Robert")
    r = client.get(url("facts", "default"))
    assert b"Robert" in r.content and b"<html" in r.content
    r = client.post(url("fact_invalidate", "default", robert.pk), **HX)
    assert r.status_code == 200 and b"<html" not in r.content
    robert.refresh_from_db()
    assert robert.status == "invalidated"
    r = client.get(url("fact_history", "default") + "?subject=user&predicate=nickname", **HX)
    assert b"<html" not in r.content and b"Bob" in r.content and b"Robert" in r.content
    assert r.content.count(b"invalidated") >= 2 and "by “Robert”".encode() in r.content


def test_bad_fact_shows_inline_errors_and_changes_nothing(client, staff):
    default_space()
    r = client.post(url("facts", "default"), {"subject": "user", "predicate": "has spaces!", "value": ""}, **HX)
    assert r.status_code == 200 and b"Letters and _ only" in r.content and b"Value is required to assert a fact" in r.content
    r = client.post(url("facts", "default"), {"subject": "user", "predicate": "path", "value": "75/75"})
    assert r.status_code == 200 and b"plausible path" in r.content
    assert not Fact.objects.exists()


# --- recall preview --------------------------------------------------------------------

def test_recall_preview_is_exactly_what_context_injects_and_bumps_nothing(client, staff, api):
    space = default_space()
    api.turn("call me Bob. We decided to use PostgreSQL for billing", session_id="s1")
    api.turn("the PostgreSQL migration failed on a lock", session_id="s2")
    Persona.objects.update_or_create(space=space, defaults={"profile": "Likes terse answers."})
    query = "what about PostgreSQL?"
    hits_before = list(Entry.objects.order_by("pk").values_list("hits", flat=True))
    r = client.get(url("recall", "default") + "?" + "q=what+about+PostgreSQL%3F&max_chars=900")
    preview = r.context["ctx"]
    assert r.status_code == 200 and preview.text and "PostgreSQL" in preview.text
    assert list(Entry.objects.order_by("pk").values_list("hits", flat=True)) == hits_before
    api_answer = api.post("context", {"session_id": "s9", "query": query, "space": "default", "max_chars": 900}).json()
    assert preview.text == api_answer["text"] and preview.items == api_answer["items"]
    assert f"{preview.chars}</strong> / 900".encode() in r.content
    assert b'data-predicate="nickname" title="Agents read it as nickname">called</span> = <span translate="no">Bob</span>' in r.content and b"profile and frame" in r.content


def test_recall_preview_partial_and_default_budget(client, staff, api):
    api.turn("we use Redis for caching")
    r = client.get(url("recall", "default"))
    assert r.status_code == 200 and r.context["max_chars"] == 2600 and b"<html" in r.content
    r = client.get(url("recall", "default") + "?q=Redis", **HX)
    assert b"<html" not in r.content and b'id="recall-text"' in r.content and b"Redis" in r.content
    r = client.get(url("recall", "default") + "?q=Redis&max_chars=-5", **HX)
    assert r.status_code == 200 and b"greater than or equal to 0" in r.content and b"recall-text" not in r.content


def test_recall_preview_of_inactive_space_says_agents_cannot_read_it(client, staff):
    MemorySpace.objects.filter(pk=default_space().pk).update(active=False)
    r = client.get(url("recall", "default"))
    assert b"This space is inactive" in r.content


# --- graph -----------------------------------------------------------------------------

def test_graph_page_and_json(client, staff):
    space = default_space()
    a = gateway.write(space, gateway.Draft(body="Postgres setup", session_id="s1")).entry
    b = gateway.write(space, gateway.Draft(body="Postgres tuning", session_id="s1")).entry
    r = client.get(url("graph", "default"))
    assert r.status_code == 200 and b"js/graph.js" in r.content and b'id="graph"' in r.content
    assert url("entry", "default", 0).encode() in r.content
    data = json.loads(client.get(url("graph_data", "default")).content)
    assert {n["id"] for n in data["nodes"]} == {str(a.pk), str(b.pk)}
    assert any(e["type"] == "temporal" for e in data["edges"])


def test_without_a_model_the_rebuild_says_it_goes_by_rules(client, staff, settings):
    default_space()
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": ""}
    html = client.get(url("persona", "default")).content.decode()
    assert ">Rebuild by rules</button>" in html and '<button type="button" disabled' in html
    assert "No model is configured" in html and "frame below" not in html
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    html = client.get(url("persona", "default")).content.decode()
    assert 'id="rebuild" aria-describedby="rebuild-how">Rebuild with AI' in html and "Rebuild by rules" not in html


def test_invalidating_a_fact_tells_the_open_slot_history_to_refresh(client, staff):
    space = default_space()
    facts.assert_fact(space, "user", "editor", "vim")
    fact = Fact.objects.get()
    history = client.get(url("fact_history", "default") + "?subject=user&predicate=editor", **HX).content.decode()
    assert 'hx-trigger="factsChanged from:body, factInvalidated from:body"' in history
    r = client.post(url("fact_invalidate", "default", fact.pk), **HX)
    assert "factInvalidated" in r["HX-Trigger"]
    assert "invalidated" in client.get(url("fact_history", "default") + "?subject=user&predicate=editor", **HX).content.decode()


def test_every_id_in_the_recall_preview_links_to_its_memory_topic_or_fact(client, staff, api):
    api.turn("call me Bob. We decided to use PostgreSQL for billing", session_id="s1")
    api.turn("the PostgreSQL migration failed on a lock", session_id="s1")
    r = client.get(url("recall", "default") + "?q=what+about+PostgreSQL%3F")
    items = [i for i in r.context["items"] if i.get("target") is not None]
    html = r.content.decode()
    kinds = {i["kind"] for i in items}
    assert {"entry", "fact"} <= kinds or {"topic", "fact"} <= kinds, kinds
    for item in items:
        target = {"entry": url("entry", "default", item["target"].pk), "topic": url("topic", "default", item["target"].pk),
                  "fact": url("fact_history", "default")}[item["kind"]]
        assert f'href="{target}' in html and f"<code>{item['id']}</code></a>" in html
