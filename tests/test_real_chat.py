"""The whole-product check of issue #34: a made-up bilingual user's first weeks (tests/fixtures/real_chat.json,
four sessions, English and Chinese) goes through POST /api/v1/turns with a real token, and what the user then
sees must be right: the facts they stated and no others, who they are at the head of every /context block, the
people and places they named as entities linking what was said of them, topics headed by what they are about,
and turns filed beyond `context`. No model is configured; everything here comes from the rules."""

import json
from pathlib import Path

import pytest

from memoryhub.memories.models import Edge, Entry, Topic

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "real_chat.json"
TURNS = json.loads(FIXTURE.read_text(encoding="utf-8"))["turns"]

# What the user said of themselves, as the facts list must hold it at the end (a later value replaces an earlier
# one in a single-valued slot: Shenzhen → Suzhou → 苏州工业园区; Sam is no longer what to call them).
STATED = {
    ("name", "Chen Siyuan", False), ("nickname", "阿远", False), ("nickname", "Sam", True),
    ("location", "苏州工业园区", False), ("hometown", "Ganzhou", False), ("job", "backend engineer", False),
    ("employer", "Lumen Freight", False), ("spouse", "Lin Yue", False), ("child", "Siqi", False),
    ("pet", "Sesame (tabby)", False), ("allergy", "cashews", False), ("allergy", "pistachios", False),
    ("diet", "vegetarian", False), ("preference", "吃辣", True), ("language", "Chinese", False),
    ("birthday", "November 14", False), ("preference", "bouldering", False),
    ("preference", "花样年华 (电影)", False), ("skill", "Cantonese", False), ("age", "三十六", False),
    ("trait", "内向", False), ("habit", "每天早上六点半跑步", False), ("goal", "明年春天跑完一个半马", False),
    ("goal", "Suzhou dialect", False),
}
# Turns that state nothing about the user: questions, other people, plans of the moment, work.
SAYS_NOTHING_OF_THE_USER = ("Priya", "Marco", "老周", "思琪的生日", "芝麻最近", "苏州这边有什么", "今晚想做顿素的",
                            "我们打算四月", "Tidewater", "We decided", "上周末我们一家")


@pytest.fixture
def chat(transactional_db, client):
    from tests.conftest import make_api

    api = make_api(client)
    answers = {}
    for turn in TURNS:
        response = api.post("turns", turn)
        assert response.status_code in (200, 201), response.content
        answers[turn["idempotency_key"]] = response.json()
    return api, answers


def user_facts(api):
    response = api.tool("memory_facts", action="list")
    assert response.status_code == 200, response.content
    return {(f["predicate"], f["value"], f["negative"]) for f in response.json()["result"]["facts"]
            if f["subject"] == "user"}


def block(api, query):
    response = api.post("context", {"session_id": "next-day", "query": query})
    assert response.status_code == 200, response.content
    return response.json()["text"]


def test_the_facts_are_what_the_user_said_of_themselves_and_the_block_says_who_they_are(chat):
    api, answers = chat
    assert user_facts(api) == STATED
    for turn in TURNS:
        if turn["user"].startswith(SAYS_NOTHING_OF_THE_USER) or turn["user"].endswith(("？", "?")):
            asserted = answers[turn["idempotency_key"]]["facts"]["asserted"]
            assert [f for f in asserted if f["subject"] == "user"] == [], turn["user"]
    # Siqi's birthday is hers and what Lin Yue does is hers ("my wife is Lin Yue, she teaches piano"), kept with
    # them as subjects; the user's birthday stays November 14 and the user teaches nothing
    listed = api.tool("memory_facts", action="list").json()["result"]["facts"]
    assert {(f["subject"], f["predicate"], f["value"]) for f in listed if f["subject"] != "user"} == {
        ("思琪", "birthday", "六月三号"), ("Lin Yue", "job", "teach piano")}

    dinner = block(api, "what should I cook for dinner tonight?")
    for line in ("Call the user: 阿远", "Name: Chen Siyuan", "Spouse: Lin Yue", "Children: Siqi",
                 "Allergies: cashews; pistachios", "Diet: vegetarian", "Dislikes: 吃辣"):
        assert line in dinner, (line, dinner)
    assert "Sam" not in dinner.split("## ", 2)[1]  # the frame no longer calls them Sam
    daughter = block(api, "what's my daughter's name?")
    assert "Children: Siqi" in daughter
    assert "Allergies: cashews; pistachios" in block(api, "今晚吃什么")
    assert "Lives in: 苏州工业园区" in block(api, "我们周末去哪儿玩")


def test_people_and_places_are_entities_that_link_what_was_said_of_them(chat, django_user_model):
    api, _ = chat
    entries = {e.body.split("\n", 1)[0]: e for e in Entry.objects.filter(kind="turn")}
    names = {name for e in entries.values() for name in e.entities or []}
    for person in ("Priya", "Marco Rossi", "Lin Yue", "林悦", "Siqi", "阿远", "老周"):
        assert person in names, person
    for place in ("Shenzhen", "Suzhou", "苏州", "Hong Kong", "Singapore", "杭州", "金鸡湖"):
        assert place in names, place
    assert {"Tidewater", "星海小学", "Lumen Freight"} <= names
    for word in ("明白", "可能", "我阿远", "江西人", "Mostly"):  # an answer, a verb, a demonym, an adverb
        assert word not in names, word

    moved = next(e for line, e in entries.items() if "Priya finished moving the billing service" in line)
    pager = next(e for line, e in entries.items() if "Priya is also carrying the billing pager" in line)
    link = Edge.objects.filter(edge_type="entity", source__in=[moved, pager], target__in=[moved, pager]).first()
    assert link is not None and link.metadata["entity"] == "Priya"

    titles = [t.title for t in Topic.objects.order_by("started_at")]
    assert any(t.startswith("Tidewater / ") for t in titles), titles
    assert not any(t.startswith(("RPS / ", "明白 / ")) for t in titles), titles

    filed = {line: e.category for line, e in entries.items()}
    assert sum(c == "context" for c in filed.values()) <= len(filed) * 0.4, filed
    assert filed[next(line for line in filed if "allergic to cashews" in line)] == "fact"
    assert filed[next(line for line in filed if "We agreed with Priya" in line)] == "decision"
    assert filed[next(line for line in filed if "Never use FLOAT for money" in line)] == "pitfall"


def test_the_facts_page_in_chinese_shows_each_stated_fact_and_marks_what_the_user_rejected(chat, client,
                                                                                           django_user_model):
    client.force_login(django_user_model.objects.create_user("reader", password="pw", is_staff=True))
    page = client.get("/spaces/default/facts/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-hans">' in page
    for value in ("Chen Siyuan", "阿远", "Lin Yue", "Siqi", "Sesame (tabby)", "cashews", "苏州工业园区", "内向"):
        assert f'<span translate="no">{value}</span>' in page, value
    for rejected in ("Sam", "吃辣"):
        assert f'非</span> <span translate="no">{rejected}</span>' in page, rejected
