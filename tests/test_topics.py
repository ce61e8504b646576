"""Topics: session + 2-hour grouping, subject-change splitting, titles, kinds and the one-line card."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memoryhub.memories.growth import topics
from memoryhub.memories.recall import block
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Entry, Topic
from memoryhub.spaces.models import MemorySpace

T0 = datetime(2026, 10, 22, 10, 25, tzinfo=UTC)


@pytest.fixture
def space(db, settings):
    settings.TIME_ZONE = "UTC"
    return MemorySpace.objects.create(slug="s1", name="S1")


def turn(space, body, minutes=0, session="sess-1", category="general", title="", **extra):
    entry = Entry.objects.create(space=space, kind="turn", body=body, title=title, session_id=session,
                                 at=T0 + timedelta(minutes=minutes), category=category, content_hash="h", **extra)
    topics.assign(entry)
    entry.refresh_from_db()
    return entry


WALLPAPER = [
    "Wallpaper Engine 的动态壁纸在第二块显示器上不播放，怎么设置多显示器壁纸？",
    "在 Wallpaper Engine 设置里打开多显示器模式，给第二块显示器单独选壁纸。",
    "壁纸播放时占用显卡太高，Wallpaper Engine 能限制帧率吗？",
]
PENTEST = "帮我梳理一下对内网靶机做渗透测试的流程：端口扫描、漏洞利用、权限提升和横向移动"


def test_same_session_close_turns_form_one_topic(space):
    entries = [turn(space, body, minutes=i * 20) for i, body in enumerate(WALLPAPER)]
    assert len({e.topic_id for e in entries}) == 1
    topic = entries[0].topic
    topic.refresh_from_db()
    assert topic.turn_count == 3
    assert (topic.started_at, topic.ended_at) == (entries[0].at, entries[-1].at)


def test_subject_change_splits_a_time_group(space):
    """Seed weakness #3: penetration testing must not leak into the Wallpaper Engine topic."""
    wall = [turn(space, body, minutes=i * 10) for i, body in enumerate(WALLPAPER)]
    pen = turn(space, PENTEST, minutes=40)
    follow = turn(space, "好的，继续", minutes=45)
    assert pen.topic_id != wall[0].topic_id
    assert follow.topic_id == pen.topic_id  # a short follow-up stays with its neighbour


def test_shared_entity_keeps_the_topic_even_with_new_words(space):
    first = turn(space, "alerts.log 里全是第三方应用的告警，先看一下格式", title="third-party app testing")
    second = turn(space, "把 alerts.log 按应用名汇总，统计每个第三方 SDK 每小时的错误数量和峰值", minutes=30)
    assert first.topic_id == second.topic_id


def test_gap_over_two_hours_splits(space):
    a = turn(space, WALLPAPER[0])
    b = turn(space, WALLPAPER[1], minutes=121)
    c = turn(space, WALLPAPER[2], minutes=121 + 119)
    assert a.topic_id != b.topic_id and b.topic_id == c.topic_id


def test_never_merges_across_sessions(space):
    a = turn(space, WALLPAPER[0], session="one")
    b = turn(space, WALLPAPER[1], minutes=1, session="two")
    c = turn(space, WALLPAPER[2], minutes=2, session="")
    d = turn(space, WALLPAPER[2], minutes=3, session="")
    assert len({a.topic_id, b.topic_id, c.topic_id, d.topic_id}) == 4


def test_only_turns_get_topics(space):
    note = Entry.objects.create(space=space, kind="note", body="x", content_hash="h", session_id="sess-1")
    assert topics.assign(note) is None
    assert Topic.objects.count() == 0


def test_assign_is_idempotent(space):
    entry = turn(space, WALLPAPER[0])
    again = topics.assign(entry)
    assert again.pk == entry.topic_id and again.turn_count == 1 and Topic.objects.count() == 1


def test_kind_title_and_card(space):
    """Kind and title as the seed's card names them; the block's topic line, exactly."""
    bodies = [
        "alerts.log 里全是第三方应用的告警，先看一下格式",
        "alerts.log 的告警按应用分组后，发现测试包也在上报",
        "决定：测试包改走独立的 alerts.log 通道，不混进生产告警",
        "那 alerts.log 的轮转策略也一起改",
    ]
    cats = ["context", "pitfall", "decision", "progress"]
    minutes = [0, 50, 120, 164]
    entries = [turn(space, b, minutes=m, category=c, title="third-party app testing" if i == 0 else f"t{i}")
               for i, (b, m, c) in enumerate(zip(bodies, minutes, cats))]
    topic = Topic.objects.get()
    assert topic.kind == "decision"
    assert topic.title == "alerts.log / third-party app testing"
    assert (topic.started_at, topic.ended_at) == (T0, T0 + timedelta(minutes=164))
    assert block.topic_line(topic) == (
        f"- 22 October 2026 · 4 turns · decision — alerts.log / third-party app testing | id=t{entries[0].topic_id}")


def test_card_across_midnight_and_singular(space):
    entry = Entry.objects.create(space=space, kind="turn", body="Deploy notes for example.com", session_id="n",
                                 at=datetime(2026, 10, 22, 23, 50, tzinfo=UTC), content_hash="h")
    topic = topics.assign(entry)
    assert block.topic_line(topic) == f"- 22 October 2026 · 1 turn — example.com | id=t{topic.pk}"
    later = Entry.objects.create(space=space, kind="turn", body="example.com deploy done", session_id="n",
                                 at=datetime(2026, 10, 23, 0, 30, tzinfo=UTC), content_hash="h")
    topics.assign(later)
    topic.refresh_from_db()
    assert (topic.started_at, topic.ended_at) == (entry.at, later.at)
    assert block.topic_line(topic).startswith("- 22 October 2026 · 2 turns — ")


