"""Facts: rule extraction (zh/en, near-misses) and slot-based conflict resolution on real SQLite."""

import pytest
from django.utils import timezone

from memoryhub.memories.facts import slots as facts
from memoryhub.memories.facts.slots import Claim, apply_claims, assert_fact, current_facts, extract, invalidate_fact
from memoryhub.memories.models import Entry, Fact
from memoryhub.spaces.models import MemorySpace


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="s1", name="S1")


def say(space, text, origin="local"):
    return apply_claims(space, extract(text), origin=origin)


def current(space, predicate, origin_scope=None):
    return sorted(f.value for f in current_facts(space, origin_scope).filter(predicate=predicate))


def triples(text):
    return [(c.predicate, c.value, c.negative) for c in extract(text)]


# --- the seed's example sequence, exactly -------------------------------------------

def test_seed_sequence_laowang_wangge(space):
    first = say(space, "以后叫我老王")
    assert [(f.subject, f.predicate, f.value) for f in first.asserted] == [("user", "nickname", "老王")]
    assert current(space, "nickname") == ["老王"]

    second = say(space, "叫我王哥")
    assert current(space, "nickname") == ["王哥"]
    assert [f.value for f in second.invalidated] == ["老王"]
    laowang = Fact.objects.get(value="老王", negative=False)
    assert laowang.status == "invalidated" and laowang.invalidated_by == second.asserted[0]

    third = say(space, "以后别叫我老王")
    assert current(space, "nickname") == ["王哥"]
    assert third.invalidated == []  # 老王 was already invalid; 王哥 untouched
    negative = Fact.objects.get(value="老王", negative=True)
    assert negative.status == "active" and negative not in current_facts(space)


def test_negative_invalidates_only_the_matching_value(space):
    say(space, "叫我王哥")
    changes = say(space, "以后别叫我王哥")
    assert [f.value for f in changes.invalidated] == ["王哥"]
    assert current(space, "nickname") == []
    say(space, "call me Bob")
    say(space, "don't call me Robert")
    assert current(space, "nickname") == ["Bob"]


def test_same_value_only_refreshes(space):
    first = say(space, "call me Bob").asserted[0]
    again = say(space, "Call me bob please")
    assert again.asserted == [] and [f.pk for f in again.refreshed] == [first.pk]
    first.refresh_from_db()
    assert first.refreshed_at > first.created_at
    assert Fact.objects.filter(predicate="nickname").count() == 1


def test_history_is_kept_never_deleted(space):
    for text in ["以后叫我老王", "叫我王哥", "叫我小王", "以后别叫我小王"]:
        say(space, text)
    assert Fact.objects.filter(predicate="nickname").count() == 4
    assert set(Fact.objects.filter(status="invalidated").values_list("value", flat=True)) == {"老王", "王哥", "小王"}


def test_multi_valued_coexist_and_dedupe(space):
    say(space, "我喜欢简洁的回答")
    say(space, "I prefer dark mode")
    say(space, "我喜欢简洁的回答")
    assert current(space, "preference") == ["dark mode", "简洁的回答"]
    assert Fact.objects.filter(predicate="preference").count() == 2


def test_dislike_is_negative_preference_and_kills_the_match(space):
    say(space, "I like emojis, but I like tables")
    changes = say(space, "I don't like emojis")
    assert [f.value for f in changes.invalidated] == ["emojis"]
    assert current(space, "preference") == ["tables"]
    assert Fact.objects.get(value="emojis", negative=True).status == "active"
    say(space, "我喜欢火锅，不喜欢香菜")
    assert "香菜" not in current(space, "preference")
    # changing one's mind back: the positive invalidates the negative
    back = say(space, "I like emojis")
    assert [(f.value, f.negative) for f in back.invalidated] == [("emojis", True)]
    assert "emojis" in current(space, "preference")


def test_single_valued_predicates_replace(space):
    say(space, "我是一名后端工程师")
    say(space, "I'm a data scientist")
    assert current(space, "job") == ["data scientist"]
    say(space, "请用中文回答")
    say(space, "please reply in English")
    assert current(space, "language") == ["English"]
    say(space, "模型换成 deepseek-chat")
    say(space, "my model is claude-3.5-sonnet")
    assert current(space, "model") == ["claude-3.5-sonnet"]


def test_slots_are_per_origin(space):
    say(space, "叫我王哥")
    say(space, "叫我群主", origin="qq")
    assert current(space, "nickname", "local") == ["王哥"]
    assert current(space, "nickname", "qq") == ["群主"]
    assert current(space, "nickname") == ["王哥", "群主"]


def test_current_facts_accepts_many_spaces(space):
    other = MemorySpace.objects.create(slug="s2", name="S2")
    say(space, "call me Bob")
    say(other, "I prefer tabs")
    assert current_facts([space, other]).count() == 2
    assert current_facts(MemorySpace.objects.all()).count() == 2


