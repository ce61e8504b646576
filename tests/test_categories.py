"""Categories beyond `context`: a turn stating a preference, a fact about the user, a decision, a pitfall or
progress is filed so, in both languages (bench/data/categories_dev.jsonl, ours), through the real write path."""

import json
from pathlib import Path

import pytest

from memoryhub.memories.text.categories import classify
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

ROWS = [json.loads(line) for line in (Path(__file__).resolve().parent.parent / "bench" / "data" /
                                      "categories_dev.jsonl").read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="cat", name="Cat")


def test_turns_are_filed_under_what_they_state(space):
    filed = [gateway.write(space, gateway.Draft(kind="turn", user=r["user"], assistant=r["assistant"],
                                                session_id=f"s{n}")).entry.category for n, r in enumerate(ROWS)]
    wrong = [(r["user"], r["category"], got) for r, got in zip(ROWS, filed) if got != r["category"]]
    assert len(wrong) <= len(ROWS) // 10, wrong
    assert {"preference", "fact", "decision", "pitfall", "progress"} <= set(filed)


def test_a_decision_or_a_pitfall_outranks_what_the_user_said_of_themselves():
    assert classify("I prefer Go, so we decided to rewrite the worker in Go.", ["preference"]) == "decision"
    assert classify("我住在上海，部署的时候报错了。", ["location"]) == "pitfall"
    assert classify("I live in Leeds.", ["location"]) == "fact"
    assert classify("Call me Sam.", ["nickname"]) == "preference"
    assert classify("登录模块搞定了。") == "progress"  # 搞定 is done, not 定了 (decided)
    assert classify("How do I centre a div?") == "context"


@pytest.mark.parametrize("text, stated, category", [
    ("I'm allergic to shellfish, so be careful with recipes.", ["allergy"], "fact"),
    ("我对芒果过敏，推荐水果的时候千万别选芒果。", ["allergy"], "fact"),
    ("I'm careful with money, but the deploy failed twice today.", [], "pitfall"),
    ("I'm Dana Ortiz, my friends call me Dee.", ["name", "nickname"], "fact"),
    ("We agreed with the data team that exports run at midnight.", [], "decision"),
    ("The plan for the migration: copy first, then switch reads.", [], "decision"),
    ("我们下个月要上线新的支付服务。", [], "context"),
    ("新的支付服务昨天上线了。", [], "progress"),
])
def test_a_warning_about_the_user_a_mixed_introduction_an_agreement_and_a_plan(text, stated, category):
    assert classify(text, stated) == category
