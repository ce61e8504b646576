"""What the Connect page tells a person to run, per agent, with the hub's address and a new token filled in.

Every agent is one choice: its install steps (each a text to copy) and a sentence on what it can and cannot do
(docs: integrations/README.md). The hooks of Claude Code, Codex and Cursor name the agent's working directory
as the workspace, so their turns land in the project's own space; a token limited to one space may not bind
project paths, so its steps say MEMORYHUB_WORKSPACE=none.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

# The stdio bridge the page offers, pinned: what people run is what CI runs (.ci/run reads this line).
MCP_REMOTE = "mcp-remote@0.15.1"
SESSION = "first-run"


@dataclass
class Step:
    key: str  # unique on the page: the copy button's target
    title: str
    text: str
    help: str = ""


@dataclass
class Choice:
    key: str
    title: str
    can: str  # what the agent gets: the block before it answers? its turns archived?
    steps: list[Step] = field(default_factory=list)


def choices(base: str, raw: str, space: str, *, restricted: bool, default_space: bool) -> list[Choice]:
    """Claude Code, Codex, Cursor, any MCP client, Hermes / Python, curl: in that order."""
    mcp = f"{base}/mcp"
    bearer = f"Bearer {raw}"
    checkout = str(settings.BASE_DIR)
    pin_space = restricted or not default_space  # else the hooks' turns go to each project's own space
    hook_env = {"MEMORYHUB_URL": base, "MEMORYHUB_TOKEN": raw}
    if pin_space:
        hook_env["MEMORYHUB_SPACE"] = space
    if restricted:
        hook_env["MEMORYHUB_WORKSPACE"] = "none"
    install = Step("{agent}-install", _("1. The hook command, from the memoryhub checkout"),
                   f"pipx install {shlex.quote(checkout + '/clients/python')}",
                   _("Python 3.10 or newer. Without pipx: python3 -m pip install --user …/clients/python. The "
                     "agent runs it as memoryhub-hook, so it must be on the agent's PATH."))
    setup = " ".join(["memoryhub-hook", "setup", "--url", shlex.quote(base), "--token", shlex.quote(raw)]
                     + (["--space", shlex.quote(space)] if pin_space else [])
                     + (["--workspace", "none"] if restricted else []))
    return [
        Choice("claude", _("Claude Code (plugin)"),
               _("Before every prompt Claude Code gets the block (hooks), after every answer the turn is archived, "
                 "at the end the hub session ends; the plugin also adds the hub's tools over MCP."), [
                   _for("claude", install),
                   Step("claude-env", _("2. The hub and the token, in ~/.claude/settings.json"),
                        json.dumps({"env": hook_env}, indent=2),
                        _("Merge it into the file: Claude Code hands these to its hooks and to the plugin's MCP "
                          "server.")),
                   Step("claude-plugin", _("3. The plugin"),
                        f"claude plugin marketplace add {shlex.quote(checkout + '/integrations')}\n"
                        "claude plugin install memoryhub@memoryhub",
                        _("Inside Claude Code: /plugin marketplace add …/integrations, then /plugin install "
                          "memoryhub@memoryhub. memoryhub-hook check shows what the hooks will use.")),
                   Step("claude", _("Only the tools, without hooks"),
                        f"claude mcp add --transport http memoryhub {shlex.quote(mcp)} "
                        f"--header {shlex.quote('Authorization: ' + bearer)}",
                        _("Then nothing is injected or archived unless the model calls a tool.")),
               ]),
        Choice("codex", _("Codex CLI"),
               _("Before every prompt Codex gets the block as developer context, after every answer the turn is "
                 "archived; Codex has no session-end hook, so the hub ends the session after 120 idle minutes."), [
                   _for("codex", install),
                   Step("codex-setup", _("2. The hub, the token and the hooks"),
                        f"{setup}\nmemoryhub-hook install codex",
                        _("Writes ~/.memoryhub/hook.json (mode 0600), merges the hooks into ~/.codex/hooks.json and "
                          "the MCP server into ~/.codex/config.toml. Then open /hooks in Codex once to trust them.")),
                   Step("codex-env", _("3. The token for Codex's MCP server, in your shell profile"),
                        f"export MEMORYHUB_TOKEN={shlex.quote(raw)}"),
               ]),
        Choice("cursor", _("Cursor"),
               _("Cursor gets the block when a session starts and archives every answer, but its hooks cannot add "
                 "to each prompt: a rule asks the agent to call memory_context before it answers."), [
                   _for("cursor", install),
                   Step("cursor-setup", _("2. The hub, the token, the hooks and the MCP server"),
                        f"{setup}\nmemoryhub-hook install cursor --project /path/to/your/project",
                        _("Writes ~/.memoryhub/hook.json, merges the hooks into .cursor/hooks.json, the MCP server "
                          "into .cursor/mcp.json and the rule into .cursor/rules/memoryhub.mdc. Without --project: "
                          "your home's ~/.cursor, and the rule is printed for Settings → Rules.")),
               ]),
        Choice("mcp", _("Any MCP client"),
               _("The hub's tools over MCP (streamable HTTP): the model gets the block only when it calls "
                 "memory_context, and turns are archived only when it calls a tool that writes."), [
                   Step("mcp", _("MCP client (streamable HTTP)"),
                        json.dumps({"mcpServers": {"memoryhub": {"type": "http", "url": mcp,
                                                                 "headers": {"Authorization": bearer}}}}, indent=2),
                        _("For clients that speak MCP over HTTP (Claude Code's .mcp.json, Cursor, Windsurf, VS "
                          "Code…).")),
                   Step("stdio", _("Clients that only speak stdio"), _bridge(mcp, bearer),
                        _("mcp-remote (Node 18 or newer, run by npx) bridges stdio to /mcp and sends the bearer "
                          "header; the header goes through an environment variable because some clients split "
                          "arguments on whitespace.")),
               ]),
        Choice("python", _("Hermes / Python"),
               _("The Hermes memory provider prefetches the block before every turn and archives every turn, "
                 "through an on-disk spool; the Python client calls every endpoint."), [
                   Step("env", _("Python client: environment"), "\n".join([
                       f"export MEMORYHUB_URL={shlex.quote(base)}",
                       f"export MEMORYHUB_TOKEN={shlex.quote(raw)}",
                       f"export MEMORYHUB_SPACE={shlex.quote(space)}",
                       "pip install ./clients/python  # from the memoryhub checkout",
                   ]), _("MemoryHubClient reads MEMORYHUB_URL and MEMORYHUB_TOKEN; MemoryHubProvider, the agent "
                         "plugin, also reads MEMORYHUB_SPACE.")),
                   Step("hermes", _("Hermes: config.yaml"), "memory:\n  provider: memoryhub",
                        _("Then hermes memory setup asks for the rest.")),
                   Step("python", _("Python client: first memory"), "\n".join([
                       "import os",
                       "from memoryhub_client import MemoryHubClient",
                       "",
                       "hub = MemoryHubClient()  # reads MEMORYHUB_URL and MEMORYHUB_TOKEN",
                       'space = os.environ.get("MEMORYHUB_SPACE")',
                       f'hub.note("{SESSION}", "memoryhub is connected from Python", space=space)',
                       f'print(hub.context("{SESSION}", "is memoryhub connected?", space=space)["text"])',
                   ])),
               ]),
        Choice("curl", _("curl"), _("Any program that speaks HTTP: POST /api/v1/turns after a turn, POST "
                                    "/api/v1/context before one (docs/api.md)."), [
            Step("curl", _("curl"), _curl(base, bearer, space),
                 _("One call of the memory_note tool: the hub answers with the new memory's id.")),
        ]),
    ]


def remote_steps(port: str) -> Step:
    """How to serve the hub to other machines: the settings then point at the address this page was opened by."""
    return Step("remote", _("From another machine"),
                f'MEMORYHUB_BIND=0.0.0.0:{port} MEMORYHUB_ALLOWED_HOSTS="$(hostname)" make run',
                _("The hub listens on 127.0.0.1 only by default. Serve it on every address and name the host names "
                  "it answers to (add the IP address you will type, comma-separated), then open this page "
                  "through that address: the settings carry it. Beyond your own network, put it behind HTTPS "
                  "(MEMORYHUB_CSRF_TRUSTED_ORIGINS)."))


def _for(agent: str, step: Step) -> Step:
    return Step(step.key.format(agent=agent), step.title, step.text, step.help)


def _bridge(mcp: str, bearer: str) -> str:
    args = ["-y", MCP_REMOTE, mcp, "--header", "Authorization:${MEMORYHUB_AUTH}"]
    if urlsplit(mcp).scheme == "http" and urlsplit(mcp).hostname not in ("localhost", "127.0.0.1"):
        args.append("--allow-http")  # mcp-remote refuses plain HTTP beyond loopback without it
    return json.dumps({"mcpServers": {"memoryhub": {"command": "npx", "args": args,
                                                    "env": {"MEMORYHUB_AUTH": bearer}}}}, indent=2)


def _curl(base: str, bearer: str, space: str) -> str:
    note = {"session_id": SESSION, "arguments": {"text": "memoryhub is connected", "space": space}}
    return (f"curl -sS {shlex.quote(base + '/api/v1/tools/memory_note')} \\\n"
            f"  -H {shlex.quote('Authorization: ' + bearer)} \\\n"
            f"  -H 'Content-Type: application/json' \\\n"
            f"  -d {shlex.quote(json.dumps(note))}")
