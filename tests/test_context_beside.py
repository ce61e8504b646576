"""The turns just before and after a hit, shown whole beside it in the /context block when there is room."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from memoryhub.memories.growth import enrich
from memoryhub.memories.models import Category, Entry, Kind
from memoryhub.memories.recall import block
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.search import ranking
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db

DAY = datetime(2024, 3, 4, 18, 0, tzinfo=UTC)
ASKED = "Ana: Did you ever finish the birdhouse you were building?"
REPLY = "Ben: Yes, I painted it blue and hung it on the old oak by the fence."
BEFORE = "Ben: My weekend was quiet, mostly woodwork in the garage."


@pytest.fixture
def space():
    return MemorySpace.objects.create(slug="chat", name="chat")


def talk(space, lines: list[str], session: str = "s1", start: datetime = DAY) -> dict[str, int]:
    """One session's lines as turns a minute apart, enriched as the worker would; text → entry id."""
    ids = {}
    for n, line in enumerate(lines):
        draft = gateway.Draft(kind=Kind.TURN, category=Category.CONTEXT, body=line, session_id=session,
                              at=start + timedelta(minutes=n))
        ids[line] = gateway.write(space, draft).entry.pk
    enrich.run(space.pk)
    return ids


def injected(space, query: str, **extra):
    with ranking.without("neighbours"):  # search hands in the hit alone: what the block adds is its own
        return recall.inject([space], query, origin=None, **extra)


def test_the_reply_to_a_hit_is_shown_whole_beside_it_though_search_did_not_hand_it_in(space):
    ids = talk(space, [BEFORE, ASKED, REPLY, "Ana: Lovely, send me a photo."])
    with ranking.without("neighbours"):
        found = [h.entry_id for h in ranking.rank([space.pk], "Where is the birdhouse now?", limit=32)]
    assert ids[REPLY] not in found
    ctx, recalled = injected(space, "Where is the birdhouse now?")
    assert "Yes, I painted it blue and hung it on the old oak by the fence." in ctx.text
    assert str(ids[REPLY]) in {item["id"] for item in ctx.items}
    assert ctx.why[str(ids[REPLY])]["via"] == "session"
    assert str(ids[REPLY]) in {card.id for card in recalled}  # shown, so counted as recalled


def test_the_turns_beside_a_hit_join_its_card_in_the_order_said(space):
    ids = talk(space, [BEFORE, ASKED, REPLY])
    ctx, _ = injected(space, "Where is the birdhouse now?")
    line = next(line for line in ctx.text.splitlines() if "birdhouse" in line)
    assert line.index("woodwork") < line.index("birdhouse") < line.index("painted it blue")
    assert line.endswith(f"| id={ids[BEFORE]}, {ids[ASKED]}, {ids[REPLY]}")


@pytest.mark.parametrize("hidden", [{"deleted_at": timezone.now()}, {"is_test": True}, {"archived": True}])
def test_a_turn_beside_a_hit_that_search_would_not_admit_is_never_shown(space, hidden):
    ids = talk(space, [ASKED, REPLY])
    Entry.objects.filter(pk=ids[REPLY]).update(**hidden)
    ctx, _ = injected(space, "Where is the birdhouse now?")
    assert "painted it blue" not in ctx.text


def test_a_long_turn_beside_a_hit_is_left_out_rather_than_cut(space):
    long_reply = "Ben: " + " ".join(["It took weeks of sanding and painting in the garage."] * 9)
    assert len(long_reply) > block.CARD_CHARS
    talk(space, [ASKED, long_reply])
    ctx, _ = injected(space, "Where is the birdhouse now?")
    assert "sanding" not in ctx.text


def test_turns_beside_hits_only_take_the_room_the_hits_left(space):
    talk(space, [ASKED, REPLY])
    alone, _ = injected(space, "Where is the birdhouse now?", max_chars=1000)
    budget = len(alone.text) - len("Yes, I painted it blue and hung it on the old oak by the fence.") // 2
    tight, _ = injected(space, "Where is the birdhouse now?", max_chars=budget)
    assert "birdhouse" in tight.text and "painted it blue" not in tight.text
    assert len(tight.text) <= budget



def test_a_turn_beside_a_hit_that_the_reader_already_has_is_not_shown_again(space):
    talk(space, [ASKED, REPLY])
    ctx, _ = injected(space, "Where is the birdhouse now?", known={REPLY})
    assert "birdhouse" in ctx.text and "painted it blue" not in ctx.text
