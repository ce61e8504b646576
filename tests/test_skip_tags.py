"""Test entries and skipTags: an entry tagged `test` is never recalled automatically; skipTags chooses what a read
leaves out (/context: test and archived; memory_search: test; [] leaves nothing out)."""

import pytest

from memoryhub.memories.maintenance.importers import retag
from memoryhub.memories.models import Entry
from memoryhub.memories.write import gateway, marks
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.workspaces import default_space


def save(api, title, tags=(), **extra):
    r = api.tool("memory_save", category="decision", title=title, body=title + ".", tags=list(tags), **extra)
    assert r.status_code == 200, r.content
    return r.json()["result"]["id"]


def context_ids(api, query, **extra):
    r = api.post("context", {"session_id": "s1", "query": query, **extra})
    assert r.status_code == 200, r.content
    return {i["id"] for i in r.json()["items"] if i["kind"] == "entry"}


def search_ids(api, query, **extra):
    r = api.tool("memory_search", query=query, **extra)
    assert r.status_code == 200, r.content
    return {c["id"] for c in r.json()["result"]["results"]}


def test_an_entry_tagged_test_is_a_test_entry_and_stays_out_of_every_default_read(api):
    real = save(api, "The canary deploy runs in eu-west")
    probe = save(api, "The canary deploy self-check passed", tags=["test", "selfcheck"])
    assert Entry.objects.get(pk=probe).is_test and not Entry.objects.get(pk=real).is_test
    assert context_ids(api, "canary deploy") == {real}
    assert search_ids(api, "canary deploy") == {real}


def test_an_empty_skip_tags_brings_test_entries_back(api):
    real = save(api, "The canary deploy runs in eu-west")
    probe = save(api, "The canary deploy self-check passed", tags=["test"])
    assert context_ids(api, "canary deploy", skipTags=[]) == {real, probe}
    assert search_ids(api, "canary deploy", skipTags=[]) == {real, probe}


def test_is_test_follows_the_tags_on_edit_and_retag(api):
    probe = Entry.objects.get(pk=save(api, "The canary deploy self-check passed", tags=["test"]))
    gateway.edit(probe, tags=["selfcheck"])
    assert not Entry.objects.get(pk=probe.pk).is_test
    assert context_ids(api, "canary deploy") == {str(probe.pk)}
    gateway.retag(probe.space, [(probe, "local", "", ["selfcheck", "test"])])
    assert Entry.objects.get(pk=probe.pk).is_test
    assert context_ids(api, "canary deploy") == set()


def test_retagging_from_a_sessions_map_keeps_is_test_in_step(api):
    r = api.turn("the canary deploy probe ran", "ok", session_id="qq-1")
    entry = Entry.objects.get(pk=r.json()["entry"]["id"])
    mapping = {"qq-1": {"origin": "qq", "channel": "123", "tags": ["qq", "test"]}}
    assert retag.apply(entry.space, mapping) == 1
    assert Entry.objects.get(pk=entry.pk).is_test


def test_archived_entries_leave_context_but_stay_findable_by_search(api):
    old = save(api, "The billing cron runs at midnight")
    marks.archive(default_space(), [int(old)])
    assert context_ids(api, "billing cron") == set()
    assert search_ids(api, "billing cron") == {old}
    assert context_ids(api, "billing cron", skipTags=[]) == {old}
    assert search_ids(api, "billing cron", skipTags=["archived"]) == set()


def test_merged_duplicates_count_as_archived(api):
    keep = save(api, "The billing cron runs at midnight UTC")
    dupe = save(api, "The billing cron runs at midnight")
    marks.merge(default_space(), [int(dupe)], int(keep))
    assert context_ids(api, "billing cron") == {keep}
    assert context_ids(api, "billing cron", skipTags=["test"]) == {keep, dupe}


def test_any_other_named_tag_is_left_out(api):
    plain = save(api, "The staging database is kestrel")
    private = save(api, "The staging database password rotates weekly", tags=["private"])
    assert search_ids(api, "staging database") == {plain, private}
    assert search_ids(api, "staging database", skipTags=["private"]) == {plain}
    assert context_ids(api, "staging database", skipTags=["private", "test", "archived"]) == {plain}


def test_third_party_records_tagged_test_are_left_out_too(api, tmp_path):
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path)})
    MemorySpace.objects.create(slug="holo", name="Holo", provider="holographic")
    save(api, "The canary deploy runs in eu-west", space="holo")
    save(api, "The canary deploy self-check passed", tags=["test"], space="holo")
    assert len(search_ids(api, "canary deploy", space="holo")) == 1
    assert len(search_ids(api, "canary deploy", space="holo", skipTags=[])) == 2


@pytest.mark.parametrize("value", ["test", {"tag": "test"}, ["x" * 101], [f"t{i}" for i in range(21)]])
def test_a_bad_skip_tags_is_refused_naming_the_field(api, value):
    for r in (api.post("context", {"session_id": "s1", "query": "q", "skipTags": value}),
              api.tool("memory_search", query="q", skipTags=value)):
        assert r.status_code == 400
        assert r.json()["error"]["field"] == "skipTags"
