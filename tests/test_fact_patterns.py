"""The declared fact patterns (facts/english.py, facts/chinese.py): every row's own examples, our held-out and
probe statements in both languages (bench/data, never the dev set), the near misses that must say nothing, and
the slot semantics of the new families on real SQLite."""

import json
from pathlib import Path

import pytest

from memoryhub.memories.facts import rules
from memoryhub.memories.facts.slots import MULTI_VALUED, SINGLE_VALUED, apply_claims, current_facts, extract
from memoryhub.memories.models import Fact
from memoryhub.spaces.models import MemorySpace

DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
FAMILIES = json.loads('{"job": ["job", "role"], "like": ["preference"], "trait": ["trait", "personality"]}')
ROWS = [(language, row) for language, rows in rules.tables().items() for row in rows]


def claims(text):
    return [(c.predicate, c.value, c.negative) for c in extract(text) if c.subject == "user"]


@pytest.mark.parametrize("language, row", ROWS, ids=[f"{lang}-{row.predicate}-{n}" for n, (lang, row) in enumerate(ROWS)])
def test_every_pattern_gives_its_own_examples(language, row):
    assert row.examples, f"a pattern without an example: {row.shape}"
    for text, value in row.examples:
        # a row that names its own subject (朵朵的生日是…) is checked on that subject's claims
        said = claims(text) if "(?P<subject>" not in row.shape else [
            (c.predicate, c.value, c.negative) for c in extract(text) if c.subject != "user"]
        assert any(v == value for _, v, _ in said), (text, said)
        assert (row.predicate, value, row.negative) in said or any(v == value for p, v, n in said if p != row.predicate)


def statements(name):
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def matched(family, token, fact):
    predicate, value, negative = fact
    if token.casefold() not in value.casefold():
        return False
    if family == "dislike":
        return negative and predicate in ("preference", "like") or (not negative and predicate == "dislike")
    return not negative and predicate in FAMILIES.get(family, [family])


@pytest.mark.parametrize("name", ["facts_heldout.jsonl", "facts_probe.jsonl", "facts_probe2.jsonl", "facts_probe3.jsonl",
                                  "facts_probe4.jsonl", "facts_probe5.jsonl", "facts_turns.jsonl"])
def test_our_own_statements_meet_the_targets_in_both_languages(name):
    expected = found = produced = negatives = with_fact = 0
    by_language = {"en": [0, 0], "zh": [0, 0]}
    for statement in statements(name):
        said = claims(statement["text"])
        produced += len(said)
        language = "zh" if rules._CJK.search(statement["text"]) else "en"
        if not statement["expect"]:
            negatives += 1
            with_fact += bool(said)
        for family, token in statement["expect"]:
            expected += 1
            by_language[language][1] += 1
            hit = next((f for f in said if matched(family, token, f)), None)
            if hit:
                said.remove(hit)
                found += 1
                by_language[language][0] += 1
    assert found / expected >= 0.9 and found / produced >= 0.9 and with_fact / negatives <= 0.05
    assert all(hits / total >= 0.85 for hits, total in by_language.values())


@pytest.mark.parametrize("text", [
    "My colleague Dana is allergic to shellfish.", "我同事对芒果过敏。", "他喜欢打篮球。", "她说她不吃辣。",
    "Do you know where Oslo is?", "你知道杭州在哪吗？", "What would happen if I moved to Peru?",
    "如果我住在北京会怎么样？", "假如我是老板，我会给大家加薪。", "Write a poem about my dog.", "帮我写一封给房东的邮件。",
    "Imagine I lived in Tokyo.", "I went to Rome last summer.", "我上周去了成都旅游。", "I'd like to see the deploy logs.",
    "I want to check the schema.", "Translate 'I love hiking in the mountains' into French.", "I like that idea.",
    "My sister's husband works at Google.", "The hero of the novel lives in Dublin.", "小说里的主角住在巴黎。",
    "我朋友叫小李。", "Lesson learned: always pin the base image.", "Can you book a table for two at 7?",
    "他叫王刚，是我的同学。", "我女儿叫朵朵，今年五岁。",
    "We will deploy on Fridays only.", "I used to run every morning.", "I could swim every day if I had time.",
    "小张住在广州，在阿里巴巴工作。", "小王对芒果过敏。", "王总住在上海浦东。", "李老师在清华大学教书。",
    "Should I call my wife Anna?", "My friend's sister Lucy is nice.", "I'm not a morning person.",
])
def test_other_people_questions_hypotheticals_requests_and_events_give_the_user_nothing_they_did_not_say(text):
    said = [c for c in claims(text) if c[0] not in ("child",)]
    assert said == [], said


