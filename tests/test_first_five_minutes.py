"""README's first five minutes as a person goes through them on a served hub.

Claude Code (the issue's "done"): the Connect page of the served hub makes a token and
shows the steps; they are followed as written (the client installed from the path the page names, the settings'
env, the plugin found through the marketplace the page adds); Claude Code's part is played by running the plugin's
hook commands through a shell with its documented payloads (tests/fixtures/hooks/claude-code.json) and transcript.
Then the page says archive and inject were seen, the turns are in the project's space, and its recall preview is
what was injected. curl: the README's two calls run as written, with the hub's address and a token. (Codex,
Cursor, MCP clients and Hermes/Python: tests/test_hooks.py and tests/test_connect.py run their steps.)"""

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

from tests.livehub import ROOT
from tests.test_hooks import CLAUDE, FIXTURES, Dashboard, session_ended

TRANSCRIPT = FIXTURES / "claude-code-transcript.jsonl"


def snippet(page: str, key: str) -> str:
    """A step's text as the person copies it."""
    found = re.search(rf'<pre id="snippet-{key}-text"><code>(.*?)</code></pre>', page, re.S)
    assert found, f"no step {key}"
    return html.unescape(found.group(1))


def install_client(step: str, prefix: Path) -> tuple[Path, Path]:
    """Step 1 without pipx (the step's help names pip instead): the package from the directory the step names,
    into a prefix of the person's own; a copy, so the build leaves the checkout as it was. Its bin and
    site-packages."""
    command = shlex.split(step)
    assert command[:2] == ["pipx", "install"] and len(command) == 3, step
    source = prefix.parent / "client-source"
    shutil.copytree(command[2], source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--prefix", str(prefix),
                    str(source)], check=True, capture_output=True, timeout=300)
    return prefix / "bin", next(prefix.glob("lib/python*/site-packages"))


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


class ClaudeCode:
    """What Claude Code does with the plugin's hooks: each event's commands through a shell, the payload on stdin,
    the settings' env and the plugin root in the environment, within the hook's timeout."""

    def __init__(self, root: Path, hooks: dict, env: dict, home: Path, project: Path):
        self.hooks, self.project = hooks, project
        self.env = {"HOME": str(home), **env, "CLAUDE_PLUGIN_ROOT": str(root), "CLAUDE_PROJECT_DIR": str(project)}
        self.session = str(uuid.uuid4())
        self.transcript = home / ".claude" / "projects" / "ledger" / f"{self.session}.jsonl"
        self.transcript.parent.mkdir(parents=True)

    def turns_done(self, n: int) -> None:
        lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()[:CLAUDE["turn_ends"][n - 1]]
        self.transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def fire(self, event: str, **changes) -> str:
        payload = {**CLAUDE["payloads"][event], "session_id": self.session, "transcript_path": str(self.transcript),
                   "cwd": str(self.project), **changes}
        out = []
        for group in self.hooks[event]:
            for hook in group["hooks"]:
                done = subprocess.run(["/bin/sh", "-c", hook["command"]], input=json.dumps(payload), text=True,
                                      capture_output=True, env=self.env, cwd=self.project, timeout=hook["timeout"])
                assert done.returncode == 0 and done.stderr == "", done.stderr
                out.append(done.stdout)
        return "".join(out)

    def injected(self, event: str, **changes) -> str:
        out = self.fire(event, **changes)
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


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


def test_the_connect_pages_claude_code_steps_close_the_loop(hub, tmp_path):
    person = Dashboard(hub)
    page = person.post("/connect/", {"name": f"claude-{uuid.uuid4().hex[:6]}", "space": "default",
                                     "origin": "local"})
    home, project = tmp_path / "home", tmp_path / "work" / f"ledger-{uuid.uuid4().hex[:6]}"
    project.mkdir(parents=True)
    bin_dir, site = install_client(snippet(page, "claude-install"), tmp_path / "prefix")
    settings = json.loads(snippet(page, "claude-env"))  # step 2: what ~/.claude/settings.json gets
    assert settings["env"]["MEMORYHUB_URL"] == hub.url
    root, hooks = plugin_hooks(snippet(page, "claude-plugin"))
    # PYTHONPATH: pip's --prefix is not on the interpreter's path the way pipx's own environment would be
    agent = ClaudeCode(root, hooks, {**settings["env"], "PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(site)},
                       home, project)

    agent.fire("SessionStart")
    agent.fire("UserPromptSubmit", prompt="Where does the nightly backup of the ledger database go?")
    agent.turns_done(1)
    assert agent.fire("Stop") == ""
    second = "Have a sub-agent check that last night's copy is complete."
    injected = agent.injected("UserPromptSubmit", prompt=second)
    assert "nas:/backups/ledger" in injected  # the first turn, recalled for the second prompt

    connected = status(person, page, {"state": "connected", "archive": "seen", "inject": "seen"})
    first = re.search(r'href="/spaces/([^/"]+)/entries/(\d+)/"', connected)
    assert first, connected
    slug = first.group(1)
    assert slug.startswith("ledger-")  # the project's own space: the hooks name the working directory
    space_page = html.unescape(person.get(f"/spaces/{slug}/"))
    assert "Where does the nightly backup of the ledger database go?" in space_page
    assert person.recall_preview(slug, q=second, notebooks="without") == injected

    agent.turns_done(2)
    agent.fire("Stop")
    agent.fire("SessionEnd")
    assert "Archive: 2 turns arrived" in status(person, page, {"archive": "seen"})
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
