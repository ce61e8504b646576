"""Each ranking signal on a small conversation of its own: what it finds, and that switching it off loses it."""

from datetime import UTC, datetime, timedelta

import pytest

from memoryhub.memories.growth import enrich
from memoryhub.memories.models import Category, Kind
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.search import ranking
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db

FILLER = [
    "Ana: The weather was grey all week.", "Ben: My sister visited, we cooked pasta.",
    "Ana: I finally fixed the squeaky door.", "Ben: Work has been busy with the quarterly report.",
    "Ana: We watched a documentary about whales.", "Ben: The bakery near me closed down.",
]


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="chat", name="chat")


def talk(space, sessions: dict[str, tuple[datetime, list[str]]]) -> dict[str, int]:
    """Write each session's lines as turns a minute apart, enrich them as the worker would; text → entry id."""
    ids = {}
    for session_id, (start, lines) in sessions.items():
        for n, line in enumerate(lines):
            draft = gateway.Draft(kind=Kind.TURN, category=Category.CONTEXT, body=line, session_id=session_id,
                                  at=start + timedelta(minutes=n))
            ids[line] = gateway.write(space, draft).entry.pk
    enrich.run(space.pk)
    return ids


def ranked(space, query, limit=10):
    return [h.entry_id for h in ranking.rank([space.pk], query, limit=limit)]


def position(space, query, pk, limit=10):
    found = ranked(space, query, limit)
    return found.index(pk) if pk in found else None


DAY = datetime(2024, 3, 4, 18, 0, tzinfo=UTC)


def test_the_reply_to_a_matching_turn_reaches_the_top_ten_without_sharing_a_word(space):
    answer = "Ben: A little shop in Lisbon, run by an old man who tunes them himself."
    sessions = {f"s{n}": (DAY + timedelta(days=n), [FILLER[n % 6], FILLER[(n + 1) % 6]]) for n in range(8)}
    sessions["guitar"] = (DAY + timedelta(days=9), [
        "Ana: That guitar sounds wonderful, where did you buy the guitar?", answer, "Ana: Lovely."])
    for n in range(12):  # other talk of guitars, so the reply's session is not the only match
        sessions[f"g{n}"] = (DAY + timedelta(days=10 + n), [f"Ana: My cousin plays guitar in band number {n}."])
    ids = talk(space, sessions)
    assert position(space, "Where was that guitar bought?", ids[answer]) is not None
    with ranking.without("neighbours"):
        assert position(space, "Where was that guitar bought?", ids[answer]) is None


def test_a_date_question_finds_the_turn_said_that_day(space):
    days = [DAY + timedelta(days=30 * n) for n in range(6)]
    trails = ["lakeside", "ridge", "forest", "canyon", "meadow", "coast"]
    ids = talk(space, {f"s{n}": (day, [f"Ana: I went hiking again today, the {trails[n]} trail, lovely views."])
                       for n, day in enumerate(days)})
    asked = days[3]
    target = ids["Ana: I went hiking again today, the canyon trail, lovely views."]
    question = f"Where did Ana go hiking on {asked.day} {asked:%B}, {asked.year}?"
    assert ranked(space, question)[0] == target
    with ranking.without("dates"):
        assert ranked(space, question)[0] != target


def test_a_date_outside_the_best_word_matches_is_still_searched(space, monkeypatch):
    monkeypatch.setattr(ranking, "POOL", 3)  # a big space: the day's turn is not among the best word matches
    sessions = {f"s{n}": (DAY + timedelta(days=n), [f"Ana: Hiking hiking hiking trail {n} was great hiking."])
                for n in range(10)}
    sessions["late"] = (DAY + timedelta(days=200), ["Ana: Short hike with my dog."])
    ids = talk(space, sessions)
    late = DAY + timedelta(days=200)
    question = f"What did Ana say about the hike in {late:%B} {late.year}?"
    assert ranked(space, question)[0] == ids["Ana: Short hike with my dog."]


def test_a_question_naming_someone_prefers_what_they_said(space):
    hers = "Ana: I adopted a small grey cat from the city shelter."
    ids = talk(space, {"a": (DAY, ["Ben: Ana, Ana adopted a cat from the shelter!", hers])})
    assert ranked(space, "What cat did Ana adopt from the shelter?")[0] == ids[hers]
    with ranking.without("speaker"):
        assert ranked(space, "What cat did Ana adopt from the shelter?")[0] != ids[hers]


