"""README's first five minutes as a person goes through them on a served hub: the Connect page makes a token and
shows each agent's steps, which are followed as written (the client installed from the path the page names, its
setup and install commands run through a shell, the files they write read as the agent reads them); the agent's own
part is played by running the hook commands it would run, through a shell, with its documented payloads and
transcript (tests/fixtures/hooks, each citing the vendor's page). Then the page says archive and inject were seen,
the turns are in the project's space, and its recall preview is what was injected (the issue's "done" for Claude
Code). curl: the README's two calls run as written. (MCP clients and Hermes/Python: tests/test_connect.py runs
their steps.)"""

from __future__ import annotations

import html
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.livehub import ROOT
from tests.test_hooks import CLAUDE, CODEX, CURSOR, FIXTURES, Dashboard, session_ended

TRANSCRIPT = FIXTURES / "claude-code-transcript.jsonl"


def snippet(page: str, key: str) -> str:
    """A step's text as the person copies it."""
    found = re.search(rf'<pre id="snippet-{key}-text"><code>(.*?)</code></pre>', page, re.S)
    assert found, f"no step {key}"
    return html.unescape(found.group(1))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    return {"prefix": tmp_path_factory.mktemp("person") / "prefix"}


def install_client(step: str, installed: dict, home: Path) -> dict:
    """Step 1 without pipx (the step's help names pip instead): the package from the directory the step names,
    into a prefix of the person's own (once per module); a copy, so the build leaves the checkout as it was.
    The environment the person's shell and agent then have."""
    command = shlex.split(step)
    assert command[:2] == ["pipx", "install"] and len(command) == 3, step
    prefix = installed["prefix"]
    if not prefix.exists():
        _pip_install(Path(command[2]), prefix)
    # PYTHONPATH: pip's --prefix is not on the interpreter's path the way pipx's own environment would be
    return {"HOME": str(home), "PATH": f"{prefix / 'bin'}:/usr/bin:/bin",
            "PYTHONPATH": str(next(prefix.glob("lib/python*/site-packages")))}


def _pip_install(package: Path, prefix: Path) -> None:
    """--ignore-installed: without it pip first uninstalls the test environment's own copy of the client."""
    source = prefix.parent / "client-source"
    shutil.copytree(package, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", "--prefix", str(prefix),
                    str(source)], check=True, capture_output=True, timeout=300)


def in_shell(step: str, env: dict, cwd: Path) -> str:
    """A step's lines pasted into a shell."""
    done = subprocess.run(["/bin/sh", "-ec", step], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def plugin_hooks(step: str) -> tuple[Path, dict]:
    """Step 3 as Claude Code reads it: the marketplace directory added, the plugin installed from it, its hooks."""
    add, install = (shlex.split(line) for line in step.splitlines())
    assert add[:4] == ["claude", "plugin", "marketplace", "add"] and install[:3] == ["claude", "plugin", "install"]
    market = Path(add[4])
    name, market_name = install[3].split("@")
    catalogue = json.loads((market / ".claude-plugin" / "marketplace.json").read_text())
    assert catalogue["name"] == market_name
    root = market / next(p["source"] for p in catalogue["plugins"] if p["name"] == name)
    assert json.loads((root / ".claude-plugin" / "plugin.json").read_text())["name"] == name
    return root, json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]


