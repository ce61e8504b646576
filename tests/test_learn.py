"""Facts a model reads from new turns (growth/learn.py), against the fake OpenAI-compatible server: valid
claims go through the slots with their evidence turn; malformed answers, failures and timeouts keep the rule
facts and leave their message on the space."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.conf import Conf

from memoryhub.memories.growth import enrich, learn
from memoryhub.memories.models import Fact
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from tests.fakes_llm import FakeLLM, chat_answer


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="learn", name="Learn")


def turn(space, user, minutes=0, **extra):
    at = timezone.now() - timedelta(hours=1) + timedelta(minutes=minutes)
    return gateway.write(space, gateway.Draft(kind="turn", user=user, assistant="OK.", session_id="s", at=at,
                                              **extra)).entry


def model(settings, fake):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": fake.base_url, "LLM_MODEL": "fake", "LLM_TIMEOUT": 0.5}


def answer(*facts):
    return chat_answer(json.dumps({"facts": list(facts)}))


def test_valid_claims_go_through_the_slots_from_the_turn_that_says_them(space, settings):
    hiking = turn(space, "Weekends are for the mountains, hiking mostly.")
    cat = turn(space, "Our cat Mochi knocked over the plant again.", minutes=1)
    with FakeLLM([answer({"predicate": "preference", "value": "hiking", "evidence": [hiking.pk]},
                         {"predicate": "pet", "value": "Mochi", "negative": False, "evidence": [str(cat.pk)]})]) as fake:
        model(settings, fake)
        result = learn.from_turns(space.pk, [hiking.pk, cat.pk])
    assert (result["asserted"], result["rejected"], result["error"]) == (2, 0, "")
    learned = {(f.predicate, f.value, f.method, f.source_entry_id) for f in Fact.objects.filter(method="llm")}
    assert learned == {("preference", "hiking", "llm", hiking.pk), ("pet", "Mochi", "llm", cat.pk)}
    prompt = fake.requests[0]["body"]["messages"][1]["content"]
    assert f"[turn {hiking.pk}]" in prompt and "Mochi" in prompt
    assert fake.requests[0]["body"]["messages"][0]["content"].startswith("You read conversation turns")


def test_claims_the_turns_do_not_bear_out_are_dropped(space, settings):
    said = turn(space, "I mostly cook Sichuan food at home.")
    other = turn(space, "Unrelated: the build is green.", minutes=1)
    bad = [
        {"predicate": "favouriteColour", "value": "blue", "evidence": [said.pk]},    # no such predicate
        {"predicate": "preference", "value": "sushi", "evidence": [said.pk]},        # not in what was said
        {"predicate": "preference", "value": "Sichuan food", "evidence": [999999]},  # not a turn of the batch
        {"predicate": "preference", "value": "Sichuan food", "evidence": []},        # no evidence
        {"predicate": "preference", "value": "Sichuan food", "evidence": [said.pk], "negative": "no"},
        {"predicate": "preference", "value": "Sichuan food", "evidence": [said.pk], "subject": "Bob"},
        "cooking",
    ]
    with FakeLLM([answer(*bad, {"predicate": "preference", "value": "Sichuan food", "evidence": [said.pk]})]) as fake:
        model(settings, fake)
        result = learn.from_turns(space.pk, [said.pk, other.pk])
    assert (result["asserted"], result["rejected"]) == (1, len(bad))
    assert list(Fact.objects.filter(method="llm").values_list("value", flat=True)) == ["Sichuan food"]


def test_a_model_never_overturns_what_the_rules_read(space, settings):
    said = turn(space, "My name is Olivia.")
    with FakeLLM([answer({"predicate": "name", "value": "Olive", "evidence": [said.pk]})]) as fake:
        model(settings, fake)
        result = learn.from_turns(space.pk, [said.pk])
    assert result["rejected"] == 1
    assert list(Fact.objects.filter(predicate="name", status="active").values_list("value", "method")) == [
        ("Olivia", "rule")]


@pytest.mark.parametrize("script, message", [
    ([chat_answer("Sure! Here are the facts: the user likes hiking.")], "no JSON"),
    ([chat_answer('{"facts": "hiking"}')], "no list of facts"),
    ([chat_answer('["hiking"]')], "no list of facts"),
    ([(500, {"error": "down"})], "500"),
    ([("sleep", 2.0)], "timed out"),
])
def test_a_failing_or_malformed_model_keeps_the_rule_facts_and_says_so_on_the_space(space, settings, script, message):
    said = turn(space, "I'm allergic to peanuts.")
    with FakeLLM(script) as fake:
        model(settings, fake)
        result = learn.from_turns(space.pk, [said.pk])
    assert message in result["error"]
    space.refresh_from_db()
    assert space.last_error.startswith(learn.ERROR_PREFIX) and message in space.last_error
    assert list(Fact.objects.values_list("predicate", "value", "method")) == [("allergy", "peanuts", "rule")]
    with FakeLLM([answer()]) as fake:  # the next run that works clears the message
        model(settings, fake)
        learn.from_turns(space.pk, [said.pk])
    space.refresh_from_db()
    assert space.last_error == ""


def test_no_model_is_asked_without_one_for_imports_or_with_autosummarize_off(space, settings):
    imported = turn(space, "I love jazz.", source="import")
    plain = turn(space, "I love blues.", minutes=1)
    assert learn.from_turns(space.pk, [plain.pk])["asked"] == 0  # no model configured
    with FakeLLM([answer()]) as fake:
        model(settings, fake)
        assert learn.from_turns(space.pk, [imported.pk])["asked"] == 0
        space.settings = {"autoSummarize": False}
        space.save()
        assert learn.from_turns(space.pk, [plain.pk])["asked"] == 0
    assert fake.requests == []


def test_the_worker_asks_once_per_batch_of_new_turns(space, settings, monkeypatch):
    monkeypatch.setattr(Conf, "SYNC", False)  # the worker's run, as with `make run`
    first = turn(space, "Weekends mean banjo practice for me.")  # no rule reads this one
    second = turn(space, "My sister Ana lives in Porto.", minutes=1)
    with FakeLLM([answer({"predicate": "skill", "value": "banjo", "evidence": [first.pk]})]) as fake:
        model(settings, fake)
        enrich.run(space.pk)
    chats = [r for r in fake.requests if "[turn " in r["body"]["messages"][-1]["content"]]
    assert len(chats) == 1 and f"[turn {second.pk}]" in chats[0]["body"]["messages"][-1]["content"]
    assert Fact.objects.filter(method="llm", predicate="skill", value="banjo", source_entry=first).exists()
