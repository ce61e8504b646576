"""Persona frame and the LLM client: rules-only projection, rebuild with/without a model, the three gates."""

import json

import pytest

from memoryhub.core import llm
from memoryhub.memories.growth import persona
from memoryhub.memories.facts.slots import apply_claims, current_facts, extract
from memoryhub.memories.models import Entry, Fact, Persona
from memoryhub.spaces.models import MemorySpace
from tests.fakes_llm import FakeLLM, chat_answer


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="s1", name="S1")


def say(space, text, origin="local"):
    return apply_claims(space, extract(text), origin=origin)


def note(space, body, **extra):
    return Entry.objects.create(space=space, kind="note", body=body, content_hash="h", **extra)


def client_for(fake, **kw):
    return llm.LLMClient(fake.base_url, "fake-model", "sk-test", timeout=kw.pop("timeout", 2.0), backoff=0, **kw)


# --- llm.parse_json ----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"facts": [], "events": ["a"]}',
    '```json\n{"facts": [], "events": ["a"]}\n```',
    'Here you go:\n```\n{"facts": [], "events": ["a",],}\n```\nDone.',
    '<think>{"nope": 1}</think>{"facts": [], "events": ["a"],}',
    '  {"facts": [ ], "events": ["a"  ,  ] , }  ',
])
def test_parse_json_is_tolerant(text):
    assert llm.parse_json(text) == {"facts": [], "events": ["a"]}


def test_parse_json_keeps_commas_inside_strings():
    assert llm.parse_json('{"v": "a,}", "w": "q\\",]",}') == {"v": "a,}", "w": 'q",]'}
    assert llm.parse_json("[1, 2, ]") == [1, 2]


@pytest.mark.parametrize("text", ["", "no json here", "{ broken", "```json\n{]\n```"])
def test_parse_json_rejects_garbage(text):
    with pytest.raises(ValueError):
        llm.parse_json(text)


# --- llm.LLMClient against the fake server -----------------------------------------------

def test_complete_posts_openai_shape():
    with FakeLLM([chat_answer("hello")]) as fake:
        assert client_for(fake).complete([{"role": "user", "content": "hi"}]) == "hello"
    request = fake.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "fake-model" and request["body"]["messages"][0]["content"] == "hi"
    assert request["auth"] == "Bearer sk-test"


def test_retries_intermittent_5xx_then_succeeds():
    with FakeLLM([(500, {}), (503, {"error": "busy"}), chat_answer("ok")]) as fake:
        assert client_for(fake).complete([]) == "ok"
    assert len(fake.requests) == 3


def test_retries_timeouts():
    with FakeLLM([("sleep", 1.0), chat_answer("late but fine")]) as fake:
        assert client_for(fake, timeout=0.3).complete([]) == "late but fine"


def test_gives_up_after_five_attempts():
    with FakeLLM([(502, {})]) as fake, pytest.raises(llm.LLMError, match="502.*5 attempts"):
        client_for(fake).complete([])
    assert len(fake.requests) == 5


def test_no_retry_on_4xx():
    with FakeLLM([(401, {"error": "bad key"}), chat_answer("never")]) as fake, \
            pytest.raises(llm.LLMError, match="401"):
        client_for(fake).complete([])
    assert len(fake.requests) == 1


def test_connection_refused_is_an_llm_error():
    with FakeLLM([chat_answer("x")]) as fake:
        url = fake.base_url
    with pytest.raises(llm.LLMError, match="5 attempts"):
        llm.LLMClient(url, "m", backoff=0, timeout=0.5).complete([])


def test_unexpected_shape_is_an_llm_error():
    with FakeLLM([(200, {"choices": []})]) as fake, pytest.raises(llm.LLMError, match="shape"):
        client_for(fake).complete([])


def test_get_client_follows_settings(settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": ""}
    assert llm.get_client() is None
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m",
                          "LLM_TIMEOUT": 3}
    client = llm.get_client()
    assert (client.url, client.model, client.timeout) == ("http://127.0.0.1:9/v1/chat/completions", "m", 3.0)


# --- frame by rules ------------------------------------------------------------------------

def test_frame_by_rules_from_facts(space):
    for text in ["以后叫我老王", "叫我王哥", "以后别叫我老王", "我是一名后端工程师", "我喜欢简洁的回答",
                 "I prefer dark mode", "I don't like emojis", "我的项目在 /srv/app/memoryhub"]:
        say(space, text)
    frame = persona.project_frame(space)
    assert frame.splitlines() == [
        "Call the user: 王哥",
        "Job: 后端工程师",
        "Prefers: 简洁的回答; dark mode",
        "Dislikes: emojis",
        "Paths: /srv/app/memoryhub",
    ]
    assert "老王" not in frame  # a name not to be called is never shown; a dislike is shown as one


