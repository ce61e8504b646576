"""What the Python client's tests read from the served hub's own database, and how they set it up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from memoryhub_client import MemoryHubClient, MemoryHubProvider

from tests.livehub import ROOT, LiveHub


def hub_json(hub: LiveHub, code: str) -> Any:
    """Run `code` in the hub's `manage.py shell`; it prints one JSON value, which is returned."""
    return json.loads(hub.manage("shell", "-c", code).strip().splitlines()[-1])


def archived(hub: LiveHub, session_id: str) -> list[dict[str, str]]:
    """The archived turns of a session in the order the hub wrote them: [{"title", "space"}]."""
    return hub_json(hub, (
        "import json; from memoryhub.memories.models import Entry; "
        f"print(json.dumps([{{'title': e.title, 'space': e.space.slug}} for e in "
        f"Entry.objects.filter(kind='turn', session_id={session_id!r}).select_related('space').order_by('id')]))"))


def titles(hub: LiveHub, session_id: str) -> list[str]:
    return [t["title"] for t in archived(hub, session_id)]


_admin_tokens: dict[int, str] = {}


def make_space(hub: LiveHub, slug: str, **space_settings: Any) -> str:
    """A native space made through the API, with per-space settings (e.g. recordSubagents) set as a person would."""
    token = _admin_tokens.setdefault(id(hub), hub.token(name="space-maker"))
    with MemoryHubClient(hub.url, token) as admin:
        admin.create_space(slug, slug.title())
    if space_settings:
        hub.manage("shell", "-c", "from memoryhub.spaces.models import MemorySpace; "
                                  f"MemorySpace.objects.filter(slug={slug!r}).update(settings={space_settings!r})")
    return slug


def provider_for(hub: LiveHub, token: str, spool: Path, **kw: Any) -> MemoryHubProvider:
    return MemoryHubProvider(hub.url, token, spool_path=spool, retry_max_delay=0.5, prefetch_timeout=2.0, **kw)


AGENT_SCRIPT = """
import sys, time
from memoryhub_client import MemoryHubProvider
url, token, spool, session, count = sys.argv[1:6]
agent = MemoryHubProvider(url, token, spool_path=spool, retry_max_delay=0.5)
agent.initialize(session)
for n in range(int(count)):
    agent.sync_turn(f"Killed agent turn {n}", "ok")
print("written", flush=True)
time.sleep(600)
"""


def agent_process(url: str, token: str, spool: Path, session: str, count: int):
    """An agent in its own process that writes `count` turns, says "written" and waits to be killed."""
    env_path = str(ROOT / "clients" / "python")
    return subprocess.Popen([sys.executable, "-c", AGENT_SCRIPT, url, token, str(spool), session, str(count)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "HOME": str(spool.parent)})