# --- extraction ----------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("以后叫我老王", [("nickname", "老王", False)]),
    ("好的，以后就叫我老王吧", [("nickname", "老王", False)]),
    ("以后别叫我老王了", [("nickname", "老王", True)]),
    ("call me Bob", [("nickname", "Bob", False)]),
    ("You can call me Bob from now on.", [("nickname", "Bob", False)]),
    ("Please don't call me Bob.", [("nickname", "Bob", True)]),
    ("my name is Bob Smith", [("name", "Bob Smith", False)]),
    ("我叫张三", [("name", "张三", False)]),
    ("我叫你小明", [("calledBy", "小明", False)]),
    ("I'll call you Jarvis", [("calledBy", "Jarvis", False)]),
    ("我是一名后端工程师", [("job", "后端工程师", False)]),
    ("I'm a backend developer.", [("job", "backend developer", False)]),
    ("以后都用中文和我交流", [("language", "中文", False)]),
    ("Please always reply in English", [("language", "English", False)]),
    ("模型换成 deepseek-chat", [("model", "deepseek-chat", False)]),
    ("我喜欢简洁的回答，不喜欢太长的解释", [("preference", "简洁的回答", False), ("preference", "太长的解释", True)]),
    ("I like dark mode, but I hate light themes", [("preference", "dark mode", False),
                                                   ("preference", "light themes", True)]),
    ("I prefer to use tabs", [("preference", "use tabs", False)]),
    ("我擅长 Python 和 Go", [("skill", "Python 和 Go", False)]),
    ("I'm good at Rust", [("skill", "Rust", False)]),
    ("我习惯先写测试", [("habit", "先写测试", False)]),
    ("I usually work late", [("habit", "work late", False)]),
    ("我的项目在 /home/wang/proj。", [("path", "/home/wang/proj", False)]),
    ("项目放在 ~/code/memoryhub/ 下面", [("path", "~/code/memoryhub", False)]),
])
def test_extract_patterns(text, expected):
    assert triples(text) == expected


@pytest.mark.parametrize("text", [
    "I prefer not to say",          # a refusal, not a preference
    "call me when you're done",     # a request to phone, not a name
    "call me back later",
    "我喜欢的那个项目在哪",             # a question about a project, not a preference
    "他叫我去开会",                    # someone else's request
    "叫我去开会",
    "I like it",
    "I like your idea",
    "I would like to see the logs",
    "what should I call you?",
    "my model is good",
    "selftest 75/75 passed",
    "修复了登录 bug，自检 75/75 通过",
    "修改 /etc/hosts 里的配置",           # a path without a "mine" cue
    "我的比例是 75/75",                  # a ratio is not a path
    "I always dreamed of visiting there",  # a story told in the past, and "there" points elsewhere
    "I usually went hiking with them",
    "I love holding them",                # "them": about something said before, not a fact
    "I really enjoy working with you",
    "我喜欢你推荐的那本书",
    "",
])
def test_near_misses_yield_nothing(text):
    assert extract(text) == []


def test_claims_belong_to_the_speaker_a_line_names():
    said = extract("Caroline: I love painting sunsets.\nI always read before bed\nUser: call me Bob\n"
                   "Assistant: I prefer short answers\nNote: I prefer tabs")
    assert [(c.subject, c.predicate, c.value) for c in said] == [
        ("Caroline", "preference", "painting sunsets"), ("Caroline", "habit", "read before bed"),
        ("user", "nickname", "Bob"), ("Assistant", "preference", "short answers"),
        ("Assistant", "preference", "tabs"),  # a heading ("Note:") names no one: the speaker goes on
    ]
    assert [(c.subject, c.value) for c in extract("张三：我喜欢火锅")] == [("张三", "火锅")]


def test_facts_of_other_speakers_stay_out_of_the_frame(space):
    from memoryhub.memories.growth.persona import project_frame

    say(space, "Caroline: I love painting sunsets.\nUser: I prefer dark mode")
    assert current(space, "preference") == ["dark mode", "painting sunsets"]
    assert project_frame(space) == "Prefers: dark mode"


@pytest.mark.parametrize("path, ok", [
    ("/a/b", True), ("/a/b/c", True), ("~/code", True), ("./src/app.py", True), ("/tmp", True),
    ("/", False), ("/s", False), ("75/75", False), ("/2024/10", False), ("/a//b", False), ("~/", False),
    ("/a/b c", False), ("https://x.com/a", False), ("/...", False),
])
def test_is_real_path(path, ok):
    assert facts.is_real_path(path) is ok


# --- manual assert / invalidate (memory_facts tool, dashboard) -----------------------

def test_manual_assert_and_invalidate(space):
    entry = Entry.objects.create(space=space, body="x", content_hash="h")
    changes = assert_fact(space, "user", "nickname", "老王", source_entry=entry)
    fact = changes.asserted[0]
    assert (fact.method, fact.source_entry) == ("manual", entry)
    assert facts.fact_to_dict(fact) == {"id": str(fact.pk), "subject": "user", "predicate": "nickname",
                                        "value": "老王", "negative": False, "origin": "local", "status": "active",
                                        "said_at": timezone.localtime(entry.at).isoformat(), "source": str(entry.pk)}
    assert invalidate_fact(space, fact_id=fact.pk) == [fact]
    fact.refresh_from_db()
    assert fact.status == "invalidated" and fact.invalidated_at is not None
    assert invalidate_fact(space, fact_id=fact.pk) == []
    assert invalidate_fact(space, fact_id="nope") == []


def test_invalidate_by_slot_and_value(space):
    say(space, "I like tea, but I like coffee")
    assert [f.value for f in invalidate_fact(space, predicate="preference", value="TEA")] == ["tea"]
    assert current(space, "preference") == ["coffee"]
    assert [f.value for f in invalidate_fact(space, subject="user", predicate="preference")] == ["coffee"]
    assert invalidate_fact(space) == []


def test_assert_rejects_junk(space):
    assert assert_fact(space, "user", "path", "75/75").asserted == []
    assert assert_fact(space, "user", "nickname", "   ").asserted == []
    assert assert_fact(space, "user", "bad predicate!", "x").asserted == []
    assert assert_fact(space, "user", "nickname", "x" * 500).asserted == []


def test_apply_claims_drops_unknown_predicates_and_keeps_method(space):
    claims = [Claim(predicate="nickname", value="老王"), Claim(predicate="favouriteColour", value="blue")]
    changes = apply_claims(space, claims, method="llm", origin="qq")
    assert [(f.predicate, f.method, f.origin) for f in changes.asserted] == [("nickname", "llm", "qq")]
