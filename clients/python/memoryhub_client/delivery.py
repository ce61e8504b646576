"""How spooled writes reach the hub: the `send` of an Outbox, shared by the Hermes provider and the hook command.

A run of jobs (outbox.py) is sent in order: the turns at its head as one batch request, any other write alone, so
the order holds; one outcome per job settled, stopping after the first worth retrying. A job may carry its own
`space` and `workspace` (a hook serves many projects); otherwise the sender's are used.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from memoryhub_client.client import MemoryHubClient
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.spool import Job

Outcome = MemoryHubError | None
TURN_RUN = 50  # queued writes looked at per send; consecutive turns among them go in one batch request
BATCH_BYTES = 512 * 1024  # a batch's turns stay well under the hub's 1 MiB body cap
PRIVATE_CHATS = ("dm", "private")  # Hermes's chat types are dm, group, channel and thread
ID_CHARS, NAME_CHARS = 100, 200


class Delivery:
    """Sends jobs of kind `turn` and `end`; any other kind goes to `other(job)` (the provider's notebook mirror).
    `archived(session_id, answer)` hears each turn the hub took."""

    def __init__(self, client: MemoryHubClient, *, space: str | None = None, workspace: str | None = None,
                 archived: Callable[[str, dict[str, Any]], None] | None = None,
                 other: Callable[[Job], None] | None = None):
        self.client = client
        self.space = space
        self.workspace = workspace
        self._archived = archived or (lambda sid, answer: None)
        self._other = other

    def send(self, jobs: list[Job]) -> list[Outcome]:
        """One outcome per job, stopping after one worth retrying (outbox.py)."""
        batch = self._batch(jobs)
        if len(batch) > 1:
            try:
                return self._send_turns(batch)
            except MemoryHubError as exc:  # the whole request failed: nothing was written
                if exc.code != "bad_request":
                    return [exc]  # the first waits (or is held), the rest behind it
                # a hub without the batch form: one turn at a time
        try:
            self._deliver(jobs[0])
            return [None]
        except MemoryHubError as exc:
            return [exc]

    @staticmethod
    def _batch(jobs: list[Job]) -> list[Job]:
        """The turns at the head of the run, as many as one request holds."""
        batch, size = [], 0
        for job in jobs:
            size += len(json.dumps(job, ensure_ascii=True))
            if job["kind"] != "turn" or (batch and size > BATCH_BYTES):
                break
            batch.append(job)
        return batch

    def _send_turns(self, jobs: list[Job]) -> list[Outcome]:
        results = self.client.turns([self._turn_fields(job, batch=True) for job in jobs], space=self.space,
                                    workspace=self.workspace)
        outcomes: list[Outcome] = []
        for job, result in zip(jobs, results):
            error = result.get("error")
            if error is None:
                self._archived(job["session_id"], result)
                outcomes.append(None)
                continue
            exc = MemoryHubError(str(error.get("code", "internal")), str(error.get("message", "")),
                                 result.get("status"), error.get("field"))
            outcomes.append(exc)
            if exc.retryable or exc.about_setup:
                break  # the later turns of the batch are sent again: their keys make that harmless
        return outcomes

    def _turn_fields(self, job: Job, *, batch: bool = False) -> dict[str, Any]:
        fields = {"session_id": job["session_id"], "user": job["user"], "assistant": job["assistant"],
                  "at": job["at"], "idempotency_key": job["id"], "agent_context": job.get("agent_context", "primary")}
        channel = hub_channel(job.get("channel"))
        if channel:
            fields["channel"] = channel
        for key in ("space", "workspace"):  # a job's own; in a batch, the top-level ones cover the rest
            if job.get(key):
                fields[key] = job[key]
            elif not batch and getattr(self, key):
                fields[key] = getattr(self, key)
        return fields

    def _deliver(self, job: Job) -> None:
        sid = job["session_id"]
        if job["kind"] == "turn":
            fields = self._turn_fields(job)
            self._archived(sid, self.client.turn(fields.pop("session_id"), fields.pop("user"),
                                                 fields.pop("assistant"), **fields))
        elif job["kind"] == "end":
            self.client.end_session(sid)
        elif self._other is not None:
            self._other(job)
        else:
            raise MemoryHubError("client_error", f"no way to send a {job['kind']!r} write")


def hub_channel(chat: dict[str, str] | None) -> dict[str, str] | None:
    """Hermes's chat as the hub's `channel` (docs/api.md): a dm is `private`, a group, channel or thread a `group`.

    What the hub would refuse is left out rather than sent (a turn must never be held for its chat details):
    an id that is too long or holds spaces, a platform that is no plain name; without a platform, or without
    the id a chat needs, there is no channel.
    """
    if not chat:
        return None
    platform = re.sub(r"[^a-z0-9_.-]+", "-", str(chat.get("platform", "")).strip().lower())[:40].strip("-_.")
    private = str(chat.get("chat_type", "")).lower() in PRIVATE_CHATS
    out = {"platform": platform, "chat_type": "private" if private else "group"}
    for key in ("chat_id", "user_id", "thread_id"):
        value = str(chat.get(key) or "").strip()
        if value and len(value) <= ID_CHARS and value.isprintable() and not any(c.isspace() for c in value):
            out[key] = value
    for key in ("chat_name", "user_name"):
        value = "".join(c for c in str(chat.get(key) or "") if c.isprintable()).strip()[:NAME_CHARS]
        if value:
            out[key] = value
    if not platform or not (out.get("chat_id") or (private and out.get("user_id"))):
        return None
    return out
