"""Per-space settings change behaviour through the API; recall policies across two providers."""

import math
from types import SimpleNamespace

import pytest

from memoryhub.memories.search import policies
from memoryhub.memories.write import marks
from memoryhub.memories.models import Entry
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service
from memoryhub.spaces.workspaces import default_space
from tests.providers.fakes.mem0 import Mem0Fake


def set_settings(**values):
    space = default_space()
    space.settings = {**space.settings, **values}
    space.save()


def context(api, query="kubernetes", **extra):
    return api.post("context", {"session_id": "s", "query": query, **extra}).json()


def test_inject_off_records_and_searches_but_injects_nothing(api):
    api.turn("the kubernetes upgrade is planned for March", "ok")
    set_settings(inject=False)
    assert context(api)["text"] == ""
    found = api.tool("memory_search", query="kubernetes upgrade").json()["result"]["results"]
    assert len(found) == 1


def test_max_inject_chars_is_the_default_budget(api):
    for i in range(20):
        api.turn(f"kubernetes question {i} about node pools", "answer", session_id=f"k{i}")
    set_settings(maxInjectChars=300)
    data = context(api)
    assert 0 < data["chars"] <= 300
    assert context(api, max_chars=1000)["chars"] > 300  # an explicit budget still wins


def test_max_recall_caps_the_cards(api):
    for i in range(12):
        api.turn(f"kubernetes note number {i}", "ok", session_id=f"s{i}")
    set_settings(maxRecall=2)
    items = [i for i in context(api, max_chars=5000)["items"] if i["kind"] in ("entry", "topic")]
    assert len(items) == 2


def test_subagent_turns_are_archived_only_when_record_subagents_is_on(api):
    r = api.turn("sub-agent chatter", "ok", agent_context="subagent")
    assert r.status_code == 200 and r.json()["entry"] is None and "skipped" in r.json()
    assert api.turn("cron output", "ok", agent_context="cron").json()["entry"] is None
    assert not Entry.objects.exists()
    set_settings(recordSubagents=True)
    assert api.turn("sub-agent chatter", "ok", agent_context="subagent").status_code == 201
    assert api.turn("flush", "ok", agent_context="flush").json()["entry"] is None
    assert api.turn("hi", "ok", agent_context="boss").status_code == 400


