"""People as entities the way conversation names them: a given name a relation word introduces (我女儿思琪 has
no surname, and alone 思琪 could be any word), never a dictionary word that happens to be tagged a name (明白,
城市), and a first name said after the full one is that person in the space (one entity, its mentions counted)
unless two known people share it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memoryhub.memories.models import Entry, EntityRef
from memoryhub.memories.text.entities import full_name, mentions


def people(text, known=frozenset()):
    return [m.name for m in mentions(text, known) if m.kind == "person"]


@pytest.mark.parametrize("text, name", [
    ("我女儿雨桐今年上一年级。", "雨桐"), ("我朋友阿凯下周来苏州。", "阿凯"), ("我老婆是小敏。", "小敏"),
    ("我儿子壮壮特别爱画画", "壮壮"), ("我同事小唐说明天开会。", "小唐"), ("我闺蜜晓雯要结婚了", "晓雯"),
])
def test_a_given_name_a_relation_word_introduces_is_a_person(text, name):
    assert name in people(text)


@pytest.mark.parametrize("text", [
    "我们城市很大，我明白了。", "我去了城市，明白了。", "我女儿天天看动画片。", "我儿子小学毕业了。", "我妈妈常常说这句话",
    "我朋友叫我早点睡。",
])
def test_words_stay_words_where_no_relation_word_names_someone(text):
    assert people(text) == []


def test_a_familiar_name_is_not_glued_to_the_verb_after_it_and_a_company_named_by_jiao_is_one():
    assert people("老刘说下周去成都出差。") == ["老刘"]
    assert people("科室里老王推荐我用Notion记笔记。") == ["老王"] and people("我和小刘推荐了一家店。") == ["小刘"]
    assert people("老师推荐的书") == [] and people("小时候我住在乡下") == []
    assert people("阿杰推荐了一家日料店。") == ["阿杰"] and people("阿姨说明天来。") == []
    assert mentions("也不怎么吃东西，我带它去了宠物医院。") == []  # 东西 (things), which the dictionary tags a place
    assert [(m.name, m.kind) for m in mentions("我们公司叫星辰科技。")] == [("星辰科技", "organisation")]


def test_a_first_name_is_the_one_known_full_name_unless_two_share_it():
    assert full_name("Marco", {"Marco Rossi", "Lumen"}) == "Marco Rossi"
    assert full_name("Marco", {"Marco Rossi", "Marco Bianchi"}) == "Marco"
    assert full_name("Marco", {"Marcos Silva"}) == "Marco"
    assert "Marco Rossi" in people("Ask Marco about the rota.", {"Marco Rossi"})


@pytest.fixture
def say(transactional_db, api):
    def turn(text, key):
        assert api.turn(text, idempotency_key=key).status_code in (200, 201)
        return Entry.objects.order_by("-id").first()
    return turn


def test_a_later_first_name_in_the_same_space_counts_for_the_full_name(say):
    say("Dana Whitfield owns the payments dashboard.", "a")
    later = say("Back from lunch: Dana thinks the export is slow.", "b")
    assert "Dana Whitfield" in later.entities and "Dana" not in later.entities
    assert EntityRef.objects.filter(name="Dana Whitfield").count() == 2
    assert not EntityRef.objects.filter(name="Dana").exists()


def test_two_known_people_with_one_first_name_leave_it_alone(say):
    say("Dana Whitfield owns the payments dashboard.", "a")
    say("Dana Okafor runs the support desk.", "b")
    later = say("Back from lunch: Dana thinks the export is slow.", "c")
    assert "Dana" in later.entities and not {"Dana Whitfield", "Dana Okafor"} & set(later.entities)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's planner")
def test_the_full_names_a_first_name_may_be_short_for_are_read_by_the_name_index(db):
    from memoryhub.memories.write import gateway
    from memoryhub.spaces.models import MemorySpace

    space = MemorySpace.objects.create(slug="plans", name="plans")
    for n in range(30):
        gateway.write(space, gateway.Draft(body=f"Dana Whitfield moved crate {n} with Ola Berg"))
    with CaptureQueriesContext(connection) as seen:
        gateway.write(space, gateway.Draft(body="Later Dana and Ola checked the crates"))
    ranges = [q["sql"] for q in seen.captured_queries if "name >" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {ranges[0]}")
        steps = [row[-1] for row in cursor.fetchall()]
    read = [s for s in steps if "memories_entityref" in s]
    assert read and all("entityref_space_name" in s for s in read), steps
    assert "Dana Whitfield" in Entry.objects.order_by("-id").first().entities