def test_a_relative_named_by_the_user_belongs_to_the_user_but_their_own_facts_do_not():
    assert claims("My husband Raj is a pilot.") == [("spouse", "Raj", False)]
    assert claims("我女儿叫朵朵，今年五岁。") == [("child", "朵朵", False)]  # five is her age, not the user's



@pytest.mark.parametrize("text, expected", [
    ("My wife is Ana Lima.", [("spouse", "Ana Lima", False)]),
    ("Quick note: my husband is Tomás, he cooks.", [("spouse", "Tomás", False)]),
    ("My wife is Japanese.", []),
    ("My husband is a teacher.", []),
    ("We have one son, Oskar, he's nine.", [("child", "Oskar", False)]),
    ("I have a daughter, Emma Brandt, who is four.", [("child", "Emma Brandt", False)]),
    ("We have two kids, Noah and Mia Chen.", [("child", "Noah", False), ("child", "Mia Chen", False)]),
    ("We also have a fluffy grey cat called Mochi.", [("pet", "Mochi (cat)", False)]),
    ("I have an elderly three-legged dog named Pip.", [("pet", "Pip (dog)", False)]),
    ("I'm also learning Portuguese from our neighbour.", [("goal", "Portuguese", False)]),
    ("我不太能吃辣。", [("preference", "吃辣", True)]),
    ("我不能喝酒。", [("preference", "喝酒", True)]),
    ("公司的同事都叫我小王，你也叫我小王吧。", [("nickname", "小王", False)]),
    ("别再叫我老王了，新朋友都叫我阿杰。", [("nickname", "老王", True), ("nickname", "阿杰", False)]),
    ("I live with my partner Sam in Portland.", [("location", "Portland", False), ("partner", "Sam", False)]),
    ("We went hiking with my brother Tom last week.", [("sibling", "Tom", False)]),
    ("我昨天带我女儿朵朵去了公园。", [("child", "朵朵", False)]),
    ("我有两个孩子，大的叫乐乐，小的叫欢欢。", [("child", "乐乐", False), ("child", "欢欢", False)]),
    ("I'm allergic to dogs, unfortunately.", [("allergy", "dogs", False)]),
    ("我喜欢爬山和游泳。", [("preference", "爬山", False), ("preference", "游泳", False)]),
    ("I work as a product designer at Figma and live in Oslo.",
     [("job", "product designer", False), ("employer", "Figma", False), ("location", "Oslo", False)]),
    ("Please answer in English even if I write in Chinese.", [("language", "English", False)]),
    ("I'd be vegan if I could.", []),
    # named in the next sentence
    ("We have a son. His name is Felix.", [("child", "Felix", False)]),
    ("我有个女儿。她叫朵朵。", [("child", "朵朵", False)]),
    ("I've got a dog. It's called Rex.", [("pet", "Rex (dog)", False)]),
    ("I met a girl yesterday. Her name is Ana.", []), ("My boss is strict. His name is Tom.", []),
])
def test_relatives_pets_dislikes_and_nicknames_said_in_passing(text, expected):
    assert claims(text) == expected

