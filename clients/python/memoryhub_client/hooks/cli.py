"""`memoryhub-hook`: the command agents' hook files call, and its set-up helpers.

    memoryhub-hook <agent> <event>     a hook: the agent's JSON on stdin, what it should add on stdout
    memoryhub-hook setup --url URL --token TOKEN [--space SLUG] [--workspace PATH|none]
    memoryhub-hook check               the settings in use and whether the hub takes this token's turns
    memoryhub-hook install codex|cursor [--project DIR]   merge the hooks (and MCP entry) into the agent's files

A hook never fails the agent: whatever goes wrong is written to `<home>/hook.log` and the hook prints nothing
(Cursor's beforeSubmitPrompt still lets the prompt through) and exits 0. Agents treat exit code 2 as "block this",
so it is never used.
"""

from __future__ import annotations

import argparse
import json
import logging
import logging.handlers
import os
import select
import sys
import time
from typing import Any

from memoryhub_client.errors import MemoryHubError
from memoryhub_client.hooks import claude_code, codex, config, cursor, install
from memoryhub_client.hooks.engine import Hub, drain

log = logging.getLogger("memoryhub.hook")
AGENTS = {m.NAME: m for m in (claude_code, codex, cursor)}
STDIN_SECONDS = 1.0  # an agent that never closes the hook's stdin still gets its answer
STDIN_BYTES = 8 * 1024 * 1024


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] in AGENTS:
        return run_hook(argv[0], argv[1])
    parser = argparse.ArgumentParser(prog="memoryhub-hook", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    setup = commands.add_parser("setup", help="save the hub's address and token in <home>/hook.json (0600)")
    setup.add_argument("--url")
    setup.add_argument("--token")
    setup.add_argument("--space")
    setup.add_argument("--workspace", help="a path or slug for every session, or `none`; default: the agent's "
                                           "working directory")
    commands.add_parser("check", help="show the settings and ask the hub whether it takes this token's turns")
    add = commands.add_parser("install", help="merge memoryhub's hooks into an agent's configuration")
    add.add_argument("agent", choices=sorted(install.TARGETS))
    add.add_argument("--project", help="the project's own files (.codex/, .cursor/) instead of your home's")
    commands.add_parser("drain", help="send what the spool holds (started by the hooks themselves)")
    for agent in AGENTS:
        commands.add_parser(agent, help=f"a {agent} hook: {', '.join(AGENTS[agent].EVENTS)}")
    args = parser.parse_args(argv)
    settings = config.load()
    if args.command == "setup":
        path = config.save(settings.home, {k: getattr(args, k) for k in ("url", "token", "space", "workspace")
                                           if getattr(args, k) is not None})
        print(f"saved {path}")
        return check(config.load())
    if args.command == "check":
        return check(settings)
    if args.command == "install":
        for line in install.install(args.agent, settings, project=args.project):
            print(line)
        return 0
    if args.command == "drain":
        setup_log(settings)
        drain(settings)
        return 0
    parser.error(f"{args.command} needs an event: {', '.join(AGENTS[args.command].EVENTS)}")
    return 2


def run_hook(agent: str, event: str) -> int:
    """One hook run; prints what the agent should add and exits 0, whatever happens."""
    started = time.monotonic()
    try:
        settings = config.load()
        setup_log(settings)
        module = AGENTS[agent]
        payload = read_payload(sys.stdin)
        if event not in module.EVENTS:
            log.info("%s %s: not an event memoryhub uses", agent, event)
            return 0
        out = module.handle(event, payload, Hub(settings))
    except Exception:
        log.exception("%s %s failed", agent, event)
        out = cursor.LET_THROUGH if (agent, event) == (cursor.NAME, "beforeSubmitPrompt") else ""
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    log.info("%s %s done in %.0f ms", agent, event, (time.monotonic() - started) * 1000)
    return 0


def read_payload(stream: Any) -> dict[str, Any]:
    """The hook's JSON object from stdin, read until it parses or the stream closes, for at most STDIN_SECONDS."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return _object(stream.read(STDIN_BYTES))
    if os.name == "nt":  # select() takes only sockets there
        return _object(stream.read(STDIN_BYTES))
    data = b""
    deadline = time.monotonic() + STDIN_SECONDS
    while len(data) < STDIN_BYTES:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        if _object(data):
            break
    return _object(data)


def _object(data: bytes | str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def setup_log(settings: config.HookSettings) -> None:
    """The hook's own log (1 MiB, two old ones kept), for every logger of the process: nothing may reach stderr,
    which an agent may show. Never the prompts' text or the token."""
    root = logging.getLogger()
    if root.handlers:
        return
    try:
        settings.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(settings.log_file, maxBytes=1 << 20,
                                                                         backupCount=2, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in ("memoryhub.hook", "memoryhub_client"):
        logging.getLogger(name).setLevel(logging.INFO)


def check(settings: config.HookSettings) -> int:
    """The settings in use (the token masked) and the hub's answer to a set-up check, which writes nothing."""
    masked = f"{settings.token[:6]}…" if settings.token else "(none: set MEMORYHUB_TOKEN or run setup)"
    print(f"hub        {settings.url}\ntoken      {masked}\nspace      {settings.space or '(the default)'}\n"
          f"workspace  {settings.workspace or '(the agent’s working directory)'}\nhome       {settings.home}\n"
          f"bounds     inject {settings.inject_timeout:g} s, archive {settings.archive_timeout:g} s")
    if not settings.token:
        return 1
    hub = Hub(settings)
    workspace = settings.workspace if settings.workspace != config.NO_WORKSPACE else None  # never bind this cwd
    try:
        hub.client.check_turns("memoryhub-hook-check", space=settings.space, workspace=workspace,
                               timeout=settings.inject_timeout)
    except MemoryHubError as exc:
        print(f"not ready  {exc}")
        if exc.field == "workspace":
            print("           this token may not bind project paths: set MEMORYHUB_WORKSPACE=none (or a "
                  "workspace the hub knows), or use an unrestricted local token")
        return 1
    print(f"ready      the hub takes turns from this token{' for ' + workspace if workspace else ''}")
    return 0
