"""The /context block's cards carry the evidence: the matching words, dated, within the budget, nothing wasted."""

import random
import re
from datetime import UTC, datetime, timedelta

from memoryhub.memories.facts.slots import assert_fact
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.memories.recall.frame import LINE_CHARS
from memoryhub.spaces.workspaces import default_space

T0 = datetime(2022, 3, 16, 18, 0, tzinfo=UTC)


def context(api, query, **extra):
    r = api.post("context", {"session_id": "new", "query": query, **extra})
    assert r.status_code == 200, r.content
    return r.json()


def chat(api, lines, session="s1", start=T0):
    """One conversation: each line a turn a minute apart, in one session (so in one topic when on one subject)."""
    ids = []
    for i, (user, answer) in enumerate(lines):
        r = api.turn(user, answer, session_id=session, at=(start + timedelta(minutes=i)).isoformat())
        assert r.status_code == 201, r.content
        ids.append(r.json()["entry"]["id"])
    return ids


VR_EVENING = [
    ("I'm working on something I've wanted to do since I was a kid: a VR game about my town.", "Sounds fun!"),
    ("The VR prototype runs at 90 fps now on the headset.", "Nice progress."),
    ("I tested the VR controls with my brother tonight.", "How did he like them?"),
    ("He liked the VR controls but got dizzy after a while.", "Motion sickness is common."),
    ("Before the VR session we went bowling at the Lucky Strike lanes, I scored 180.", "Great score!"),
    ("Then we went back home for more VR testing.", "Busy evening."),
    ("The VR menus still need work.", "Take it step by step."),
    ("I'll show the VR build at the meetup.", "Good luck."),
]


def test_a_matching_turn_inside_a_long_topic_is_shown_in_its_own_words(api):
    ids = chat(api, VR_EVENING)
    topic = Topic.objects.get()
    assert topic.turn_count == len(VR_EVENING)
    text = context(api, "Which recreational activity did James pursue, bowling?")["text"]
    assert "we went bowling at the Lucky Strike lanes, I scored 180" in text
    assert re.search(rf"\| id=(\d+, )*{ids[4]}\b", text) and "16 March 2022" in text  # its id, its absolute date
    topic_line = next(line for line in text.splitlines() if "| id=t" in line)
    assert "since I was a kid" not in topic_line  # not the topic's first turn in its place