class Agent:
    """What an agent does with its hooks file: each event's commands (those whose matcher takes the payload's
    `source`) through a shell, the payload on stdin, in the project directory, within the hook's timeout."""

    def __init__(self, hooks: dict, env: dict, project: Path, fixture: dict, session: str | None = None):
        self.hooks, self.env, self.project, self.fixture = hooks, env, project, fixture
        self.session = session or str(uuid.uuid4())
        self.transcript = Path(env["HOME"]) / "transcripts" / f"{self.session}.jsonl"
        self.transcript.parent.mkdir(parents=True, exist_ok=True)

    def turns_done(self, source: Path, n: int) -> None:
        lines = source.read_text(encoding="utf-8").splitlines()[:self.fixture["turn_ends"][n - 1]]
        self.transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def fire(self, event: str, **changes) -> str:
        payload = {**self.fixture["payloads"][event], **changes}
        for key in ("session_id", "conversation_id"):
            if key in payload:
                payload[key] = self.session
        payload.update({"cwd": str(self.project)} if "cwd" in payload else {"workspace_roots": [str(self.project)]})
        if payload.get("transcript_path") == "TRANSCRIPT":
            payload["transcript_path"] = str(self.transcript)
        out = []
        for entry in self.hooks[payload["hook_event_name"]]:
            if not re.fullmatch(entry.get("matcher") or ".*", payload.get("source", "")):
                continue
            for hook in entry.get("hooks", [entry]):  # Claude Code and Codex group their hooks, Cursor does not
                done = subprocess.run(["/bin/sh", "-c", hook["command"]], input=json.dumps(payload), text=True,
                                      capture_output=True, env=self.env, cwd=self.project, timeout=hook["timeout"])
                assert done.returncode == 0 and done.stderr == "", done.stderr
                out.append(done.stdout)
        return "".join(out)

    def injected(self, event: str, **changes) -> str:
        out = self.fire(event, **changes)
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def connect(hub, agent: str, tmp_path: Path) -> tuple[Dashboard, str, Path]:
    """The person makes a token for `agent` on the Connect page (the Default space, unrestricted, as offered)."""
    person = Dashboard(hub)
    page = person.post("/connect/", {"name": f"{agent}-{uuid.uuid4().hex[:6]}", "space": "default", "origin": "local"})
    project = tmp_path / "work" / f"ledger-{uuid.uuid4().hex[:6]}"
    project.mkdir(parents=True)
    return person, page, project


def project_space(person: Dashboard, page: str) -> str:
    """The space the page's connected state links the agent's first memory in: the project's own."""
    connected = status(person, page, {"state": "connected", "archive": "seen", "inject": "seen"})
    first = re.search(r'href="/spaces/([^/"]+)/entries/(\d+)/"', connected)
    assert first, connected
    assert first.group(1).startswith("ledger-")  # the hooks name the working directory as the workspace
    return first.group(1)


def status(person: Dashboard, page: str, want: dict, seconds: float = 40.0) -> str:
    """The page's connected state, polled as htmx polls it, until its data attributes say `want`."""
    url = html.unescape(re.search(r'hx-get="(/connect/[^"]+)"', page).group(1))
    deadline = time.monotonic() + seconds
    while True:
        part = person.get(url)
        state = dict(re.findall(r'data-(state|archive|inject)="([a-z]+)"', part))
        if all(state.get(k) == v for k, v in want.items()) or time.monotonic() > deadline:
            assert all(state.get(k) == v for k, v in want.items()), part
            return part
        time.sleep(0.5)


def test_the_connect_pages_claude_code_steps_close_the_loop(hub, tmp_path, installed):
    person, page, project = connect(hub, "claude", tmp_path)
    env = install_client(snippet(page, "claude-install"), installed, tmp_path / "home")
    settings = json.loads(snippet(page, "claude-env"))  # step 2: what ~/.claude/settings.json gets
    assert settings["env"]["MEMORYHUB_URL"] == hub.url
    root, hooks = plugin_hooks(snippet(page, "claude-plugin"))
    agent = Agent(hooks, {**env, **settings["env"], "CLAUDE_PLUGIN_ROOT": str(root),
                          "CLAUDE_PROJECT_DIR": str(project)}, project, CLAUDE)

    agent.fire("SessionStart")
    agent.fire("UserPromptSubmit", prompt="Where does the nightly backup of the ledger database go?")
    agent.turns_done(TRANSCRIPT, 1)
    assert agent.fire("Stop") == ""
    second = "Have a sub-agent check that last night's copy is complete."
    injected = agent.injected("UserPromptSubmit", prompt=second)
    assert "nas:/backups/ledger" in injected  # the first turn, recalled for the second prompt

    slug = project_space(person, page)
    assert "Where does the nightly backup of the ledger database go?" in html.unescape(person.get(f"/spaces/{slug}/"))
    assert person.recall_preview(slug, q=second, notebooks="without") == injected

    agent.turns_done(TRANSCRIPT, 2)
    agent.fire("Stop")
    agent.fire("SessionEnd")
    assert "Archive: 2 turns arrived" in status(person, page, {"archive": "seen"})
    assert session_ended(hub, agent.session)