def test_persona_every_and_auto_persona_take_effect_without_restart(api):
    from memoryhub.jobs.models import Job

    set_settings(personaEvery=2)
    api.turn("one", "ok")
    api.turn("two", "ok")
    assert Job.objects.filter(kind="persona_rebuild").count() == 1
    set_settings(autoPersona=False)
    api.turn("three", "ok")
    api.turn("four", "ok")
    assert Job.objects.filter(kind="persona_rebuild").count() == 1


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"maxInjectChars": -5}, "maxInjectChars"),
        ({"maxRecall": "eight"}, "maxRecall"),
        ({"inject": "yes"}, "inject"),
        ({"recallPolicy": "lenient"}, "recallPolicy"),
        ({"recallLow": 0.7, "recallHigh": 0.6}, "recallLow"),
        ({"recallMultiplier": 9}, "recallMultiplier"),
        ({"recallMaxMedium": 51}, "recallMaxMedium"),
        ({"mergeSimilarity": float("nan")}, "mergeSimilarity"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_validation_names_the_bad_setting(changes, key):
    clean, errors = space_settings.validate(changes)
    assert key in errors


def test_policy_tiers_and_candidate_limit():
    config = space_settings.defaults()
    assert policies.candidate_limit(8, 3) == 24 and policies.candidate_limit(30, 3) == 50
    assert policies.tier(None, "normalized", config) == "unknown"
    assert policies.tier(0.9, "native", config) == "unknown"
    assert policies.tier(math.inf, "normalized", config) == "drop"
    assert policies.tier(0.0, "normalized", config) == "low"
    assert policies.tier(1.5, "normalized", config) == "unknown"
    assert [policies.tier(s, "normalized", config) for s in (0.1, 0.3, 0.7)] == ["low", "medium", "high"]


def test_balanced_drops_scores_of_zero_or_less_where_exhaustive_keeps_them():
    config = space_settings.defaults()
    cards = [SimpleNamespace(tier=policies.tier(score, "normalized", config), score=score)
             for score in (0.9, 0.1, 0.0, -0.2)]
    balanced = policies.apply(cards, 10, {**config, "recallPolicy": "balanced-v1"})
    exhaustive = policies.apply(cards, 10, {**config, "recallPolicy": "exhaustive-v1"})
    assert [c.score for c in balanced] == [0.9, 0.1]
    assert [c.score for c in exhaustive] == [0.9, 0.1, 0.0, -0.2]


@pytest.fixture
def mem0_space(db):
    fake = Mem0Fake()
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": "platform"})
    space = MemorySpace.objects.create(slug="shared", name="Shared", provider="mem0", config={"userId": "alice"})
    yield space, fake
    fake.stop()


def test_search_across_native_and_mem0_carries_tier_and_provider(api, mem0_space):
    space, fake = mem0_space
    assert api.tool("memory_note", text="the espresso machine descaling schedule", space="shared").status_code == 200
    api.tool("memory_note", text="espresso machine descaling every month")
    results = api.tool("memory_search", query="espresso machine descaling").json()["result"]["results"]
    assert {r["provider"] for r in results} == {"native", "mem0"}
    assert all(r["tier"] in ("high", "medium", "unknown") for r in results)  # strict-v1 drops low


def test_strict_drops_low_and_balanced_keeps_it_last(api, mem0_space):
    api.tool("memory_note", text="espresso machine descaling every month")
    api.tool("memory_note", text="machine room door code is kept elsewhere")
    base = space_settings.defaults()
    from memoryhub.memories.recall import cards as recall

    spaces = [default_space(), mem0_space[0]]
    strict = recall.search(spaces, "espresso machine descaling", limit=8, policy={**base, "recallLow": 0.6,
                                                                                   "recallHigh": 0.9})
    balanced = recall.search(spaces, "espresso machine descaling", limit=8,
                             policy={**base, "recallPolicy": "balanced-v1", "recallLow": 0.6, "recallHigh": 0.9})
    assert all(c.tier != "low" for c in strict)
    assert any(c.tier == "low" for c in balanced) and balanced[-1].tier == "low"
    exhaustive = recall.search(spaces, "espresso machine descaling", limit=8,
                               policy={**base, "recallPolicy": "exhaustive-v1"})
    assert len(exhaustive) >= len(strict)


def test_a_failing_provider_does_not_break_the_other_results(api, mem0_space):
    api.tool("memory_note", text="espresso machine descaling every month")
    mem0_space[1].set_fault("error500")
    results = api.tool("memory_search", query="espresso descaling").json()["result"]["results"]
    assert [r["provider"] for r in results] == ["native"]
    assert MemorySpace.objects.get(slug="shared").last_error


def test_max_entries_archives_the_weakest_never_an_immune_one_and_deletes_nothing(api):
    set_settings(maxEntries=3)
    for i in range(3):
        api.turn(f"old note {i}", "ok", session_id=f"s{i}", at=f"2026-01-0{i + 1}T10:00:00+00:00")
    Entry.objects.filter(body__contains="old note 0").update(importance=5)
    api.turn("fresh note", "ok", session_id="new")
    assert Entry.objects.filter(archived=True).count() == 1
    archived = Entry.objects.get(archived=True)
    assert "old note 0" not in archived.body and archived.deleted_at is None
    assert Entry.objects.count() == 4


def test_max_entries_counts_the_space_only_when_it_could_be_over(api):
    set_settings(maxEntries=4)
    first = api.turn("note one", "ok", session_id="a").json()["entry"]["id"]
    assert default_space().cap_check_from == int(first) + 3  # three more entries before it could be over
    for i in range(4):
        api.turn(f"note {i + 2}", "ok", session_id="a")
    assert Entry.objects.filter(archived=True).count() == 1 and Entry.objects.count() == 5
    archived = list(Entry.objects.filter(archived=True))
    marks.archive(default_space(), [e.pk for e in archived], archived=False)
    assert default_space().cap_check_from == 0  # back to recall: the next write counts again
    api.turn("note six", "ok", session_id="a")
    assert Entry.objects.recallable().count() == 4


def test_a_full_space_is_not_counted_again_on_every_write(api):
    set_settings(maxEntries=300)
    api.post("turns", {"turns": [{"session_id": "a", "user": f"fill {i}", "assistant": "ok"} for i in range(100)]})
    api.post("turns", {"turns": [{"session_id": "a", "user": f"fill {i}", "assistant": "ok"}
                                 for i in range(100, 200)]})
    api.post("turns", {"turns": [{"session_id": "a", "user": f"fill {i}", "assistant": "ok"}
                                 for i in range(200, 300)]})
    last = api.turn("one over the cap", "ok", session_id="a").json()["entry"]["id"]
    assert Entry.objects.recallable().count() == 297  # taken a hundredth of the cap below it, not to it
    assert Entry.objects.count() == 301 and not Entry.objects.filter(deleted_at__isnull=False).exists()
    assert default_space().cap_check_from == int(last) + 3  # the next count is three writes away, not one


def test_auto_summarize_uses_the_llm_when_configured(api, settings):
    from tests.fakes_llm import FakeLLM, chat_answer

    with FakeLLM([chat_answer("Caroline joined a support group.")]) as llm:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "m"}
        r = api.turn("So yesterday I finally went to that LGBTQ support group I told you about", "How was it?")
    assert r.status_code == 201
    assert Entry.objects.get().summary == "Caroline joined a support group."


