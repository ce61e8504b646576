"""Memory that grows itself, through the API: facts with slot conflicts, topics, persona, recall, injection."""

from datetime import timedelta

from django.utils import timezone

from memoryhub.jobs.models import Job
from memoryhub.memories.models import Entry, Persona


def result(response):
    assert response.status_code in (200, 201), response.content
    return response.json().get("result", response.json())


def facts(api, **extra):
    return result(api.tool("memory_facts", action="list", **extra))["facts"]


def test_the_seeds_nickname_sequence_holds_exactly(api):
    first = api.turn("以后叫我老王", "好的，老王").json()
    assert [(f["predicate"], f["value"]) for f in first["facts"]["asserted"]] == [("nickname", "老王")]
    second = api.turn("叫我王哥", "好的，王哥").json()
    assert [f["value"] for f in second["facts"]["asserted"]] == ["王哥"]
    assert [f["value"] for f in second["facts"]["invalidated"]] == ["老王"]
    api.turn("以后别叫我老王", "明白")
    current = [(f["predicate"], f["value"], f["negative"]) for f in facts(api)]
    assert sorted(current) == [("nickname", "王哥", False), ("nickname", "老王", True)]  # 老王: "don't call me"
    history = {(f["value"], f["status"]) for f in facts(api, all=True) if f["predicate"] == "nickname"}
    assert ("老王", "invalidated") in history and ("王哥", "active") in history
    text = api.post("context", {"session_id": "s2", "query": "hello"}).json()["text"]
    assert "王哥" in text and "老王" not in text


def test_english_name_preference_and_dislike(api):
    api.turn("Call me Bob. I prefer Python for scripts.", "Sure, Bob.")
    api.turn("I don't like emojis in answers.", "Noted.")
    current = {(f["predicate"], f["value"]) for f in facts(api)}
    assert ("nickname", "Bob") in current
    assert any(p == "preference" and "Python" in v for p, v in current)
    emojis = [f for f in facts(api) if "emoji" in f["value"]]
    assert [(f["predicate"], f["negative"], f["status"]) for f in emojis] == [("preference", True, "active")]
    text = api.post("context", {"session_id": "s2", "query": "emojis"}).json()["text"]
    assert "Dislikes: emojis in answers" in text and "Prefers: emojis" not in text  # never shown as a preference


def test_facts_assert_and_invalidate_by_hand_keep_history(api):
    asserted = result(api.tool("memory_facts", action="assert", predicate="role", value="backend engineer"))
    assert asserted["facts"][0]["status"] == "active"
    replaced = result(api.tool("memory_facts", action="assert", predicate="role", value="team lead"))
    assert {(f["value"], f["status"]) for f in replaced["facts"]} == {("team lead", "active"),
                                                                      ("backend engineer", "invalidated")}
    gone = result(api.tool("memory_facts", action="invalidate", predicate="role"))
    assert gone["facts"][0]["status"] == "invalidated"
    assert facts(api) == [] and len(facts(api, all=True)) == 2
    missing = api.tool("memory_facts", action="invalidate", predicate="role")
    assert missing.status_code == 404


def test_turns_group_into_a_topic_card_in_context(api):
    start = timezone.now() - timedelta(hours=3)
    for i, (user, answer) in enumerate([
        ("alerts.log fills up with third-party app testing noise", "Filter the test app's logger."),
        ("Should alerts.log rotate daily for the third-party app testing?", "Yes, rotate daily."),
        ("We decided: alerts.log keeps 7 days of third-party app testing logs", "Done."),
    ]):
        api.turn(user, answer, session_id="ops", at=(start + timedelta(minutes=20 * i)).isoformat())
    data = api.post("context", {"session_id": "new", "query": "alerts.log rotation"}).json()
    topic_lines = [line for line in data["text"].splitlines() if "3 turns" in line]
    assert len(topic_lines) == 1, data["text"]
    assert "alerts.log" in topic_lines[0] and " · decision — " in topic_lines[0] and "| id=t" in topic_lines[0]
    topic_id = topic_lines[0].rsplit("id=", 1)[1]
    expanded = result(api.tool("memory_recall", id=topic_id))
    assert len(expanded["expanded"]) == 3 and "rotate daily" in expanded["body"]
    assert any(i["kind"] == "topic" and i["id"] == topic_id for i in data["items"])


def test_persona_rebuilds_every_ten_entries_without_an_llm(api):
    api.turn("以后叫我老王", "好")
    for i in range(9):
        api.turn(f"Question number {i} about the gardening plan", "answer")
    job = Job.objects.get(kind="persona_rebuild")
    assert job.status == "succeeded" and job.result["method"] == "rules"
    frame = result(api.tool("memory_profile", action="get"))["frame"]
    assert "老王" in frame
    assert Persona.objects.get(space__slug="default").entries_since_rebuild == 0


def test_neighbouring_turn_is_remembered_along_the_way_below_its_hit(api):
    api.turn("What did Caroline research last week?", "She looked into something.", session_id="c")
    api.turn("Adoption agencies, mostly the ones near Boston.", "Interesting.", session_id="c")
    results = result(api.tool("memory_search", query="Caroline research"))["results"]
    summaries = [r["summary"] for r in results]
    assert "Caroline" in summaries[0] and any("Adoption agencies" in s for s in summaries[1:])
    assert results[0]["score"] > results[1]["score"]


def test_only_turns_bring_their_session_neighbours_along(api):
    api.turn("What did Caroline research last week?", "She looked into something.", session_id="c")
    saved = result(api.tool("memory_save", session_id="c", category="general", title="Agencies",
                            body="Adoption agencies near Boston."))
    results = result(api.tool("memory_search", query="Caroline research"))["results"]
    assert "Caroline" in results[0]["summary"]
    assert saved["id"] not in [r["id"] for r in results]  # the session's next entry, but no turn
    results = result(api.tool("memory_search", query="adoption agencies"))["results"]
    assert [r["id"] for r in results] == [saved["id"]]  # nor does a note bring the turns around it


def test_that_thing_last_time_uses_the_sessions_recent_turns(api):
    api.turn("The flaky test is test_upload_resume in the storage suite", "I'll look.", session_id="dbg")
    api.turn("Unrelated: what's for lunch?", "Noodles.", session_id="other")
    found = result(api.tool("memory_search", session_id="dbg", query="上次那个怎么样了"))["results"]
    assert found and "test_upload_resume" in found[0]["summary"]


def test_origin_isolation_covers_facts_and_extensions(api, api_factory):
    api.turn("叫我王哥", "好", session_id="web")
    api.turn("The launch codename is Bluebird", "ok", session_id="web")
    qq = api_factory(name="qq", origin="qq")
    qq.turn("Bluebird party is on Friday", "ok", session_id="group")
    text = qq.post("context", {"session_id": "group", "query": "Bluebird"}).json()["text"]
    assert "王哥" not in text and "codename" not in text and "party" in text
    assert all(r["origin"] == "qq" for r in result(qq.tool("memory_search", query="Bluebird"))["results"])
    assert result(qq.tool("memory_facts", action="list"))["facts"] == []


def test_test_tagged_entries_stay_out_of_automatic_recall(api):
    r = api.turn("the canary deploy uses region eu-west", "ok")
    Entry.objects.filter(pk=r.json()["entry"]["id"]).update(is_test=True)
    text = api.post("context", {"session_id": "x", "query": "canary deploy region"}).json()["text"]
    assert "canary" not in text
    assert not result(api.tool("memory_search", query="canary deploy"))["results"]  # nor does search by default,
    assert result(api.tool("memory_search", query="canary deploy", skipTags=[]))["results"]  # unless asked