def test_title_falls_back_to_summary_then_keywords(space):
    entry = turn(space, "we talked about caching strategies and invalidation", summary="cache invalidation talk")
    assert entry.topic.title == "cache invalidation talk"
    bare = turn(space, "caching strategies invalidation caching", session="other")
    assert bare.topic.title == "caching strategies invalidation"


def test_title_is_the_topics_central_informative_phrase_not_its_greeting(space):
    lines = ["Hey James! How was the bowling with your brother?", "I went bowling with my brother on Sunday at the Lucky Strike lanes.",
             "Bowling again next Sunday with my brother?", "Thanks, cheers!"]
    entries = [turn(space, text, minutes=i, summary=text) for i, text in enumerate(lines)]
    assert len({e.topic_id for e in entries}) == 1
    assert Topic.objects.get().title == "James / I went bowling with my brother on Sunday at the Lucky…"


def test_deleted_entries_leave_the_count(space):
    a = turn(space, WALLPAPER[0])
    turn(space, WALLPAPER[1], minutes=5)
    gateway.forget(a)
    a.topic.refresh_from_db()
    assert a.topic.turn_count == 1
    b = turn(space, WALLPAPER[2], minutes=10)
    b.topic.refresh_from_db()
    assert b.topic.turn_count == 2 and b.topic == a.topic


def test_running_counts_match_a_recount(space):
    entries = [turn(space, text, minutes=5 * i) for i, text in enumerate(WALLPAPER)]
    topic = Topic.objects.get(pk=entries[-1].topic_id)
    running = (topic.title, topic.kind, topic.turn_count, topic.entities, topic.keywords)
    topic.signal = {}
    recounted = topics.refresh(topic)
    assert running == (recounted.title, recounted.kind, recounted.turn_count, recounted.entities, recounted.keywords)


# --- the same conversation in English and Chinese -----------------------------------------------

SESSIONS = json.loads((Path(__file__).resolve().parent.parent / "bench" / "data" / "topic_sessions.json").read_text())


def written_session(space, lang):
    start = T0
    for i, (user, answer) in enumerate(SESSIONS[lang]):
        gateway.write(space, gateway.Draft(kind="turn", user=user, assistant=answer, session_id=f"plan-{lang}",
                                           at=start + timedelta(minutes=6 * i)))
    return list(Topic.objects.filter(space=space, session_id=f"plan-{lang}"))


def test_one_conversation_forms_the_same_topics_in_english_and_chinese(space):
    english, chinese = written_session(space, "en"), written_session(space, "zh")
    assert len(english) == len(chinese) == 1
    assert english[0].turn_count == chinese[0].turn_count == 8
    for topic in (english[0], chinese[0]):
        assert {"PostgreSQL", "MySQL"} <= set(topic.entities)
        assert not {"user", "assistant"} & set(topic.keywords)  # speaker labels are not what a topic is about
    # Chinese keywords are words, never the character pairs the index uses (我在, 在一, 一家).
    assert {"账单", "发票"} <= set(chinese[0].keywords)
    assert all(len(w) >= 2 and w not in ("我们", "一个", "这个", "的话") for w in chinese[0].keywords)


# One conversation that changes subject at every turn, said in English and in Chinese.
CHANGING = {
    "en": [("I'm allergic to mangoes, they give me a rash.", "Noted, no mangoes."),
           ("I'm training for the Nanjing marathon, I run four times a week.", "Great, do you want a plan?"),
           ("Please look at my shift schedule, I'm on night duty next Wednesday.", "Noted, night duty."),
           ("My son's birthday is next month, we want a dinosaur party.", "Kids love dinosaurs!")],
    "zh": [("我对芒果过敏，吃了会起疹子。", "记住了，不推荐芒果。"),
           ("我在准备南京马拉松，每周跑四次。", "加油！需要训练计划吗？"),
           ("帮我看看排班表，下周三我值夜班。", "好的，夜班已记下。"),
           ("我儿子下个月过生日，想办个恐龙主题派对。", "小朋友都喜欢恐龙！")],
}


def test_a_conversation_changing_subject_splits_alike_in_english_and_chinese(space):
    counts = {}
    for lang, turns in CHANGING.items():
        for i, (user, answer) in enumerate(turns):
            gateway.write(space, gateway.Draft(kind="turn", user=user, assistant=answer, session_id=f"mixed-{lang}",
                                               at=T0 + timedelta(minutes=3 * i)))
        counts[lang] = Topic.objects.filter(space=space, session_id=f"mixed-{lang}").count()
    # a Chinese turn keeps its nouns only, so it used to be too short to start a topic: all four made one
    assert counts == {"en": 4, "zh": 4}


def test_a_topic_title_is_headed_by_a_person_named_in_plain_words(space):
    first = turn(space, "User: Alice moved the billing service to PostgreSQL\n\nAssistant: Good.")
    second = turn(space, "User: Alice owns the billing on-call rota now\n\nAssistant: Noted.", minutes=3)
    assert first.topic_id == second.topic_id
    topic = Topic.objects.get(pk=first.topic_id)
    assert topic.title.startswith(("Alice / ", "PostgreSQL / ")) and "Alice" in topic.entities


def test_a_name_said_as_often_as_an_acronym_beside_it_heads_the_title(space):
    entry = turn(space, "User: Bluebird passed its load test at 900 requests per second\n\n"
                        "Assistant: Bluebird handled 900 RPS in the test.")
    topic = Topic.objects.get(pk=entry.topic_id)
    assert topic.title.startswith("Bluebird / "), topic.title
    assert topic.entities[:2] == ["Bluebird", "RPS"]
