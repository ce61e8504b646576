"""What an agent reads about facts is true: polarity, origin, when and where said; any predicate reaches the
block when it bears on the query; one user has one identity across spaces."""

from datetime import UTC, datetime

from memoryhub.memories.models import Entry


def result(response):
    assert response.status_code in (200, 201), response.content
    return response.json().get("result", response.json())


def listed(api, **extra):
    return result(api.tool("memory_facts", action="list", **extra))["facts"]


def space(api, slug):
    assert api.post("spaces", {"slug": slug, "name": slug}).status_code == 201
    return slug


def test_a_fact_says_when_and_in_which_turn_it_was_said_not_when_it_was_stored(api):
    said = datetime(2024, 3, 2, 9, 30, tzinfo=UTC)
    answer = api.turn("I'm allergic to peanuts.", "Noted.", at=said.isoformat()).json()
    entry = Entry.objects.get(pk=answer["entry"]["id"])
    [asserted] = answer["facts"]["asserted"]
    assert asserted == {"id": asserted["id"], "subject": "user", "predicate": "allergy", "value": "peanuts",
                        "negative": False, "origin": "local", "status": "active",
                        "said_at": "2024-03-02T09:30:00+00:00", "source": str(entry.pk)}
    assert listed(api) == [asserted]


def test_a_negation_is_listed_as_one_and_never_shown_as_an_active_value(api):
    api.turn("I don't drink coffee.", "OK.")
    [fact] = listed(api)
    assert (fact["predicate"], fact["value"], fact["negative"], fact["status"]) == ("preference", "coffee", True,
                                                                                   "active")
    block = api.post("context", {"session_id": "c", "query": "coffee"}).json()["text"]
    assert "Dislikes: coffee" in block and "Prefers: coffee" not in block


def test_a_fact_asserted_by_hand_with_any_predicate_reaches_the_block_when_it_bears_on_the_query(api):
    result(api.tool("memory_facts", action="assert", predicate="allergy", value="peanuts"))
    result(api.tool("memory_facts", action="assert", predicate="favouriteTeam", value="Ajax"))
    about_peanuts = api.post("context", {"session_id": "c", "query": "are there peanuts in satay?"}).json()
    assert "Allergies: peanuts" in about_peanuts["text"]
    assert any(item["kind"] == "fact" for item in about_peanuts["items"])
    about_football = api.post("context", {"session_id": "c", "query": "who won Ajax game"}).json()["text"]
    assert "favouriteTeam: Ajax" in about_football


def test_one_user_has_one_name_and_one_reply_language_across_spaces(api):
    work, home = space(api, "work"), space(api, "home")
    api.turn("My name is Liv.", "Hi Liv.", space=home, at="2024-02-01T10:00:00+00:00")
    api.turn("Please answer in English.", "Sure.", space=home, at="2024-02-01T10:01:00+00:00")
    # Written later, said earlier (an imported history): the block goes by when it was said.
    api.turn("My name is Olivia.", "Hi Olivia.", space=work, at="2024-01-01T10:00:00+00:00")
    api.turn("Please answer in German.", "Gut.", space=work, at="2024-01-01T10:01:00+00:00")
    block = api.post("context", {"session_id": "c", "query": "hello"}).json()["text"]
    names = [line for line in block.splitlines() if line.startswith("Name:")]
    languages = [line for line in block.splitlines() if line.startswith("Language:")]
    assert names == ["Name: Liv"] and languages == ["Language: English"]  # said last, in whichever space
    # Each space keeps its own slot (history stays where it was said); the block speaks of one person.
    assert {f["value"] for f in listed(api, space=work) if f["predicate"] == "name"} == {"Olivia"}
