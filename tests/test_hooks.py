"""`memoryhub-hook` as the agents run it: their documented hook payloads and transcript files (tests/fixtures/hooks,
each citing the vendor's page) on stdin, a real served hub behind it, the command in a process of its own."""

from __future__ import annotations

import html
import json
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from memoryhub_client import MemoryHubClient, MemoryHubError
from memoryhub_client.hooks import config, install

from tests.livehub import ROOT, LiveHub

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
CLAUDE = json.loads((FIXTURES / "claude-code.json").read_text())
CODEX = json.loads((FIXTURES / "codex.json").read_text())
CURSOR = json.loads((FIXTURES / "cursor.json").read_text())
BOUND = 1.0  # the bounds these tests give the hooks (seconds waiting on the hub)
SLACK = 5.0  # the interpreter's start and a noisy machine; a hook without its bound would take 30 s


class Agent:
    """One agent's machine: its hook home, the hub it talks to, its transcript growing turn by turn."""

    def __init__(self, hub: LiveHub, home: Path, token: str, **env: str):
        self.home = home
        self.env = {"PYTHONPATH": str(ROOT / "clients" / "python"), "PATH": "/usr/bin:/bin", "HOME": str(home),
                    "MEMORYHUB_URL": hub.url, "MEMORYHUB_TOKEN": token, "MEMORYHUB_HOOK_HOME": str(home / "mh"),
                    "MEMORYHUB_HOOK_INJECT_TIMEOUT": str(BOUND), "MEMORYHUB_HOOK_ARCHIVE_TIMEOUT": str(BOUND),
                    "MEMORYHUB_HOOK_DRAIN_SECONDS": "20", **env}
        self.transcript = home / "transcript.jsonl"
        self.session = str(uuid.uuid4())
        # a project of its own: the hub keeps one entry per text and space, and the fixtures' texts repeat
        self.cwd = f"/home/wang/ledger-{self.session[:8]}"

    def payload(self, fixture: dict, event: str, **changes) -> dict:
        data = {**fixture["payloads"][event], **changes}
        for key in ("session_id", "conversation_id"):
            if key in data:
                data[key] = self.session
        if data.get("transcript_path") == "TRANSCRIPT":
            data["transcript_path"] = str(self.transcript)
        if "cwd" in data:
            data["cwd"] = self.cwd
        if "workspace_roots" in data:
            data["workspace_roots"] = [self.cwd]
        return data

    def write_turns(self, source: Path, fixture: dict, turns: int) -> None:
        """The transcript as it stands after `turns` turns."""
        lines = source.read_text(encoding="utf-8").splitlines()[:fixture["turn_ends"][turns - 1]]
        self.transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def start(self, agent: str, event: str, payload: dict) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "memoryhub_client.hooks", agent, event],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=self.env, cwd=self.home)
        process.stdin.write(payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False))
        process.stdin.close()
        return process

    def run(self, agent: str, event: str, payload: dict | str) -> tuple[str, float]:
        """The hook's stdout and how long the agent waited for it."""
        started = time.monotonic()
        out = finish(self.start(agent, event, payload))
        return out, time.monotonic() - started

    def spooled(self) -> str:
        return "".join(p.read_text() for p in (self.home / "mh" / "spool").glob("*.jsonl*") if p.suffix != ".lock")


def finish(process: subprocess.Popen) -> str:
    """A hook's stdout once it exits: always with 0, and never a word on stderr (agents may show it)."""
    out, err = process.stdout.read(), process.stderr.read()
    assert process.wait(timeout=60) == 0 and err == "", err
    return out


def hub_rows(hub: LiveHub, sql: str, *params) -> list[tuple]:
    """Rows of the served hub's own SQLite database, read-only (a `manage.py shell` costs seconds a call)."""
    path = Path(hub.env["MEMORYHUB_DATA_DIR"]) / "memoryhub.sqlite3"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=20)) as db:
        return db.execute(sql, params).fetchall()


def turns_of(hub: LiveHub, session_id: str) -> list[dict]:
    """The session's archived turns, oldest first: who said what (from the body the hub wrote), where, when."""
    rows = hub_rows(hub, "SELECT e.body, s.slug, e.at FROM memories_entry e JOIN spaces_memoryspace s "
                         "ON s.id = e.space_id WHERE e.kind = 'turn' AND e.session_id = ? AND e.deleted_at IS NULL "
                         "ORDER BY e.at, e.id", session_id)
    turns = []
    for body, space, at in rows:
        user, _, assistant = body.removeprefix("User: ").partition("\n\nAssistant: ")
        turns.append({"user": user, "assistant": assistant, "space": space, "at": at})
    return turns