@pytest.mark.parametrize("text, subject, value", [
    ("Mia's birthday is on the 3rd of May.", "Mia", "the 3rd of May"),
    ("Tom Hardy's birthday is September 15, don't forget.", "Tom Hardy", "September 15"),
    ("朵朵的生日是六月三号，今年想给她办个派对。", "朵朵", "六月三号"),
    ("王磊的生日在3月8日。", "王磊", "3月8日"),
])
def test_a_named_someones_birthday_is_theirs_and_the_users_stays_unsaid(text, subject, value):
    assert [(c.subject, c.predicate, c.value) for c in extract(text)] == [(subject, "birthday", value)]


@pytest.mark.parametrize("text", ["My daughter's birthday is June 3.", "我女儿的生日是六月三号。", "他的生日是五月。",
                                  "Her birthday is in May."])
def test_a_birthday_of_someone_unnamed_is_nobodys(text, space):
    # "my daughter's" points at her (@child), but while the space knows no daughter's name it is no one's fact
    assert all(c.subject.startswith("@") for c in extract(text))
    apply_claims(space, extract(text))
    assert not Fact.objects.filter(space=space).exists()


def test_values_are_the_thing_itself_not_the_sentence():
    assert claims("I'm allergic to peanuts, so no satay please.") == [("allergy", "peanuts", False)]
    assert claims("我住在北京已经五年了。") == [("location", "北京", False)]
    assert claims("I've got a beagle called Pepper.") == [("pet", "Pepper (beagle)", False)]
    assert claims("I'm allergic to cats, dust and pollen.") == [("allergy", v, False) for v in ("cats", "dust", "pollen")]
    assert claims("我对花生和芒果过敏。") == [("allergy", "花生", False), ("allergy", "芒果", False)]


def test_every_family_predicate_has_its_slot_kind():
    for single in ("name", "nickname", "location", "hometown", "job", "employer", "spouse", "partner", "language",
                   "birthday", "age"):
        assert single in SINGLE_VALUED
    for multi in ("education", "child", "parent", "sibling", "pet", "allergy", "diet", "health", "preference",
                  "skill", "habit", "goal", "owns", "trait"):
        assert multi in MULTI_VALUED


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="p1", name="P1")


def current(space, predicate):
    return sorted(current_facts(space).filter(predicate=predicate).values_list("value", flat=True))


def test_a_new_single_value_replaces_the_old_and_a_negation_only_kills_its_match(space):
    for text in ["I live in Leeds.", "我住在成都。", "I don't live in Leeds anymore."]:
        apply_claims(space, extract(text))
    assert current(space, "location") == ["成都"]  # 成都 replaced Leeds; the negation had nothing left to kill
    apply_claims(space, extract("I don't live in 成都 anymore."))  # no match for a Chinese place in English words
    assert current(space, "location") == ["成都"]
    apply_claims(space, extract("我已经不住在成都了。"))
    assert current(space, "location") == []
    assert Fact.objects.filter(predicate="location", negative=True, status="active").count() == 2


def test_multi_valued_families_keep_every_value(space):
    for text in ["I'm allergic to peanuts.", "我对花生过敏。", "I have a latex allergy.", "I'm allergic to peanuts."]:
        apply_claims(space, extract(text))
    assert current(space, "allergy") == ["latex", "peanuts", "花生"]
    apply_claims(space, extract("I'm not allergic to latex."))
    assert current(space, "allergy") == ["peanuts", "花生"]


def test_the_patterns_read_a_bounded_text_whatever_a_turn_pastes():
    # their work grows faster than a sentence: a pasted list of 9,000 characters took 11 s before the bounds
    # (timings are measured by hand, not asserted); what they see is bounded instead
    assert [len(s) for s in rules._sentences("I hate " + "a, " * 3000)] == [rules.SENTENCE_CHARS]
    assert claims("x. " * rules.TEXT_CHARS + "I live in Lisbon.") == []
    assert claims("I live in Lisbon. " + "x. " * rules.TEXT_CHARS) == [("location", "Lisbon", False)]
    assert rules._by_speaker("User: hi\nthere\nCaroline: I paint\nmore") == [("user", "hi\nthere"),
                                                                            ("Caroline", "I paint\nmore")]
