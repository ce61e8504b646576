"""Believable demo data for screenshots: spaces with memories, tokens, a configured provider, jobs."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memoryhub.agents.models import ApiToken
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.spaces.models import ProviderService
from memoryhub.spaces.provider_services import save_service
from memoryhub.spaces.workspaces import default_space
from tests.conftest import make_api


def populate(client) -> None:
    api = make_api(client, name="laptop-agent")
    api.turn("以后叫我老王", "好的，老王")
    api.turn("We decided to keep SQLite in WAL mode for the hub.", "Noted: SQLite (WAL) stays.")
    api.turn("The deploy script lives in scripts/deploy.sh", "ok", workspace="/home/wang/proj")
    api.tool("memory_note", text="Pitfall: never run migrations while the worker is busy.", category="pitfall",
             workspace="/home/wang/proj")
    ApiToken.issue("qq-bridge", origin="qq")
    save_service("honcho", {"endpoint": "http://127.0.0.1:8010", "apiKey": "demo-key"})
    save_service("mem0", {"endpoint": "https://api.mem0.ai", "apiKey": "demo-key", "mode": "platform"})
    ProviderService.objects.filter(kind="mem0").update(
        enabled=False, last_error="401 Unauthorized: Invalid API key", last_checked=timezone.now())
    runner.enqueue("selftest")
    now = timezone.now()
    Job.objects.create(kind="persona_rebuild", label="Persona rebuild", space=default_space(), status="failed",
                       progress=40,
                       started_at=now - timedelta(seconds=12), finished_at=now - timedelta(seconds=4),
                       error="ProviderError: the LLM endpoint did not answer within 25 s")
    Job.objects.create(kind="selftest", label="Self test", status="running", progress=60, message="step 3 of 5",
                       started_at=now - timedelta(seconds=2), heartbeat_at=now)