def test_frame_has_no_internal_details(space):
    say(space, "call me Bob")
    Persona.objects.create(space=space, events=["全程离线不联网"])
    frame = persona.project_frame(space)
    assert frame == "Call the user: Bob\nKeep in mind:\n- 全程离线不联网"
    fact = Fact.objects.get()
    assert str(fact.pk) not in frame.replace("Bob", "") and "score" not in frame


def test_frame_origin_scope_hides_local_from_qq(space):
    say(space, "叫我王哥")
    say(space, "叫我群主", origin="qq")
    Persona.objects.create(space=space, events=["local-only constraint"])
    assert persona.project_frame(space).splitlines()[0] == "Call the user: 王哥"  # local wins in the web view
    assert persona.project_frame(space, origin_scope="qq") == "Call the user: 群主"


def test_empty_space_frame_is_empty(space):
    assert persona.project_frame(space) == ""
    assert persona.rebuild(space, llm=None)["frame"] == ""


# --- note_new_entry -------------------------------------------------------------------------

def test_note_new_entry_triggers_every_n(space):
    hits = [persona.note_new_entry(space) for _ in range(25)]
    assert [i + 1 for i, hit in enumerate(hits) if hit] == [10, 20]
    space.settings = {"personaEvery": 3}
    persona.rebuild(space, llm=None)
    assert [persona.note_new_entry(space) for _ in range(3)] == [False, False, True]
    space.settings = {"personaEvery": 3, "autoPersona": False}
    assert [persona.note_new_entry(space) for _ in range(3)] == [False, False, False]


def test_note_new_entry_follows_the_global_defaults(space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SPACE_DEFAULTS": {**settings.MEMORYHUB["SPACE_DEFAULTS"],
                                                                   "personaEvery": 3}}
    assert [persona.note_new_entry(space) for _ in range(3)] == [False, False, True]
    settings.MEMORYHUB["SPACE_DEFAULTS"]["autoPersona"] = False
    assert [persona.note_new_entry(space) for _ in range(3)] == [False, False, False]
    space.settings = {"autoPersona": True}  # the space's own value wins over the global default
    assert [persona.note_new_entry(space) for _ in range(3)] == [False, False, True]


# --- rebuild ----------------------------------------------------------------------------------

LLM_ANSWER = {
    "facts": [
        {"predicate": "preference", "value": "中文回答"},
        {"predicate": "habit", "value": "深夜写代码"},
        {"predicate": "nickname", "value": "老王"},               # contradicts what the user said: dropped
        {"predicate": "path", "value": "75/75"},                   # not a real path: dropped by the slot pipeline
        {"predicate": "favouriteColour", "value": "blue"},         # unknown predicate
        {"predicate": "tag", "value": "Call the user: 王哥"},        # the frame flowing back
    ],
    "events": [
        "全程离线不联网",
        "要求全程离线不联网",                                        # same thing, other words
        "selftest 75/75 passed",
        "修复了登录 bug",
        "compressed 1034→80 lines",
        "项目根目录 /a/b",
        "项目根目录 /a/b/c",                                         # a different directory
    ],
}


def test_rebuild_with_llm_callable(space):
    say(space, "叫我王哥")
    note(space, "讨论了离线部署")
    seen = []

    def fake_llm(messages):
        seen.append(messages)
        return "```json\n" + json.dumps(LLM_ANSWER, ensure_ascii=False) + "\n```"

    result = persona.rebuild(space, llm=fake_llm)
    assert result["method"] == "llm" and result["error"] == ""
    assert "讨论了离线部署" in seen[0][1]["content"] and "nickname: 王哥" in seen[0][1]["content"]
    p = Persona.objects.get(space=space)
    assert p.events == ["全程离线不联网", "项目根目录 /a/b", "项目根目录 /a/b/c"]
    assert p.entries_since_rebuild == 0 and p.rebuilt_at is not None
    values = {f.predicate: f.value for f in current_facts(space)}
    assert values == {"nickname": "王哥", "preference": "中文回答", "habit": "深夜写代码"}
    assert Fact.objects.get(value="深夜写代码").method == "llm"
    assert p.frame.splitlines()[0] == "Call the user: 王哥"
    assert result["rejected"] >= 6 and result["events"] == 3


def test_rebuild_through_fake_server_with_retries(space, settings):
    answer = json.dumps({"facts": [{"predicate": "skill", "value": "Rust"}], "events": ["always work offline",]})
    with FakeLLM([(500, {}), (502, {}), chat_answer(answer + " ")]) as fake:
        result = persona.rebuild(space, llm=client_for(fake))
    assert result["method"] == "llm" and len(fake.requests) == 3
    assert "Skills: Rust" in result["frame"] and "- always work offline" in result["frame"]


def test_rebuild_uses_configured_client(space, settings):
    with FakeLLM([chat_answer('{"facts": [{"predicate": "role", "value": "SRE"}], "events": []}')]) as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": fake.base_url, "LLM_MODEL": "m"}
        result = persona.rebuild(space)
    assert result["method"] == "llm" and result["frame"] == "Role: SRE"