def test_the_connect_pages_codex_steps_close_the_loop(hub, tmp_path, installed):
    person, page, project = connect(hub, "codex", tmp_path)
    env = install_client(snippet(page, "codex-install"), installed, tmp_path / "home")
    said = in_shell(snippet(page, "codex-setup"), env, tmp_path)  # setup, then install codex
    assert "ready" in said and "hooks.json" in said
    token = shlex.split(snippet(page, "codex-env").removeprefix("export "))[0].split("=", 1)[1]
    env["MEMORYHUB_TOKEN"] = token  # step 3, from the shell profile: the MCP entry's bearer
    codex = Path(env["HOME"]) / ".codex"
    assert f'url = "{hub.url}/mcp"' in (codex / "config.toml").read_text()
    agent = Agent(json.loads((codex / "hooks.json").read_text())["hooks"], env, project, CODEX)

    agent.fire("SessionStart")
    agent.fire("UserPromptSubmit")
    agent.turns_done(FIXTURES / "codex-rollout.jsonl", 1)
    agent.fire("Stop")
    second = "Is the ledger backup on the NAS complete?"
    injected = agent.injected("UserPromptSubmit", prompt=second, turn_id=CODEX["payloads"]["Stop2"]["turn_id"])
    assert "nas:/backups/ledger" in injected

    slug = project_space(person, page)
    assert "Where does the nightly backup of the ledger database go?" in html.unescape(person.get(f"/spaces/{slug}/"))
    assert person.recall_preview(slug, q=second, notebooks="without") == injected


def test_the_connect_pages_cursor_steps_close_the_loop(hub, tmp_path, installed):
    person, page, project = connect(hub, "cursor", tmp_path)
    env = install_client(snippet(page, "cursor-install"), installed, tmp_path / "home")
    step = snippet(page, "cursor-setup")
    assert "/path/to/your/project" in step
    said = in_shell(step.replace("/path/to/your/project", shlex.quote(str(project))), env, tmp_path)
    assert "memoryhub.mdc" in said
    cursor = project / ".cursor"
    assert "memory_context" in (cursor / "rules" / "memoryhub.mdc").read_text()  # the per-prompt block, by rule
    mcp = json.loads((cursor / "mcp.json").read_text())["mcpServers"]["memoryhub"]
    assert mcp["url"] == f"{hub.url}/mcp" and mcp["headers"]["Authorization"].startswith("Bearer mh_")
    agent = Agent(json.loads((cursor / "hooks.json").read_text())["hooks"], env, project, CURSOR)

    assert json.loads(agent.fire("sessionStart") or "{}").keys() <= {"additional_context"}
    assert json.loads(agent.fire("beforeSubmitPrompt")) == {"continue": True}
    agent.fire("afterAgentResponse")
    agent.fire("afterAgentResponse2")
    agent.fire("stop")
    slug = project_space(person, page)
    assert "Where does the nightly backup of the ledger database go?" in html.unescape(person.get(f"/spaces/{slug}/"))
    agent.fire("sessionEnd")
    assert session_ended(hub, agent.session)


def test_the_readmes_two_curl_calls_archive_a_turn_and_answer_its_block(hub):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"Without an MCP client.*?```sh\n(.*?)```", readme, re.S).group(1)
    assert block.startswith("TOKEN=mh_...\n")
    script = block.replace("TOKEN=mh_...", f"TOKEN={shlex.quote(hub.token(name='readme-curl'))}")
    script = script.replace("http://127.0.0.1:8000", hub.url)
    done = subprocess.run(["/bin/bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    turn, context = (json.loads(line) for line in done.stdout.replace("}{", "}\n{").splitlines())
    assert turn["entry"]["space"] == "default"
    # what the user is called, learnt from the turn just archived (not a notebook another test pinned)
    assert re.search(r"## Who the user is\n[^#]*老王", context["text"]), context["text"]
