"""Smart provider selection: hard rules, the selector prompt, answer checking and the tie-break."""

from __future__ import annotations

import json

import pytest

from memoryhub.spaces.selection import (Decision, SelectionError, build_prompt, parse_answer, profile,
                                        select_provider)
from providers import registry
from providers.base import Capabilities, Field, Provider

ALL = ["openviking", "hindsight", "holographic", "byterover"]


class Recorder:
    """A stand-in selector model that records its prompts and answers from a script."""

    def __init__(self, answer):
        self.answer, self.prompts = answer, []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_local_only_removes_every_remote_provider():
    decision = select_provider(ALL, boundary="local-only")
    assert set(decision.eligible) == {"native", "holographic", "byterover"}
    assert "openviking removed: remote, and the boundary is local-only" in decision.applied_rules


def test_required_capabilities_filter():
    decision = select_provider(ALL, required={"graph", "forget", "related"}, available={"native": False})
    assert set(decision.eligible) == {"hindsight", "holographic"}
    assert "byterover removed: lacks forget, graph, related" in decision.applied_rules


def test_exact_write_requirement_uses_the_write_mode():
    decision = select_provider(ALL, required={"exact-write"}, available={"native": False})
    assert decision.eligible == ["holographic"]


def test_unavailable_kinds_are_out():
    decision = select_provider(["holographic", "byterover"], available={"byterover": False, "native": False})
    assert decision.provider == "holographic" and decision.source == "rules" and decision.confidence == "high"
    assert "byterover removed: not available" in decision.applied_rules


def test_native_is_always_a_local_candidate_when_available():
    decision = select_provider(["openviking"], boundary="local-only")
    assert decision.provider == "native" and decision.eligible == ["native"]
    assert decision.candidates == ["openviking", "native"]


def test_nothing_left_raises_with_the_rules():
    with pytest.raises(SelectionError) as caught:
        select_provider(["openviking"], boundary="local-only", available={"native": False})
    assert caught.value.applied_rules == ["openviking removed: remote, and the boundary is local-only"]


def test_single_eligible_is_chosen_by_rule_without_asking_the_model():
    llm = Recorder('{"provider": "openviking"}')
    decision = select_provider(["hindsight"], boundary="any", required={"entities"}, available={"native": False}, llm=llm)
    assert (decision.provider, decision.source) == ("hindsight", "rules") and llm.prompts == []


@pytest.mark.parametrize("preference, expected", [
    ("balanced", "openviking"), ("local-first", "holographic"), ("shared-first", "openviking")])
def test_deterministic_tie_break(preference, expected):
    decision = select_provider(["holographic", "openviking"], preference=preference, available={"native": False})
    assert decision.provider == expected and decision.source == "rules" and decision.confidence == "medium"


def test_the_model_chooses_among_several():
    llm = Recorder('Sure!\n```json\n{"provider": "Hindsight", "reason": "needs a graph", "confidence": "HIGH"}\n```')
    decision = select_provider(ALL, preference="shared-first", policy_prompt="Team memory, graph matters.", llm=llm)
    assert (decision.provider, decision.source, decision.confidence) == ("hindsight", "llm", "high")
    assert decision.reason == "needs a graph"
    prompt = llm.prompts[0]
    assert "Team memory, graph matters." in prompt and "shared-first" in prompt
    assert all(kind in prompt for kind in decision.eligible)


def test_an_answer_outside_the_eligible_set_is_rejected():
    llm = Recorder('{"provider": "openviking", "confidence": "high"}')
    decision = select_provider(ALL, boundary="local-only", llm=llm)
    assert decision.provider == "native" and decision.source == "rules" and decision.confidence == "low"
    assert "rejected" in decision.reason
    assert "selector answer 'openviking' rejected: not in the eligible set" in decision.applied_rules


@pytest.mark.parametrize("answer", ["", "I cannot decide.", "{broken json", RuntimeError("model down")])
def test_unusable_answers_fall_back_to_the_tie_break(answer):
    decision = select_provider(["holographic", "byterover"], available={"native": False}, llm=Recorder(answer))
    assert decision.provider == "holographic" and decision.source == "rules" and decision.confidence == "low"


@pytest.mark.parametrize("answer, provider", [
    ('{"provider": "mem0"}', "mem0"), ("provider: holographic", "holographic"), ("`hindsight`", "hindsight"),
    ('{"provider": "x", "reason": "y", "other": 1}', "x")])
def test_parse_answer_is_tolerant(answer, provider):
    assert parse_answer(answer)["provider"] == provider


def test_unknown_confidence_becomes_medium():
    decision = select_provider(["holographic", "byterover"], available={"native": False},
                               llm=Recorder('{"provider": "byterover", "confidence": "certain"}'))
    assert (decision.provider, decision.confidence) == ("byterover", "medium")


class LeakyProvider(Provider):
    kind = "leaky"
    label = "Leaky"
    locality = "local"
    description = "A provider for the test."
    capabilities = Capabilities(search=True, graph=True)
    service_fields = (Field("apiKey", "API key", secret=True, default="sk-default-secret-123"),
                      Field("endpoint", "Endpoint", default="http://internal.example:9999"))


def test_credentials_and_config_never_reach_the_prompt(monkeypatch):
    monkeypatch.setitem(registry.PROVIDERS, "leaky", "tests.test_selection.LeakyProvider")
    monkeypatch.setitem(registry._loaded, "leaky", LeakyProvider)
    llm = Recorder('{"provider": "leaky"}')
    decision = select_provider(["leaky", "holographic"], llm=llm, policy_prompt="prefer local")
    assert decision.provider == "leaky"
    prompt = llm.prompts[0]
    for secret in ("sk-default-secret-123", "internal.example", "apiKey", "endpoint"):
        assert secret not in prompt
    options = json.loads(prompt.split("Options (JSON):\n", 1)[1].split("\nUser policy:", 1)[0])
    assert {tuple(sorted(o)) for o in options} == {
        ("capabilities", "deletion_mode", "description", "kind", "label", "locality", "write_mode")}


def test_decision_is_plain_data():
    decision = select_provider(["holographic"], available={"native": False})
    assert isinstance(decision, Decision)
    data = decision.as_dict()
    assert set(data) == {"provider", "source", "reason", "confidence", "candidates", "eligible", "applied_rules",
                         "decided_at"}
    json.dumps(data)


def test_unknown_kinds_and_bad_arguments():
    assert "nope removed: unknown provider kind" in select_provider(["nope", "holographic"]).applied_rules
    with pytest.raises(ValueError):
        select_provider(ALL, boundary="cloud")
    with pytest.raises(ValueError):
        select_provider(ALL, preference="fast")
    with pytest.raises(ValueError):
        select_provider(ALL, required={"telepathy"})


def test_build_prompt_truncates_a_huge_policy():
    prompt = build_prompt([profile("holographic")], "balanced", "x" * 10000, set(), "any")
    assert prompt.count("x") < 5000