def test_a_card_says_when_yesterday_was(api):
    chat(api, [("I went to the LGBTQ support group yesterday, it was powerful.", "Glad to hear it.")],
         start=datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    text = context(api, "When did I go to the support group?")["text"]
    assert "- 8 May 2023 · User: I went to the LGBTQ support group yesterday (7 May 2023), it was powerful." in text


def test_hits_in_one_topic_share_one_topic_line(api):
    ids = chat(api, VR_EVENING)
    data = context(api, "VR controls dizzy")
    lines = data["text"].splitlines()
    topic_lines = [line for line in lines if "| id=t" in line]
    assert len(topic_lines) == 1 and "8 turns" in topic_lines[0]
    below = lines[lines.index(topic_lines[0]) + 1:]
    shows = lambda line, pk: re.search(rf"\| id=(\d+, )*{pk}\b", line)  # noqa: E731
    assert any(shows(line, ids[2]) and line.startswith("  - ") for line in below)
    assert any(shows(line, ids[3]) and line.startswith("  - ") for line in below)
    assert sum(bool(shows(line, ids[3])) for line in lines) == 1  # never both a card and a topic's member
    kinds = [i["kind"] for i in data["items"]]
    assert kinds.count("topic") == 1 and str(ids[3]) in [i["id"] for i in data["items"]]


def test_a_greeting_never_takes_budget(api):
    chat(api, [("Hey James!", "Hi!")], session="a")
    chat(api, [("Cheers, James!", "Bye!")], session="b")
    chat(api, [("James fixed the printer driver on the office laptop.", "Good.")], session="c")
    text = context(api, "James")["text"]
    assert "printer driver" in text
    assert "Hey James" not in text and "Cheers, James" not in text


def test_repeated_words_are_shown_once(api):
    chat(api, [("The backup runs nightly at 02:00 to the NAS.", "ok")], session="a")
    Entry.objects.update(content_hash="x")  # a second write of the same words skipped the dedupe check
    chat(api, [("The backup runs nightly at 02:00 to the NAS.", "ok")], session="b",
         start=T0 + timedelta(days=1))
    assert Entry.objects.count() == 2
    assert context(api, "when does the backup run")["text"].count("runs nightly at 02:00") == 1


def test_a_long_entry_shows_its_best_matching_sentences(api):
    filler = " ".join(f"Step {i} of the checklist is routine and dull." for i in range(40))
    chat(api, [("Write down the database decision.",
                f"{filler} After the load tests we decided on PostgreSQL 16 for the ledger. {filler}")])
    text = context(api, "what did we decide about the database?")["text"]
    assert "we decided on PostgreSQL 16 for the ledger" in text
    assert "…" in text and len(text) <= 2600


def test_cards_are_never_cut_inside_a_word(api):
    words = ["antidisestablishment", "photosynthesis", "kubernetes", "observability", "serialization",
             "idempotency", "backpressure", "throughput", "rotation", "migration"]
    rng = random.Random(7)
    for i in range(12):
        body = " ".join(rng.choice(words) for _ in range(120))
        chat(api, [(f"Notes {i}: {body}", "ok")], session=f"s{i}")
    known = set(words) | {"Notes", "User:", "Assistant:", "ok", "…"} | {f"{i}:" for i in range(12)}
    for budget in (300, 700, 1500, 2600):
        text = context(api, "kubernetes observability rotation", max_chars=budget)["text"]
        for line in text.splitlines():
            if line.startswith("## "):
                continue
            said = re.sub(r"^\s*- (\d+ \w+ \d{4} · )?(\w+ · )?", "", line).rsplit(" | id=", 1)[0]
            assert all(w.rstrip("…") in known or w in known for w in said.split()), line


def test_chinese_cards_are_cut_on_characters(api):
    chat(api, [("帮我记一下数据库的事。", "好的。" + "我们先讨论了很多方案，比较了各种存储引擎的优缺点。" * 12
                + "最后决定用PostgreSQL16作为账本数据库。" + "后面还有很多部署细节需要确认。" * 12)])
    text = context(api, "数据库决定用什么")["text"]
    card = next(line for line in text.splitlines() if "决定用PostgreSQL16" in line)
    said = card.split(" · decision · ", 1)[1].rsplit(" | id=", 1)[0]
    body = Entry.objects.get().body
    for piece in re.split(r"…|User:|Assistant:", said):
        assert piece.strip() in body  # whole characters of the entry, nothing invented or broken
    assert "…" in said and "PostgreSQL16" in said


def test_the_block_never_exceeds_max_chars(api):
    space = default_space()
    rng = random.Random(3)
    vocab = "alpha beta gamma delta 数据库 记账 PostgreSQL migration rollout 部署 日志 rotation".split()
    for i in range(25):
        chat(api, [(" ".join(rng.choice(vocab) for _ in range(rng.randint(3, 120))), "ok")], session=f"s{i % 5}",
             start=T0 + timedelta(hours=3 * i))
    assert_fact(space, "user", "nickname", "老王")
    assert_fact(space, "user", "preference", "数据库 migration rollout with zero downtime")
    for budget in range(0, 2700, 97):
        data = context(api, "数据库 migration rotation", max_chars=budget)
        assert data["chars"] == len(data["text"]) <= budget


def test_facts_about_other_speakers_never_reach_the_block(api):
    api.tool("memory_note", text="Caroline: I always dreamed of visiting Paris. I love painting sunsets.")
    api.tool("memory_note", text="I always dreamed of visiting there")
    assert Fact.objects.filter(subject="Caroline", value="painting sunsets").exists()
    assert not Fact.objects.filter(subject="user").exists()
    text = context(api, "what does she love painting?")["text"]
    assert "## Who the user is" not in text and "Prefers" not in text and "Habits" not in text


def test_a_frame_too_long_for_its_room_caps_its_lines_with_the_facts_about_the_query_first(api):
    space = default_space()
    assert_fact(space, "user", "nickname", "Bob")
    unrelated = [f"tabs over spaces in every {lang} file of the monorepo" for lang in
                 ("Python", "Go", "Rust", "Java", "Kotlin", "Swift", "Ruby")]
    for value in unrelated:
        assert_fact(space, "user", "preference", value)
    assert_fact(space, "user", "preference", "dark roast coffee")
    chat(api, [("The espresso machine at the office is broken again.", "I'll file a ticket.")])
    text = context(api, "which coffee for the espresso machine?", max_chars=600)["text"]
    who = text.split("## Possibly relevant")[0]
    assert "Call the user: Bob" in who and "Prefers: dark roast coffee" in who
    assert "espresso machine at the office is broken" in text
    line = next(line for line in who.splitlines() if line.startswith("Prefers: "))
    assert line.startswith("Prefers: dark roast coffee; ") and line.endswith(" more)") and len(line) <= LINE_CHARS
    assert len(who) <= 600 // 2


def test_a_line_two_spaces_share_is_said_once(api):
    from memoryhub.spaces.models import MemorySpace

    other = MemorySpace.objects.create(slug="work", name="Work")
    for space in (default_space(), other):
        assert_fact(space, "user", "nickname", "王哥")
        assert_fact(space, "user", "preference", "green tea")
    text = context(api, "what tea do I like?")["text"]
    assert text.count("Call the user: 王哥") == 1 and text.count("Prefers: green tea") == 1


def test_who_the_user_is_takes_at_most_half_the_budget_before_the_cards_cutting_constraints_not_lines(api):
    from memoryhub.memories.models import Persona

    events = [f"Always answer question {i} in Chinese, with code comments in English." for i in range(6)]
    Persona.objects.create(space=default_space(), profile="Works on memoryhub.\nLikes concise answers.", events=events)
    chat(api, [("The nightly backup goes to the NAS at 02:00.", "ok")])
    for i in range(4):  # hits enough to take the room the frame leaves
        chat(api, [(f"The backup run {i} copied the photo library and the mail archive to the NAS without "
                    "errors; the backup log shows every folder and its size.", "ok")], session=f"b{i}")
    text = context(api, "when does the backup run?", max_chars=500)["text"]
    who, cards = text.split("## Possibly relevant")
    assert len(who) <= 250 and "Works on memoryhub." in who and "Likes concise answers." in who
    assert "Keep in mind:\n- " + events[0] in who and events[-1] not in who  # as many constraints as fit
    left = sum(event not in who for event in events)
    assert who.rstrip().endswith(f"(left out for the budget: {left} to keep in mind; ask memory_profile)")
    assert "backup" in cards


def test_recall_preview_shows_the_block_and_why_each_line_is_there(api, client, staff):
    ids = chat(api, VR_EVENING)
    chat(api, [("Hey James!", "Hi!")], session="greet")
    assert_fact(default_space(), "user", "nickname", "James")
    r = client.get("/spaces/default/recall/", {"q": "James bowling"})
    assert r.status_code == 200
    page = r.content.decode()
    assert "we went bowling at the Lucky Strike lanes" in page
    assert re.search(r"Search hit \d+, relevance [\d.]+; matches: bowling\.", page)
    assert "kept before other facts" in page  # the nickname's reason
    assert f"<code>{ids[4]}</code>" in page
    assert "says nothing on its own" in page.lower()  # the greeting, left out and why


def test_a_card_resolves_coming_days_and_weeks_against_its_own_date(api):
    chat(api, [("Next Friday I fly to Lisbon; last week I packed.", "Have a good trip."),
               ("上周我们去了长城，明天去西湖。", "好的。")], start=datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    text = context(api, "When do I fly to Lisbon?")["text"]
    assert "Next Friday (12 May 2023) I fly to Lisbon; last week (the week of 1 May 2023) I packed." in text
    text = context(api, "长城 西湖")["text"]
    assert "上周（2023年5月1日那一周）我们去了长城，明天（2023年5月9日）去西湖。" in text


def test_neighbouring_hits_of_one_session_are_one_card_in_the_order_said(api):
    ids = chat(api, [("Where should I store the backups?", "On the NAS in the closet."),
                     ("And how often should the backups run?", "Nightly at 02:00 is enough."),
                     ("Thanks.", "You're welcome.")], start=datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    Topic.objects.all().delete()  # one card by adjacency alone, not by a shared topic
    text = context(api, "backups NAS nightly")["text"]
    line = next(line for line in text.splitlines() if f"id={ids[0]}, {ids[1]}" in line)
    assert line.index("On the NAS") < line.index("Nightly at 02:00")
    assert line.count("User:") == 2  # each turn keeps its speakers
