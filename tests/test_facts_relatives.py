"""The user's people, as a Chinese or English user speaks of them (issue #34's follow-ups): 爱人 and the other
words for a spouse in their common phrasings, a relative or friend introduced by a given name alone, what is
said of them kept as theirs (never the user's), and the persona frame's family line, through the real slots."""

import pytest

from memoryhub.memories.facts.slots import apply_claims, extract
from memoryhub.memories.growth.persona import project_frame
from memoryhub.memories.models import Fact
from memoryhub.spaces.models import MemorySpace


def said(text):
    return [(c.subject, c.predicate, c.value, c.negative) for c in extract(text)]


def users(text):
    return [(p, v, n) for s, p, v, n in said(text) if s == "user"]


@pytest.mark.parametrize("text, name", [
    ("我爱人叫周晴。", "周晴"), ("我爱人是周晴。", "周晴"), ("我老公是郑凯", "郑凯"), ("我老婆是小敏", "小敏"),
    ("我丈夫名叫郭涛。", "郭涛"), ("我太太的名字是林菲", "林菲"), ("这是我先生董亮。", "董亮"),
    ("我妻子许静在一家银行上班。", "许静"), ("我和老公结婚八年了，他叫吴昊。", "吴昊"),
    ("My husband, Mateo, fixes bikes.", "Mateo"), ("My wife's name is Ingrid.", "Ingrid"),
])
def test_every_word_for_the_spouse_names_the_spouse(text, name):
    assert ("spouse", name, False) in users(text)


@pytest.mark.parametrize("text, place", [
    ("我和爱人住在无锡。", "无锡"), ("我跟我老婆现在住在佛山", "佛山"), ("我和我先生一起住在昆明。", "昆明"),
    ("我老公和我住在珠海", "珠海"), ("My husband and I live in Ghent.", "Ghent"),
])
def test_living_with_the_spouse_is_where_the_user_lives(text, place):
    assert users(text) == [("location", place, False)]


@pytest.mark.parametrize("text, expected", [
    ("我跟我妈都对桃子过敏。", ("allergy", "桃子", False)), ("我和老公也不吃羊肉", ("preference", "羊肉", True)),
    ("My girlfriend and I are pescatarian.", ("diet", "pescatarian", False)),
    ("My brother and I were born in Cádiz.", ("hometown", "Cádiz", False)),
])
def test_what_the_user_shares_with_someone_is_the_users_too(text, expected):
    assert users(text) == [expected]


@pytest.mark.parametrize("text, predicate, value", [
    ("我爱人是一名牙医。", "job", "牙医"), ("我老公在顺丰上班", "employer", "顺丰"), ("我老婆对芒果过敏。", "allergy", "芒果"),
    ("我爱人的生日是九月九号。", "birthday", "九月九号"), ("我先生不吃香菜", "preference", "香菜"),
    ("My wife's birthday is July 2.", "birthday", "July 2"), ("My husband works at Airbus.", "employer", "Airbus"),
])
def test_what_is_said_of_an_unnamed_spouse_is_the_spouses_never_the_users(text, predicate, value):
    found = said(text)
    assert [(p, v) for s, p, v, _n in found] == [(predicate, value)] and found[0][0] == "@spouse"
    assert users(text) == []


def test_an_unnamed_spouses_facts_go_to_the_name_the_space_knows_and_nowhere_while_none_is_known(db):
    space = MemorySpace.objects.create(slug="fam", name="Fam")
    apply_claims(space, extract("我爱人的生日是九月九号。"))
    assert not Fact.objects.filter(space=space).exists()  # whose birthday is not known yet: nobody's
    apply_claims(space, extract("我爱人叫周晴。"))
    apply_claims(space, extract("我爱人的生日是九月九号。"))
    apply_claims(space, extract("我爱人是一名牙医。"))
    assert set(Fact.objects.filter(space=space).values_list("subject", "predicate", "value")) == {
        ("user", "spouse", "周晴"), ("周晴", "birthday", "九月九号"), ("周晴", "job", "牙医")}
    # two children: "my son's birthday" says which one no more than the slots can tell
    apply_claims(space, extract("我儿子叫乐乐。"))
    apply_claims(space, extract("我有个儿子叫安安。"))
    apply_claims(space, extract("我儿子的生日是二月一号。"))
    assert not Fact.objects.filter(space=space, predicate="birthday", value="二月一号").exists()