def session_ended(hub: LiveHub, session_id: str) -> bool:
    return bool(hub_rows(hub, "SELECT 1 FROM api_agentsession WHERE session_id = ? AND ended_at IS NOT NULL",
                         session_id))


def wait_for(check, seconds: float = 40.0):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


@pytest.fixture(scope="module")
def token(live_hub):
    live_hub.ensure_running()
    return live_hub.token(name="hooks")


@pytest.fixture
def agent(hub, token, tmp_path):
    return Agent(hub, tmp_path, token)


# --- Claude Code -----------------------------------------------------------------------------------------------
def test_claude_code_prompt_gets_the_recall_block_as_additional_context(hub, agent):
    with MemoryHubClient(hub.url, agent.env["MEMORYHUB_TOKEN"]) as client:
        client.call_tool("memory", "setup", {"action": "add", "target": "memory",
                                             "content": "The ledger team ships its release train on alternate Thursdays."})
        written = client.turn("earlier", "The ledger's nightly backup goes to the NAS at 02:00", "Noted.",
                              workspace=agent.cwd)
        payload = agent.payload(CLAUDE, "UserPromptSubmit")
        expected = client.context(agent.session, payload["prompt"], workspace=agent.cwd, notebooks=False)["text"]
    out, _ = agent.run("claude-code", "UserPromptSubmit", payload)
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert answer["additionalContext"] == expected and f"id={written['entry']['id']}" in expected
    assert "alternate Thursdays" not in expected  # the notebooks came at SessionStart

    out, _ = agent.run("claude-code", "SessionStart", agent.payload(CLAUDE, "SessionStart"))
    start = json.loads(out)["hookSpecificOutput"]
    assert start["hookEventName"] == "SessionStart"
    assert start["additionalContext"].startswith("## MEMORY (your notes)") and "alternate Thursdays" in start["additionalContext"]


def test_claude_code_stop_archives_the_new_turn_once_even_when_the_hook_runs_twice(hub, agent):
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 1)
    stop = agent.payload(CLAUDE, "Stop")
    twice = [agent.start("claude-code", "Stop", stop) for _ in range(2)]  # at the same moment, as a double fire
    assert [finish(p) for p in twice] == ["", ""]
    assert agent.run("claude-code", "Stop", stop)[0] == ""  # and once more afterwards
    first = turns_of(hub, agent.session)
    assert [t["user"] for t in first] == ["Where does the nightly backup of the ledger database go?"]
    assert first[0]["assistant"].startswith("It is copied to the NAS") and first[0]["space"].startswith("ledger-")

    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 2)
    agent.run("claude-code", "Stop", stop)
    turns = turns_of(hub, agent.session)
    assert len(turns) == 2 and turns[1]["assistant"] == "Last night's copy is complete: 1,204,311 rows on both sides."
    assert not any("Sub-agent" in t["assistant"] or "command-name" in t["user"] for t in turns)


def test_claude_code_precompact_and_session_end_archive_the_rest_and_end_the_session(hub, agent):
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 3)
    auto = agent.payload(CLAUDE, "PreCompact", trigger="auto")
    agent.run("claude-code", "PreCompact", auto)
    assert len(turns_of(hub, agent.session)) == 2  # an automatic compaction leaves the running turn to Stop
    agent.run("claude-code", "SessionEnd", agent.payload(CLAUDE, "SessionEnd"))
    turns = turns_of(hub, agent.session)
    assert turns[-1]["user"] == "以后备份完成后提醒我一下，叫我老王就行"
    assert turns[-1]["assistant"] == "好的，老王。\n\n备份完成后我会提醒你。"
    assert turns[-1]["at"].startswith("2025-11-03 10:02:10")  # the transcript's time, not the hook's
    assert session_ended(hub, agent.session)


def test_claude_code_session_end_ends_the_sessions_vault_grants(hub, agent):
    vault = f"diary-{agent.session[:8]}"
    with MemoryHubClient(hub.url, agent.env["MEMORYHUB_TOKEN"]) as client:
        client.create_space(vault, "Diary", access="vault")
        client.call_tool("memory_save", agent.session, {"category": "progress", "title": "Ledger restore drill",
                                                        "body": "Restored the ledger from the NAS in 14 minutes.",
                                                        "space": vault})
        asked = client.call_tool("memory_request", agent.session, {"space": vault, "query": "restore"})
        Dashboard(hub).post(f"/vault/requests/{asked['request_id']}/approve", {"all": "1"}, form="/vault/requests/")
        read = client.call_tool("memory_read", agent.session, {"request_id": asked["request_id"]})
        assert [e["title"] for e in read["entries"]] == ["Ledger restore drill"]
        agent.run("claude-code", "SessionEnd", agent.payload(CLAUDE, "SessionEnd"))
        with pytest.raises(MemoryHubError) as refused:
            client.call_tool("memory_read", agent.session, {"request_id": asked["request_id"]})
    assert refused.value.status == 403 and session_ended(hub, agent.session)