def test_a_when_question_prefers_the_turn_that_says_when(space):
    said_when = "Ana: We moved to the new flat last month."
    ids = talk(space, {"a": (DAY, ["Ana: The new flat, the new flat! I love to move around the new flat.", said_when])})
    assert ranked(space, "When did Ana move to the new flat?")[0] == ids[said_when]
    with ranking.without("when"):
        assert ranked(space, "When did Ana move to the new flat?")[0] != ids[said_when]


def test_a_quoted_phrase_prefers_the_turn_holding_it_in_order(space):
    phrase = "Ana: My favourite book is Night Circus by Erin."
    ids = talk(space, {"a": (DAY, ["Ana: The circus came to town one night, a book fair too, circus night night.",
                                   phrase])})
    assert ranked(space, 'Who wrote "night circus"?')[0] == ids[phrase]
    with ranking.without("phrases"):
        assert ranked(space, 'Who wrote "night circus"?')[0] != ids[phrase]


def test_a_session_that_covers_more_of_the_question_lifts_its_turns(space):
    sessions = {f"s{n}": (DAY + timedelta(days=n), [FILLER[n % 6], FILLER[(n + 3) % 6]]) for n in range(10)}
    sessions["trip"] = (DAY + timedelta(days=20), ["Ana: We rented a cabin in the hills.",
                                                   "Ana: It had an old wood stove.", "Ana: Snow fell all night."])
    sessions["other"] = (DAY + timedelta(days=23), ["Ben: My stove broke, the stove repair was expensive."])
    ids = talk(space, sessions)
    question = "What kind of stove did the cabin have?"
    theirs, other = ids["Ana: It had an old wood stove."], ids["Ben: My stove broke, the stove repair was expensive."]
    assert ranked(space, question).index(theirs) < ranked(space, question).index(other)
    with ranking.without("session"):
        assert ranked(space, question).index(other) < ranked(space, question).index(theirs)


def test_entries_under_an_entity_the_query_names_come_first(space):
    plain, named = "Ana: The deploy failed: the redis cache.", "Ana: The deploy failed: the Redis cache."
    sessions = {f"s{n}": (DAY, [FILLER[n % 6]]) for n in range(6)}
    ids = talk(space, {**sessions, "a": (DAY, [plain]), "b": (DAY, [named])})  # the same words but one entity

    def ratio():
        found = {h.entry_id: h.rank for h in ranking.rank([space.pk], "Redis deploy failure", limit=5)}
        return found[ids[named]] / found[ids[plain]]

    assert ratio() > 1.2
    with ranking.without("entities"):
        assert ratio() < 1.1


def test_ranking_refuses_an_unknown_signal_name():
    with pytest.raises(ValueError):
        with ranking.without("telepathy"):
            pass


def test_a_question_that_points_back_is_expanded_with_the_sessions_last_turns(space):
    older = "User: We decided to shard the Kafka consumers by customer region.\n\nAssistant: Noted."
    draft = gateway.Draft(kind=Kind.NOTE, body=older, at=DAY, session_id="old")
    decided = gateway.write(space, draft).entry
    for n in range(5):
        gateway.write(space, gateway.Draft(kind=Kind.NOTE, body=f"Lunch plan number {n}: noodles", at=DAY))
    gateway.write(space, gateway.Draft(kind=Kind.TURN, body="User: The Kafka consumers lag again in region eu.",
                                       session_id="now", at=DAY + timedelta(days=30)))
    query = "what happened with that thing last time?"
    referred = recall.expand_references(query, [space], "now", None)
    assert referred is not None and "kafka" in referred.words.lower()
    found = recall.search([space], query, limit=3, referred=referred)
    assert found[0].id == str(decided.pk)
    assert str(decided.pk) not in [c.id for c in recall.search([space], query, limit=3)]


def test_the_referents_never_outweigh_the_query(space):
    own = gateway.write(space, gateway.Draft(kind=Kind.NOTE, body="How to restart it: run make restart.")).entry
    gateway.write(space, gateway.Draft(kind=Kind.NOTE, body="The printer in room 4 jams on thick paper."))
    gateway.write(space, gateway.Draft(kind=Kind.TURN, body="User: the printer in room 4 again", session_id="now"))
    referred = recall.expand_references("restart it", [space], "now", None)
    assert referred is not None and "printer" in referred.words
    found = recall.search([space], "restart it", limit=5, referred=referred)
    assert found[0].id == str(own.pk)  # the query's own match leads; what the referents found follows


def test_a_query_that_names_enough_is_not_expanded(space):
    gateway.write(space, gateway.Draft(kind=Kind.TURN, body="User: the printer in room 4 again", session_id="now"))
    assert recall.expand_references("how do I rotate the nginx access logs daily", [space], "now", None) is None
    assert recall.expand_references("上次那个问题怎么解决的", [space], "now", None) is not None