@pytest.mark.parametrize("text, relation, name", [
    ("我女儿雨桐今年上一年级。", "child", "雨桐"), ("我儿子壮壮特别爱画画", "child", "壮壮"),
    ("我姐姐王蕾在成都开了家花店。", "sibling", "王蕾"), ("我妈妈刘梅是退休教师", "parent", "刘梅"),
    ("My son Felix plays the cello.", "child", "Felix"), ("My little sister Noor lives in Oslo.", "sibling", "Noor"),
])
def test_a_relative_named_by_a_given_name_alone_is_that_relative(text, relation, name):
    assert users(text) == [(relation, name, False)]


@pytest.mark.parametrize("text, name, word", [
    ("我朋友阿凯", "阿凯", "朋友"), ("我同事小唐在杭州上班。", "小唐", "同事"), ("我有个朋友叫乐天", "乐天", "朋友"),
    ("My friend Ravi is a pharmacist.", "Ravi", "friend"), ("I have a neighbour named Greta.", "Greta", "neighbour"),
])
def test_a_friend_or_colleague_named_is_who_they_are_to_the_user_and_no_fact_of_the_users(text, name, word):
    assert (name, "relation", word, False) in said(text)
    assert users(text) == []


def test_what_follows_a_named_relative_without_a_subject_or_with_she_is_theirs():
    assert said("我妻子叫许静，在南京工作，她对虾过敏。") == [
        ("user", "spouse", "许静", False), ("许静", "location", "南京", False), ("许静", "allergy", "虾", False)]
    assert said("My friend Ravi is a pharmacist.") == [
        ("Ravi", "relation", "friend", False), ("Ravi", "job", "pharmacist", False)]


def test_a_child_born_to_the_couple_is_named_by_the_clause_after():
    assert users("我太太去年生了个儿子，叫乐天。") == [("child", "乐天", False)]


@pytest.mark.parametrize("text", [
    "我老婆叫我少熬夜。", "我爸爸叫我周末回家吃饭", "我女朋友叫我宝贝",
    "我们城市很大。", "我明白了，谢谢。", "我女儿天天看动画片。", "我儿子小学毕业了。", "我老公特别懒。",
    "我朋友是医生。", "My mother tongue is Greek.", "Caroline: my husband works at Airbus.", "My sister is Maria's aunt.",
])
def test_no_one_is_named_where_no_name_is_said(text):
    assert [c for c in said(text) if c[1] in ("spouse", "child", "relation", "sibling")] == []


def test_the_frame_has_the_family_line_and_where_the_couple_lives(transactional_db, api):
    for n, text in enumerate(["我和爱人住在无锡。", "这是我爱人周晴，她是牙医。", "我女儿雨桐今年上一年级。"]):
        assert api.turn(text, idempotency_key=f"k{n}").status_code in (200, 201)
    frame = project_frame(MemorySpace.objects.get(slug="default"))
    assert "Lives in: 无锡" in frame and "Spouse: 周晴" in frame and "Children: 雨桐" in frame
    assert "牙医" not in frame  # her job is hers, not a line about the user
    facts = api.tool("memory_facts", action="list").json()["result"]["facts"]
    assert {(f["subject"], f["predicate"], f["value"]) for f in facts} == {
        ("user", "location", "无锡"), ("user", "spouse", "周晴"), ("周晴", "job", "牙医"), ("user", "child", "雨桐")}


def test_a_relation_is_never_a_fact_of_the_users(db):
    from memoryhub.memories.facts.rules import Claim

    space = MemorySpace.objects.create(slug="rel", name="Rel")
    apply_claims(space, [Claim(predicate="relation", value="friend"), Claim(subject="阿凯", predicate="relation",
                                                                             value="朋友")], method="llm")
    assert list(Fact.objects.filter(space=space).values_list("subject", "predicate", "value")) == [
        ("阿凯", "relation", "朋友")]