def test_a_hub_that_is_down_costs_the_agent_at_most_the_bound_and_loses_nothing(hub, agent):
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 1)
    hub.stop()
    try:
        out, waited = agent.run("claude-code", "Stop", agent.payload(CLAUDE, "Stop"))
        assert out == "" and waited < BOUND + SLACK
        assert "Where does the nightly backup" in agent.spooled()
        out, waited = agent.run("claude-code", "UserPromptSubmit", agent.payload(CLAUDE, "UserPromptSubmit"))
        assert out == "" and waited < BOUND + SLACK
    finally:
        hub.start()
    # the background sender the Stop hook started delivers it once the hub is back
    assert wait_for(lambda: turns_of(hub, agent.session))
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 2)
    agent.run("claude-code", "Stop", agent.payload(CLAUDE, "Stop"))
    assert [t["user"][:20] for t in turns_of(hub, agent.session)] == ["Where does the night", "Have a sub-agent che"]


def tarpit() -> tuple[str, threading.Event]:
    """A "hub" that answers every request with headers and then one byte a second: no single read ever times out."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                while not stop.wait(1.0):
                    conn.sendall(b" ")
            except OSError:
                pass

    def accept() -> None:
        server.settimeout(0.5)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
        server.close()

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}", stop


def test_a_hub_that_hangs_costs_the_agent_at_most_the_bound(agent, hub):
    url, stop = tarpit()
    agent.env["MEMORYHUB_URL"] = url
    agent.env["MEMORYHUB_HOOK_DRAIN_SECONDS"] = "2"
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 1)
    try:
        for event in ("UserPromptSubmit", "Stop"):
            out, waited = agent.run("claude-code", event, agent.payload(CLAUDE, event))
            assert out == "" and waited < BOUND + SLACK, (event, waited)
        assert "Where does the nightly backup" in agent.spooled()
    finally:
        stop.set()
    assert "context for session" in (agent.home / "mh" / "hook.log").read_text()


def test_bad_input_prints_nothing_and_exits_zero(agent):
    for stdin in ("", "not json", "[1, 2]", json.dumps({"hook_event_name": "Stop"})):
        assert agent.run("claude-code", "Stop", stdin)[0] == ""
    assert agent.run("claude-code", "Notification", {"session_id": "x"})[0] == ""  # not an event memoryhub uses
    assert json.loads(agent.run("cursor", "beforeSubmitPrompt", "garbage")[0]) == {"continue": True}


def test_no_token_injects_nothing_and_keeps_the_turn(agent):
    agent.env["MEMORYHUB_TOKEN"] = ""
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 1)
    assert agent.run("claude-code", "UserPromptSubmit", agent.payload(CLAUDE, "UserPromptSubmit"))[0] == ""
    assert agent.run("claude-code", "Stop", agent.payload(CLAUDE, "Stop"))[0] == ""
    assert "Where does the nightly backup" in agent.spooled()
    assert "no token" in (agent.home / "mh" / "hook.log").read_text()


# --- Codex -----------------------------------------------------------------------------------------------------
def test_codex_injects_as_developer_context_and_archives_each_turn_once(hub, agent):
    out, _ = agent.run("codex", "UserPromptSubmit", agent.payload(CODEX, "UserPromptSubmit"))
    assert out == "" or json.loads(out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    agent.write_turns(FIXTURES / "codex-rollout.jsonl", CODEX, 1)
    stop = agent.payload(CODEX, "Stop")
    agent.run("codex", "Stop", stop)
    agent.run("codex", "Stop", stop)
    turns = turns_of(hub, agent.session)
    assert [(t["user"], t["assistant"]) for t in turns] == [(
        "Where does the nightly backup of the ledger database go?",
        "It goes to the NAS, nas:/backups/ledger/, every night at 02:00.")]
    assert "AGENTS.md" not in turns[0]["user"]  # instructions Codex injects are not the conversation

    agent.write_turns(FIXTURES / "codex-rollout.jsonl", CODEX, 2)
    agent.run("codex", "Stop", agent.payload(CODEX, "Stop2"))
    agent.run("codex", "PreCompact", agent.payload(CODEX, "PreCompact"))
    assert [t["assistant"] for t in turns_of(hub, agent.session)][1:] == ["好的，老王。备份完成后我会提醒你。"]

    with MemoryHubClient(hub.url, agent.env["MEMORYHUB_TOKEN"]) as client:
        client.call_tool("memory", "setup", {"action": "add", "target": "user", "content": "Calls himself 老王."})
    start = json.loads(agent.run("codex", "SessionStart", agent.payload(CODEX, "SessionStart"))[0])
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "老王" in start["hookSpecificOutput"]["additionalContext"]


def test_codex_stop_without_a_rollout_archives_from_the_hooks_own_payloads(hub, agent):
    agent.run("codex", "UserPromptSubmit", agent.payload(CODEX, "UserPromptSubmit", transcript_path=None))
    agent.run("codex", "Stop", agent.payload(CODEX, "Stop", transcript_path=None))
    assert [t["assistant"] for t in turns_of(hub, agent.session)] == [
        "It goes to the NAS, nas:/backups/ledger/, every night at 02:00."]


# --- Cursor ----------------------------------------------------------------------------------------------------
def test_cursor_archives_a_prompt_with_all_its_messages_at_stop_and_ends_the_session(hub, agent):
    assert json.loads(agent.run("cursor", "beforeSubmitPrompt", agent.payload(CURSOR, "beforeSubmitPrompt"))[0]) == {
        "continue": True}
    agent.run("cursor", "afterAgentResponse", agent.payload(CURSOR, "afterAgentResponse"))
    agent.run("cursor", "afterAgentResponse", agent.payload(CURSOR, "afterAgentResponse2"))
    agent.run("cursor", "afterAgentResponse", agent.payload(CURSOR, "afterAgentResponse2"))  # the hook ran twice
    assert turns_of(hub, agent.session) == []  # the agent loop is still running
    agent.run("cursor", "stop", agent.payload(CURSOR, "stop"))
    agent.run("cursor", "stop", agent.payload(CURSOR, "stop"))
    turns = turns_of(hub, agent.session)
    assert [(t["user"], t["assistant"]) for t in turns] == [(
        "Where does the nightly backup of the ledger database go?",
        "Let me read scripts/backup.sh.\n\nIt goes to the NAS, nas:/backups/ledger/, every night at 02:00.")]

    agent.run("cursor", "beforeSubmitPrompt", agent.payload(CURSOR, "beforeSubmitPrompt2"))
    agent.run("cursor", "afterAgentResponse", agent.payload(CURSOR, "afterAgentResponse3"))
    agent.run("cursor", "sessionEnd", agent.payload(CURSOR, "sessionEnd"))  # Cursor closed before stop
    assert [t["user"] for t in turns_of(hub, agent.session)][1:] == ["以后叫我老王"]
    assert session_ended(hub, agent.session)
    start = json.loads(agent.run("cursor", "sessionStart", agent.payload(CURSOR, "sessionStart"))[0] or "{}")
    assert set(start) <= {"additional_context"}


# --- set-up ----------------------------------------------------------------------------------------------------
def test_setup_keeps_the_token_private_and_check_says_whether_the_hub_takes_it(hub, agent):
    env = {k: v for k, v in agent.env.items() if k not in ("MEMORYHUB_URL", "MEMORYHUB_TOKEN")}
    token = agent.env["MEMORYHUB_TOKEN"]
    done = subprocess.run([sys.executable, "-m", "memoryhub_client.hooks", "setup", "--url", hub.url, "--token", token],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "ready" in done.stdout and token not in done.stdout, done.stdout + done.stderr
    saved = agent.home / "mh" / "hook.json"
    assert oct(saved.stat().st_mode & 0o777) == "0o600" and oct(saved.parent.stat().st_mode & 0o777) == "0o700"
    assert config.load(env).token == token
    saved.chmod(0o644)  # readable by others: the token is not used from it
    assert config.load(env).token == ""
    saved.chmod(0o600)
    bad = subprocess.run([sys.executable, "-m", "memoryhub_client.hooks", "check"], capture_output=True, text=True,
                         env={**env, "MEMORYHUB_TOKEN": "mh_wrong"}, timeout=60)
    assert bad.returncode == 1 and "unauthorized" in bad.stdout


def test_install_merges_the_hooks_and_keeps_everyone_elses(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    cursor_file = tmp_path / ".cursor" / "hooks.json"
    cursor_file.parent.mkdir()
    cursor_file.write_text(json.dumps({"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}))
    settings = config.HookSettings(home=tmp_path / "mh", url="http://hub.lan:8000", token="mh_secret")
    for _ in range(2):
        install.install("cursor", settings)
        install.install("codex", settings)
    hooks = json.loads(cursor_file.read_text())["hooks"]
    assert [h["command"] for h in hooks["stop"]][0] == "./audit.sh" and len(hooks["stop"]) == 2
    assert hooks["beforeSubmitPrompt"][0]["command"].endswith("-m memoryhub_client.hooks cursor beforeSubmitPrompt")
    mcp = json.loads((tmp_path / ".cursor" / "mcp.json").read_text())["mcpServers"]["memoryhub"]
    assert mcp == {"url": "http://hub.lan:8000/mcp", "headers": {"Authorization": "Bearer mh_secret"}}
    assert oct((tmp_path / ".cursor" / "mcp.json").stat().st_mode & 0o777) == "0o600"
    codex = json.loads((tmp_path / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(codex) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}
    assert all(len(groups) == 1 for groups in codex.values())
    toml = (tmp_path / ".codex" / "config.toml").read_text()
    assert toml.count("[mcp_servers.memoryhub]") == 1 and 'bearer_token_env_var = "MEMORYHUB_TOKEN"' in toml
    assert "mh_secret" not in toml
    assert (tmp_path / ".cursor" / "hooks.json.bak").exists()


def test_the_claude_code_plugin_runs_the_hook_command_at_each_event():
    plugin = ROOT / "integrations" / "claude-code"
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((ROOT / "integrations" / ".claude-plugin" / "marketplace.json").read_text())
    assert market["plugins"][0]["name"] == manifest["name"] == "memoryhub"
    assert (ROOT / "integrations" / market["plugins"][0]["source"] / ".claude-plugin" / "plugin.json").exists()
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    from memoryhub_client.hooks import claude_code

    assert set(hooks) == set(claude_code.EVENTS)
    for event, groups in hooks.items():
        assert groups[0]["hooks"][0]["command"] == f"memoryhub-hook claude-code {event}"
    server = json.loads((plugin / ".mcp.json").read_text())["mcpServers"]["memoryhub"]
    assert server["type"] == "http" and server["url"].endswith("/mcp") and "${MEMORYHUB_TOKEN}" in str(server)


class Dashboard:
    """A person logged in on the served hub's dashboard (the admin `ensure_admin` made)."""

    def __init__(self, hub: LiveHub):
        self.http = httpx.Client(base_url=hub.url, timeout=30, follow_redirects=True)
        self.post("/login/", {"username": "admin", "password": hub.env["MEMORYHUB_ADMIN_PASSWORD"]})

    def get(self, path: str, **params) -> str:
        answer = self.http.get(path, params=params)
        assert answer.status_code == 200, (path, answer.status_code)
        return answer.text

    def post(self, path: str, data: dict, form: str | None = None) -> str:
        """`data` sent as the form on `form` (else `path`) would send it, with its CSRF token."""
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', self.get(form or path)).group(1)
        answer = self.http.post(path, data={**data, "csrfmiddlewaretoken": csrf},
                                headers={"Referer": f"{self.http.base_url}{form or path}"})
        assert answer.status_code == 200, (path, answer.status_code)
        return answer.text

    def recall_preview(self, slug: str, **params: str) -> str:
        """The recall preview's block as the page shows it."""
        found = re.search(r'<pre id="recall-text" class="frame">(.*?)</pre>',
                          self.get(f"/spaces/{slug}/recall/", **params), re.S)
        assert found
        return html.unescape(found.group(1))


def test_after_one_conversation_the_recall_preview_is_what_the_hooks_injected(hub, agent):
    """The issue's "done": the turns are in the project's space, and its recall preview shows what was injected."""
    agent.write_turns(FIXTURES / "claude-code-transcript.jsonl", CLAUDE, 2)
    agent.run("claude-code", "SessionStart", agent.payload(CLAUDE, "SessionStart"))
    agent.run("claude-code", "Stop", agent.payload(CLAUDE, "Stop"))
    slug = turns_of(hub, agent.session)[0]["space"]
    question = "where does the ledger backup go, and is last night's copy complete?"
    out, _ = agent.run("claude-code", "UserPromptSubmit", agent.payload(CLAUDE, "UserPromptSubmit", prompt=question))
    injected = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "1,204,311 rows" in injected
    assert Dashboard(hub).recall_preview(slug, q=question, notebooks="without") == injected