def test_auto_summarize_off_makes_no_model_calls(api, settings):
    from tests.fakes_llm import FakeLLM, chat_answer

    set_settings(autoSummarize=False, autoPersona=False)
    with FakeLLM([chat_answer("should not be used")]) as llm:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "m"}
        api.turn("a turn to summarise", "ok")
        assert llm.requests == []


def test_a_spaces_recall_thresholds_set_the_tiers_memory_search_answers(api):
    api.tool("memory_note", text="espresso machine descaling every month")
    api.tool("memory_note", text="the espresso beans come from the corner shop")
    query = {"query": "espresso machine descaling", "space": "default"}
    assert {r["tier"] for r in api.tool("memory_search", **query).json()["result"]["results"]} <= {"high", "medium"}
    set_settings(recallLow=0.95, recallHigh=0.99)
    tiers = [r["tier"] for r in api.tool("memory_search", **query).json()["result"]["results"]]
    assert tiers[0] == "high" and "low" in tiers


def test_a_spaces_recall_thresholds_keep_weak_matches_out_of_context(api):
    api.turn("The espresso machine needs descaling every month.", "ok", session_id="a")
    api.turn("The espresso beans come from the corner shop.", "ok", session_id="b")
    assert "corner shop" in context(api, "espresso machine descaling", space="default")["text"]
    set_settings(recallLow=0.9, recallHigh=0.95)
    text = context(api, "espresso machine descaling", space="default")["text"]
    assert "descaling every month" in text and "corner shop" not in text


def test_the_home_spaces_recall_policy_filters_a_search_across_providers(api, mem0_space):
    assert api.tool("memory_note", text="the espresso machine descaling schedule", space="shared").status_code == 200
    api.tool("memory_note", text="espresso machine descaling every month")
    api.tool("memory_note", text="machine room door code is kept elsewhere")

    def tiers():
        return [r["tier"] for r in api.tool("memory_search", query="espresso machine descaling").json()["result"]["results"]]

    set_settings(recallLow=0.6, recallHigh=0.9)  # the default space is where this token's writes go
    assert "low" not in tiers()
    set_settings(recallPolicy="balanced-v1")
    assert tiers()[-1] == "low"
    set_settings(recallPolicy="strict-v1", recallMaxUnknown=0)
    assert "unknown" not in tiers()


def test_the_recall_preview_follows_the_spaces_recall_thresholds(api, client, staff):
    api.turn("The espresso machine needs descaling every month.", "ok", session_id="a")
    api.turn("The espresso beans come from the corner shop.", "ok", session_id="b")
    set_settings(recallLow=0.9, recallHigh=0.95)
    page = client.get("/spaces/default/recall/", {"q": "espresso machine descaling"}).content.decode()
    assert "below the recall policy" in page
