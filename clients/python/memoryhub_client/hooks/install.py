"""`memoryhub-hook install codex|cursor`: memoryhub's hooks merged into the agent's own files, in one step.

Hooks another tool put there are kept; memoryhub's are recognised by their command and replaced, so installing
twice changes nothing. The first time a file is changed its original is kept beside it as `<file>.bak`. The hook
commands run this very Python (`python -m memoryhub_client.hooks`), so they work whether or not `memoryhub-hook`
is on the agent's PATH. Claude Code has a plugin instead (integrations/claude-code).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from memoryhub_client.hooks.config import HookSettings

TARGETS = ("codex", "cursor")
MARKERS = ("memoryhub_client.hooks", "memoryhub-hook")
CURSOR_RULE = """---
description: memoryhub, the long-term memory of this machine's agents
alwaysApply: true
---
Before answering a request that may depend on earlier work, decisions or the user's preferences, call the
memoryhub MCP tool `memory_context` with the request as its query (or `memory_search` for something specific),
and expand an `id=…` it shows with `memory_recall`. Keep a decision, a pitfall or a finished step with
`memory_save`.
"""


def command(agent: str, event: str) -> str:
    return shlex.join([sys.executable, "-m", "memoryhub_client.hooks", agent, event])


def install(agent: str, settings: HookSettings, *, project: str | None = None) -> list[str]:
    """Merge the hooks (and the MCP entry) into the agent's files; returns what was done, line by line."""
    base = Path(project).resolve() if project else Path.home()
    if agent == "codex":
        return install_codex(base / ".codex", settings)
    return install_cursor(base / ".cursor", settings, project=project is not None)


def install_codex(folder: Path, settings: HookSettings) -> list[str]:
    def entry(event: str, message: str) -> dict[str, Any]:
        return {"type": "command", "command": command("codex", event), "timeout": 10, "statusMessage": message}

    ours = {"SessionStart": [{"matcher": "startup|resume|clear", "hooks": [entry("SessionStart", "memoryhub: recalling")]}],
            "UserPromptSubmit": [{"hooks": [entry("UserPromptSubmit", "memoryhub: recalling")]}],
            "Stop": [{"hooks": [entry("Stop", "memoryhub: archiving the turn")]}],
            "PreCompact": [{"hooks": [entry("PreCompact", "memoryhub: archiving before compaction")]}]}
    hooks_file = folder / "hooks.json"
    data = _read(hooks_file)
    data["hooks"] = _merged(data.get("hooks"), ours, nested=True)
    done = [_write(hooks_file, data)]
    config_file = folder / "config.toml"
    text = config_file.read_text(encoding="utf-8") if config_file.exists() else ""
    if "[mcp_servers.memoryhub]" in text:
        done.append(f"kept the [mcp_servers.memoryhub] table already in {config_file}")
    else:
        _backup(config_file)
        table = (f'\n[mcp_servers.memoryhub]\nurl = {json.dumps(settings.url + "/mcp")}\n'
                 'bearer_token_env_var = "MEMORYHUB_TOKEN"\n')
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(text.rstrip("\n") + ("\n" if text else "") + table, encoding="utf-8")
        done.append(f"added the memoryhub MCP server to {config_file} (it reads MEMORYHUB_TOKEN from the environment)")
    done.append("Codex asks you to trust new hooks once: open /hooks in Codex (an older Codex also needs "
                "`[features] codex_hooks = true` in config.toml)")
    return done


def install_cursor(folder: Path, settings: HookSettings, *, project: bool) -> list[str]:
    ours = {event: [{"command": command("cursor", event), "timeout": 10}]
            for event in ("sessionStart", "beforeSubmitPrompt", "afterAgentResponse", "stop", "sessionEnd")}
    hooks_file = folder / "hooks.json"
    data = _read(hooks_file)
    data["version"] = data.get("version", 1)
    data["hooks"] = _merged(data.get("hooks"), ours, nested=False)
    done = [_write(hooks_file, data)]
    mcp_file = folder / "mcp.json"
    mcp = _read(mcp_file)
    servers = mcp.setdefault("mcpServers", {})
    servers["memoryhub"] = {"url": f"{settings.url}/mcp",
                            "headers": {"Authorization": f"Bearer {settings.token or '<your token>'}"}}
    done.append(_write(mcp_file, mcp, private=True))
    if project:
        rule = folder / "rules" / "memoryhub.mdc"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text(CURSOR_RULE, encoding="utf-8")
        done.append(f"wrote {rule} (asks the agent to call memory_context before it answers)")
    else:
        body = CURSOR_RULE.split("---\n")[-1].strip()
        done.append("Cursor cannot add the block to each prompt by itself; paste this into Settings → Rules → User "
                    f"Rules (or run install with --project, which writes it as a project rule):\n\n{body}\n")
    return done


def _merged(current: Any, ours: dict[str, list[dict[str, Any]]], *, nested: bool) -> dict[str, Any]:
    """The agent's hooks with memoryhub's replaced by `ours`, the others kept in their order."""
    hooks = dict(current) if isinstance(current, dict) else {}
    for event, entries in ours.items():
        kept = [e for e in hooks.get(event) or [] if not _is_ours(e, nested)]
        hooks[event] = kept + entries
    return hooks


def _is_ours(entry: Any, nested: bool) -> bool:
    commands = ([h.get("command", "") for h in entry.get("hooks") or [] if isinstance(h, dict)] if nested
                else [entry.get("command", "")]) if isinstance(entry, dict) else []
    return any(marker in str(c) for c in commands for marker in MARKERS)


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # a broken file is the person's to fix: say so, change nothing
        raise SystemExit(f"{path} is not valid JSON ({exc}); fix or move it, then run install again") from exc
    if not isinstance(data, dict):
        raise SystemExit(f"{path} is not a JSON object; fix or move it, then run install again")
    return data


def _write(path: Path, data: dict[str, Any], *, private: bool = False) -> str:
    _backup(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if private:
        temp.chmod(0o600)  # it holds the token
    temp.replace(path)
    return f"wrote {path}"


def _backup(path: Path) -> None:
    backup = path.with_name(path.name + ".bak")
    if path.exists() and not backup.exists():
        shutil.copy2(path, backup)