def test_rebuild_falls_back_to_rules_on_persistent_failure(space):
    say(space, "call me Bob")
    Persona.objects.create(space=space, events=["Call the user: Robert", "自检 75/75 通过", "work offline"])
    with FakeLLM([(503, {})]) as fake:
        result = persona.rebuild(space, llm=client_for(fake))
    assert len(fake.requests) == 5
    assert result["method"] == "rules" and "5 attempts" in result["error"]
    assert result["frame"] == "Call the user: Bob\nKeep in mind:\n- work offline"  # old pollution re-gated away


def test_rebuild_falls_back_on_unparseable_answer(space):
    say(space, "call me Bob")
    result = persona.rebuild(space, llm=lambda messages: "I cannot help with that.")
    assert result["method"] == "rules" and result["error"] and result["frame"] == "Call the user: Bob"
    result = persona.rebuild(space, llm=lambda messages: "[1, 2]")
    assert result["method"] == "rules" and "not an object" in result["error"]
    result = persona.rebuild(space, llm=lambda messages: '{"facts": {"a": 1}, "events": "offline"}')
    assert result["method"] == "llm" and result["frame"] == "Call the user: Bob"


def test_rebuild_without_llm_uses_rules(space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": ""}
    say(space, "I'm a backend developer")
    result = persona.rebuild(space)
    assert result == {"method": "rules", "asserted": 0, "invalidated": 0, "rejected": 0, "error": "",
                      "events": 0, "frame": "Job: backend developer"}
    assert Persona.objects.get(space=space).frame == "Job: backend developer"


def test_rebuild_keeps_frame_echo_entries_away_from_the_model(space):
    say(space, "叫我王哥")
    persona.rebuild(space, llm=None)
    frame = Persona.objects.get(space=space).frame
    note(space, "session summary: " + frame + "\nPrefers: 简洁")
    note(space, "我们决定用 SQLite")
    seen = []
    result = persona.rebuild(space, llm=lambda messages: seen.append(messages) or '{"facts": [], "events": []}')
    assert result["rejected"] == 1
    assert "我们决定用 SQLite" in seen[0][1]["content"] and "session summary" not in seen[0][1]["content"]


def test_llm_never_overturns_explicit_user_facts_but_fills_gaps(space):
    say(space, "I prefer tabs")
    answer = {"facts": [{"predicate": "preference", "value": "tabs", "negative": True},
                        {"predicate": "language", "value": "Chinese"}], "events": []}
    persona.rebuild(space, llm=lambda m: json.dumps(answer))
    assert sorted(f.value for f in current_facts(space)) == ["Chinese", "tabs"]


def test_events_are_capped_newest_kept(space):
    events = [f"constraint number {i} about topic{i}" for i in range(20)]
    persona.rebuild(space, llm=lambda m: json.dumps({"facts": [], "events": events}))
    assert Persona.objects.get(space=space).events == events[-persona.MAX_EVENTS:]


# --- the three gates, directly ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "selftest 75/75 passed", "自检 75/75 通过", "fixed the login bug", "修复了登录 bug",
    "compressed 1034→80 lines", "压缩 1034→80 行", "all tests passed", "今天把 README 重构了",
])
def test_gate1_rejects_churn(text):
    assert persona.is_churn(text) and not persona.keep_event(text)


@pytest.mark.parametrize("text", ["全程离线不联网", "Never push to main without review", "回答用中文",
                                  "数据只存本地 /srv/data"])
def test_gate1_keeps_long_term_constraints(text):
    assert persona.keep_event(text)


def test_gate2_rejects_frame_flowing_back():
    frame = "Call the user: 王哥\nRole: 后端工程师\nKeep in mind:\n- 全程离线不联网"
    assert persona.is_frame_echo("Call the user: 王哥", frame)
    assert persona.is_frame_echo("摘要：Role: 后端工程师；Keep in mind: 全程离线不联网", frame)
    assert persona.is_frame_echo("Role: 后端工程师 全程离线不联网", frame)
    assert not persona.is_frame_echo("全程离线不联网", frame)              # one shared line is just the user agreeing
    assert not persona.is_frame_echo("Role: admin in the YAML file", frame)


def test_gate3_one_thing_once_but_paths_stay_distinct():
    events = ["全程离线不联网", "要求全程离线不联网", "必须全程离线、不联网", "/a/b 是项目目录", "/a/b/c 是项目目录",
              "不要用 Docker", "要用 Docker", "Work fully offline", "always work fully offline"]
    assert persona.dedupe_events(events) == ["全程离线不联网", "/a/b 是项目目录", "/a/b/c 是项目目录", "不要用 Docker",
                                             "要用 Docker", "Work fully offline"]
