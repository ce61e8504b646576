"""Who the user is comes whole, or shortened by frame.py's declared rule: never cut inside a line, the lines an agent
must not get wrong (allergies, the reply language, the constraints) kept first, and what was left out named."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from memoryhub.dashboard.views.recall import preview_for
from memoryhub.memories.facts.slots import assert_fact
from memoryhub.memories.models import Persona
from memoryhub.memories.recall.frame import LINE_CHARS
from memoryhub.spaces.workspaces import default_space
from tests.test_mcp import mcp_session, payload
from tests.test_mcp_context import http

FACTS = [("name", "Dana Whitfield"), ("location", "Leeds"), ("hometown", "Cork"), ("job", "night-shift nurse"),
         ("employer", "St James's University Hospital"), ("spouse", "Tom"), ("child", "Maya, who is seven"),
         ("child", "Leo, who is four"), ("parent", "Ann"), ("sibling", "Kate"), ("pet", "a beagle called Biscuit"),
         ("allergy", "penicillin"), ("allergy", "peanuts"), ("diet", "vegetarian"), ("language", "English"),
         ("preference", "short answers")]
EVENTS = ["Never suggest recipes with nuts.", "Answer in English even when I write in French."]
FRAME = ["Name: Dana Whitfield", "Language: English", "Job: night-shift nurse",
         "Works at: St James's University Hospital", "Lives in: Leeds", "From: Cork", "Spouse: Tom",
         "Children: Maya, who is seven; Leo, who is four", "Parents: Ann", "Siblings: Kate",
         "Pets: a beagle called Biscuit", "Allergies: penicillin; peanuts", "Diet: vegetarian",
         "Prefers: short answers", "Keep in mind:", *(f"- {e}" for e in EVENTS)]
MUST = ["Language: English", "Allergies: penicillin; peanuts", "Diet: vegetarian", "Keep in mind:",
        *(f"- {e}" for e in EVENTS)]
QUERY = " ".join(["Tell me everything about the school trip my kids took to the museum and the zoo last spring,"
                  " the bus, the dinosaurs, the penguins, the packed lunches and what the teachers said."] * 6)
T0 = datetime(2023, 5, 8, tzinfo=UTC)


def full_frame(api):
    space = default_space()
    for predicate, value in FACTS:
        assert_fact(space, "user", predicate, value)
    Persona.objects.create(space=space, events=EVENTS)
    for i in range(20):  # hits enough to fill any budget
        r = api.turn(f"The school trip {i} went to the museum and the zoo; the bus left at eight, the kids loved the "
                     "dinosaurs and the penguins, and the teachers said the packed lunches were too big.", "Nice",
                     session_id=f"trip{i}", at=(T0 + timedelta(days=i)).isoformat())
        assert r.status_code == 201, r.content


def context(api, max_chars, query=QUERY):
    r = api.post("context", {"session_id": "new", "query": query, "max_chars": max_chars})
    assert r.status_code == 200, r.content
    data = r.json()
    assert data["chars"] == len(data["text"]) <= max_chars
    return data


def who(text: str) -> list[str]:
    return text.split("## Possibly relevant")[0].splitlines()[1:]


@pytest.mark.parametrize("max_chars", [2600, 1200])
def test_a_long_query_gets_the_whole_frame_in_its_order(api, max_chars):
    full_frame(api)
    data = context(api, max_chars)
    assert who(data["text"]) == FRAME  # nothing after Children lost, nothing cut, no note
    assert "school trip" in data["text"].split("## Possibly relevant")[1]


def test_a_frame_too_long_for_its_half_keeps_what_an_agent_must_not_get_wrong_and_names_the_rest(api):
    full_frame(api)
    text = context(api, 600)["text"]
    lines = who(text)
    assert "school trip" in text.split("## Possibly relevant")[1]
    assert all(line in lines for line in MUST)
    shown, note = lines[:-1], lines[-1]
    assert all(line in FRAME for line in shown)  # whole lines of the frame, never one cut inside
    assert [line for line in FRAME if line in shown] == shown  # in the frame's order
    left = [line for line in FRAME if line not in shown]
    said = accounted(note)
    assert len(said) == len(left) and set(said) - {"?", "-"} <= {line.split(":")[0] for line in left}


def accounted(note: str) -> list[str]:
    """What a note says was left out: the labels it names, `?` for each it counts, `-` for each constraint."""
    found = re.fullmatch(r"\(left out for the budget: (.*); ask memory_\w+( and memory_\w+)?\)", note)
    if found is None:
        count = re.fullmatch(r"\((\d+) lines? left out for the budget; ask memory_\w+( and memory_\w+)?\)", note)
        assert count, note
        return ["?"] * int(count.group(1))
    said: list[str] = []
    for part in found.group(1).split(", "):
        counted = re.fullmatch(r"(\d+) (more facts?|to keep in mind)", part)
        said += [label for label in [part] if not counted] or ["?" if "fact" in part else "-"] * int(counted.group(1))
    return sorted(said)


def test_at_every_budget_each_line_left_out_is_said_and_a_must_line_goes_before_any_other(api):
    full_frame(api)
    for budget in range(0, 2700, 53):
        lines = who(context(api, budget)["text"])
        if not lines:
            continue
        left = [line for line in FRAME if line not in lines and line != "Keep in mind:"]
        if not left:
            assert lines == FRAME
            continue
        said = accounted(lines[-1])
        assert len(said) == len(left) and set(said) - {"?", "-"} <= {line.split(":")[0] for line in left}, lines
        if any(line in FRAME and line not in MUST for line in lines):  # no other line before those of MUST
            assert all(line in lines for line in MUST), (budget, lines)


def test_a_line_too_long_for_a_short_frame_is_capped_with_whole_values(api):
    space = default_space()
    assert_fact(space, "user", "language", "English")
    for i in range(8):
        assert_fact(space, "user", "skill", f"restoring a {1950 + i}s analogue synthesizer from spare parts")
    assert_fact(space, "user", "allergy", "latex gloves, which matter at the clinic and on every ward " * 3 + "and the theatre too")
    data = context(api, 500, "which synthesizer should I restore next?")
    lines = who(data["text"])
    assert "Language: English" in lines
    skills = next(line for line in lines if line.startswith("Skills: "))
    assert len(skills) <= LINE_CHARS and re.search(r"\(\+\d+ more\)$", skills)
    values = skills.removeprefix("Skills: ").rsplit(" (+", 1)[0].split("; ")
    assert all(re.fullmatch(r"restoring a 19\d\ds analogue synthesizer from spare parts", v) for v in values)
    allergy = next(line for line in lines if line.startswith("Allergies: "))
    assert len(allergy) <= LINE_CHARS and allergy.endswith("…") and "latex gloves" in allergy
    shown = {i["id"] for i in data["items"] if i["kind"] == "fact"}
    assert len(shown) == 1 + 1 + skills.count(";") + 1  # the items are the values shown, no more


def test_a_query_without_hits_gets_the_frame_beyond_its_half(api):
    full_frame(api)
    budget = len("\n".join(["## Who the user is", *FRAME])) + 20
    assert who(context(api, budget, "zzzz qqqq")["text"]) == FRAME


def test_the_recall_preview_shows_the_same_frame(api, client, staff):
    full_frame(api)
    for budget in (2600, 600):
        expected = api.post("context", {"session_id": f"fresh-{budget}", "query": QUERY, "max_chars": budget,
                                        "space": "default"}).json()
        ctx = preview_for(default_space(), QUERY, budget)
        assert ctx.text == expected["text"]
        if budget == 600:  # the left-out lines are in the preview's table, each why
            assert {text for text, why in ctx.left_out if why["code"] == "who_share"} == {
                line for line in FRAME if line not in who(ctx.text) and not line.startswith("Keep in mind")}


def test_mcp_memory_context_gives_the_same_frame(hub):
    token = hub.token("--origin", "framecheck", name="frame-both-ways")
    for predicate, value in FACTS:
        r = http(hub, token, "tools/memory_facts", {"session_id": "seed", "arguments": {
            "action": "assert", "subject": "user", "predicate": predicate, "value": value}})
        assert r.status_code == 200, r.text
    body = {"session_id": "frame-session", "query": QUERY, "max_chars": 600, "notebooks": False}
    by_http = http(hub, token, "context", body).json()

    async def work(session):
        return payload(await session.call_tool("memory_context", body))

    assert mcp_session(hub, token)(work) == by_http
    lines = who(by_http["text"])
    assert "Allergies: penicillin; peanuts" in lines and "Language: English" in lines
