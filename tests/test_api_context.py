"""POST /api/v1/context: a budgeted block of facts, persona and cards, never full turn text."""

from memoryhub.spaces.workspaces import default_space
from memoryhub.memories.models import Entry, Fact, Persona


def context(api, query, **extra):
    r = api.post("context", {"session_id": "s1", "query": query, **extra})
    assert r.status_code == 200, r.content
    return r.json()


def test_empty_hub_gives_empty_context(api):
    assert context(api, "anything") == {"text": "", "chars": 0, "items": []}


def test_relevant_summaries_with_ids_but_no_full_text(api):
    long_tail = "SECRET-TAIL " * 40
    r = api.turn("How do we rotate the nginx logs on the gateway?", "Use logrotate daily. " + long_tail)
    entry_id = r.json()["entry"]["id"]
    data = context(api, "nginx logs rotation")
    assert f"id={entry_id}" in data["text"]
    assert "SECRET-TAIL" not in data["text"]
    assert data["chars"] == len(data["text"])
    assert any(i["id"] == entry_id and i["kind"] == "entry" for i in data["items"])


def test_a_long_message_with_a_pasted_file_is_answered_by_its_beginning_and_its_end(api):
    r = api.turn("The flamingo exporter writes its CSV into /srv/exports at midnight.", "Noted.")
    entry_id = r.json()["entry"]["id"]
    pasted = "\n".join(f"row {n},lorem,ipsum,dolor" for n in range(2000))  # about 50,000 characters
    for message in (f"{pasted}\nWhere does the flamingo exporter write its CSV?",
                    f"Where does the flamingo exporter write its CSV? Here is the file:\n{pasted}"):
        assert len(message) > 40_000
        assert f"id={entry_id}" in context(api, message)["text"]
    too_large = api.post("context", {"session_id": "s1", "query": "x" * (1 << 20)})
    assert too_large.status_code == 413 and too_large.json()["error"]["code"] == "too_large"


def test_budget_is_never_exceeded(api):
    for i in range(30):
        api.turn(f"Question {i} about the kubernetes cluster upgrade plan", f"Answer {i} about kubernetes")
    for budget in (0, 50, 200, 700, 2600):
        data = context(api, "kubernetes upgrade", max_chars=budget)
        assert data["chars"] <= budget and len(data["text"]) <= budget


def test_facts_and_persona_are_always_included(api):
    space = default_space()
    Fact.objects.create(space=space, predicate="nickname", value="王哥")
    Fact.objects.create(space=space, predicate="nickname", value="老王", status="invalidated")
    Fact.objects.create(space=space, predicate="nickname", value="小王", negative=True)
    Persona.objects.create(space=space, profile="Works on memoryhub; likes concise answers.")
    data = context(api, "unrelated words")
    assert "王哥" in data["text"] and "老王" not in data["text"] and "小王" not in data["text"]
    assert "concise answers" in data["text"]
    kinds = {i["kind"] for i in data["items"]}
    assert {"fact", "persona"} <= kinds


def test_context_does_not_leak_internals(api):
    api.turn("where is the config stored?", "in settings.py")
    data = context(api, "config stored")
    for leak in ("SELECT", "bm25", "sqlite", "score", "/tmp/"):
        assert leak not in data["text"]


def test_bad_budget_is_refused(api):
    r = api.post("context", {"session_id": "s", "query": "x", "max_chars": -1})
    assert r.status_code == 400 and r.json()["error"]["field"] == "max_chars"


def test_archived_and_test_entries_are_skipped_in_context(api):
    r = api.turn("the zeppelin hangar key is under the mat", "ok")
    Entry.objects.filter(pk=r.json()["entry"]["id"]).update(archived=True)
    assert "zeppelin" not in context(api, "zeppelin hangar")["text"]
