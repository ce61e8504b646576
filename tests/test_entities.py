"""Entities named in plain words (text/entities.py), the segmenter others call (text/segment.py), and the typed
entity edges that link entries naming the same one."""

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from memoryhub.memories.models import Edge
from memoryhub.memories.text import segment
from memoryhub.memories.text.entities import extract_entities, mentions
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace


def named(text):
    return {(m.name, m.kind) for m in mentions(text)}


@pytest.mark.parametrize("text, expected", [
    ("Alice moved the billing service to PostgreSQL.", {("Alice", "person"), ("PostgreSQL", "tech")}),
    ("I had lunch with Marco near the office.", {("Marco", "person")}),
    ("We flew from Lisbon to San Francisco.", {("Lisbon", "place"), ("San Francisco", "place")}),
    ("She works at Goldman Sachs.", {("Goldman Sachs", "organisation")}),
    ("Helen's team ships the Atlas project on Friday.", {("Helen", "name"), ("Atlas", "project")}),
    ("Yesterday Kenji and I visited the University of Michigan.",
     {("Kenji", "name"), ("University of Michigan", "organisation")}),
    ("王磊下周去深圳出差。", {("王磊", "person"), ("深圳", "place")}),
    ("我女儿叫朵朵，在北京上幼儿园。", {("朵朵", "person"), ("北京", "place")}),
    ("赵一鸣在华为上班。", {("赵一鸣", "person"), ("华为", "organisation")}),
    ("新来的实习生都叫我阿杰。", {("阿杰", "person")}),
    ("周末去金鸡湖边骑车。", {("金鸡湖", "place")}),
    ("我们下个月上线新的推荐服务，代号 Bluebird。", {("Bluebird", "name")}),
    ("Bluebird passed its first load test.", {("Bluebird", "name")}),
    ("Orion will replace the nightly billing job.", {("Orion", "name")}),
    ("My husband is Tomás Ruiz, he builds boats.", {("Tomás Ruiz", "person")}),
    ("孩子转学到了阳光小学。", {("阳光小学", "organisation")}),
    ("周末去南京博物馆看展。", {("南京博物馆", "organisation")}),
    ("我跟老陈吃饭，小刘也来了。", {("老陈", "person"), ("小刘", "person")}),
    ("老赵说周三之前能交。", {("老赵", "person")}),
])
def test_people_places_and_organisations_named_in_plain_words(text, expected):
    assert expected <= named(text)


@pytest.mark.parametrize("text", [
    "Run the tests and tell me what fails.", "Please explain how photosynthesis works.",
    "Yesterday was busy, but today is quiet.", "Thanks! See you on Monday.", "The English version is longer.",
    "请解释一下量子计算。", "谢谢，今天就到这里。", "我老公和我哥哥都过敏。",
    "明白，我会记住的。", "狗半夜叫可能是饿了。", "虽然我是湖南人，但不太能吃辣。",
    "Sadly ended the trip early.", "Finally finished the migration.", "一个小时以后再说。", "我们小区的小吃很好。",
])
def test_ordinary_words_opening_a_sentence_name_nothing(text):
    assert named(text) == set()


def test_an_adverb_opening_a_sentence_before_a_tech_term_is_no_name():
    assert named("Mostly Python and Django these days.") == {("Python", "tech"), ("Django", "tech")}

def test_speaker_labels_are_who_speaks_not_what_is_named():
    assert extract_entities("User: I moved to Leeds\n\nAssistant: Leeds is lovely.") == ["Leeds"]
    assert extract_entities("Caroline: I went hiking with Melanie.") == ["Melanie"]


def test_the_segmenter_gives_words_with_tags_and_content_words():
    assert segment.cut("我在杭州工作") == ["我", "在", "杭州", "工作"]
    assert ("杭州", "ns") in segment.tagged("我在杭州工作")
    assert segment.content_words("我在一家公司做后端，负责账单服务") == ["公司", "账单", "服务"]
    assert segment.tagged("plain English, no dictionary") == [
        ("plain", "eng"), ("English", "eng"), (",", "x"), ("no", "eng"), ("dictionary", "eng")]


def test_the_dictionary_loads_on_first_chinese_text_never_at_start_up(tmp_path):
    root = Path(__file__).resolve().parent.parent
    code = ("import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'memoryhub.settings'); import django; "
            "django.setup(); import memoryhub.urls; from memoryhub.memories.text import entities; "
            "from memoryhub.memories.facts import slots; entities.mentions('Alice moved to Leeds.'); "
            "slots.extract('I live in Leeds.'); print('rjieba' in sys.modules)")
    env = {"PATH": "/usr/bin:/bin", "MEMORYHUB_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr[-2000:]


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="ent", name="Ent")


def test_entries_naming_the_same_person_link_with_a_typed_edge(space):
    at = timezone.now() - timedelta(hours=2)
    first = gateway.write(space, gateway.Draft(kind="turn", user="Alice moved the billing service to PostgreSQL",
                                               assistant="Good.", session_id="a", at=at)).entry
    second = gateway.write(space, gateway.Draft(kind="turn", user="Alice owns the billing on-call rota",
                                                assistant="Noted.", session_id="b", at=at + timedelta(days=3))).entry
    assert {"Alice", "PostgreSQL"} <= set(first.entities) and "Alice" in second.entities
    edge = Edge.objects.get(source=first, target=second, edge_type="entity")
    assert edge.metadata == {"entity": "Alice", "kind": "person"}
