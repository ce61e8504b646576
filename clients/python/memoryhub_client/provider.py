"""MemoryHubProvider: memoryhub as an agent's external memory through the memory-provider lifecycle.

The agent calls initialize → system_prompt_block → per turn prefetch / sync_turn / queue_prefetch → on_session_end
→ shutdown. Nothing here may break a turn: reads are bounded and return "" on failure; writes go through a FIFO
worker thread and a local JSONL spool, are retried while the hub is down, and are replayed on the next start
(turns carry idempotency keys, so a retried turn is written once).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import queue
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memoryhub_client.client import MemoryHubClient
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.spool import Spool

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "Long-term memory (memoryhub): what may be relevant is recalled into each turn as short cards ending in "
    "`id=...`; expand one with memory_recall, look further with memory_search, and keep what matters with "
    "memory_save (a decision, a pitfall, a finished step) or memory_note."
)
NOTEBOOKS = {"memory": "MEMORY.md", "user": "USER.md"}


class MemoryHubProvider:
    """An external memory provider backed by a memoryhub hub; configured by arguments or MEMORYHUB_* variables."""

    def __init__(self, url: str | None = None, token: str | None = None, *, space: str | None = None,
                 workspace: str | None = None, spool_path: str | Path | None = None, timeout: float = 10.0,
                 prefetch_timeout: float = 3.0, drain_timeout: float = 5.0, retry_max_delay: float = 30.0,
                 max_chars: int | None = None, client: MemoryHubClient | None = None):
        self._owns_client = client is None
        self.client = client or MemoryHubClient(url, token, timeout=timeout)
        self.space = space or os.environ.get("MEMORYHUB_SPACE") or None
        self.workspace = workspace or os.environ.get("MEMORYHUB_WORKSPACE") or None
        configured = spool_path or os.environ.get("MEMORYHUB_SPOOL")
        self.spool_path = Path(configured) if configured else None
        self.prefetch_timeout = prefetch_timeout
        self.drain_timeout = drain_timeout
        self.retry_max_delay = retry_max_delay
        self.max_chars = max_chars
        self.session_id = ""
        self._writes = True
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._spool: Spool | None = None
        self._worker: threading.Thread | None = None
        self._warming: threading.Thread | None = None
        self._prefetched: str | None = None
        self._tools: list[dict[str, Any]] | None = None

    @property
    def name(self) -> str:
        return "memoryhub"

    def is_available(self) -> bool:
        """Configured with an endpoint and a token (no network: the agent asks this at start-up)."""
        return bool(self.client.url and self.client.token)

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Start the write worker and replay writes a previous run left in the spool."""
        self.session_id = session_id
        self._writes = kwargs.get("agent_context", "primary") == "primary"  # subagents and cron jobs only read
        self._spool = Spool(self.spool_path or self._default_spool(kwargs.get("hermes_home")))
        self._queue = queue.Queue()
        for job in self._spool.open():
            self._queue.put(job)
        self._stop.clear()
        self._worker = threading.Thread(target=self._work, name="memoryhub-sync", daemon=True)
        self._worker.start()

    def _default_spool(self, home: str | None) -> Path:
        digest = hashlib.sha256(f"{self.client.url} {self.client.token}".encode()).hexdigest()[:12]
        base = Path(home) if home else Path.home() / ".cache" / "memoryhub"
        return base / f"memoryhub-spool-{digest}.jsonl"

    def system_prompt_block(self) -> str:
        return SYSTEM_PROMPT

    # Reads

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The /context text to inject: the queued prefetch's result if one is ready, else fetched within the bound."""
        with self._lock:
            ready, self._prefetched = self._prefetched, None
        if ready is not None:
            return ready
        return self._context(session_id or self.session_id, query)

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Warm the next turn's context in the background; the next prefetch picks it up."""
        if self._warming is not None and self._warming.is_alive():
            return

        def warm() -> None:
            text = self._context(session_id or self.session_id, query)
            with self._lock:
                self._prefetched = text

        self._warming = threading.Thread(target=warm, name="memoryhub-prefetch", daemon=True)
        self._warming.start()

    def _context(self, session_id: str, query: str) -> str:
        try:
            return self.client.context(session_id, query, space=self.space, workspace=self.workspace,
                                       max_chars=self.max_chars, timeout=self.prefetch_timeout)["text"]
        except MemoryHubError as exc:
            log.warning("memoryhub prefetch failed, injecting nothing: %s", exc)
            return ""

    # Writes (queued, FIFO, spooled)

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "", **kwargs: Any) -> None:
        self._submit("turn", session_id, user=user_content, assistant=assistant_content,
                     at=datetime.now(timezone.utc).isoformat())

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """End the hub session after the turns queued before it; its vault grants expire with it."""
        self._submit("end", "")

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Let queued turns land before the transcript is compressed; tell the summary where the full turns are."""
        self.flush(self.drain_timeout)
        return (f"The full turns of this conversation are archived in memoryhub (session {self.session_id}); "
                "keep ids of the form id=... so they can be expanded later with memory_recall.")

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        """Mirror a MEMORY.md / USER.md edit: to the hub's `memory` tool when it has one, else as a memory_note."""
        self._submit("mirror", "", action=action, target=target, content=content or "",
                     old_text=(metadata or {}).get("old_text") or "")

    def _submit(self, kind: str, session_id: str, **fields: Any) -> None:
        if not self._writes:
            return
        if self._spool is None:
            log.warning("memoryhub provider used before initialize(); %s dropped", kind)
            return
        job = {"id": uuid.uuid4().hex, "kind": kind, "session_id": session_id or self.session_id, **fields}
        self._spool.add(job)
        self._queue.put(job)

    def _work(self) -> None:
        while not self._stop.is_set():
            job = self._queue.get()
            try:
                if job is None or not self._deliver_with_retries(job):
                    return
                self._spool.done(job["id"])
            finally:
                self._queue.task_done()

    def _deliver_with_retries(self, job: dict[str, Any]) -> bool:
        """True once delivered (or refused for good); False when shutting down with the job still in the spool."""
        delay = 0.25
        while True:
            try:
                self._deliver(job)
                return True
            except MemoryHubError as exc:
                if not exc.retryable:
                    log.warning("memoryhub refused a queued %s for good, dropping it: %s", job["kind"], exc)
                    return True
                log.info("memoryhub %s not delivered yet (%s); retrying in %.1fs", job["kind"], exc, delay)
            if self._stop.wait(delay):
                return False
            delay = min(delay * 2, self.retry_max_delay)

    def _deliver(self, job: dict[str, Any]) -> None:
        sid = job["session_id"]
        if job["kind"] == "turn":
            self.client.turn(sid, job["user"], job["assistant"], space=self.space, workspace=self.workspace,
                             at=job["at"], idempotency_key=job["id"])
        elif job["kind"] == "end":
            self.client.end_session(sid)
        elif job["kind"] == "mirror":
            self._mirror(sid, job)

    def _mirror(self, sid: str, job: dict[str, Any]) -> None:
        action, target, content, old_text = job["action"], job["target"], job["content"], job["old_text"]
        if "memory" in self._tool_names() and (action == "add" or old_text):
            arguments = {"action": action, "target": target, "old_text": old_text or None,
                         "content": content if action != "remove" else None, "workspace": self.workspace}
            self.client.call_tool("memory", sid, {k: v for k, v in arguments.items() if v is not None})
        else:
            text = f"{NOTEBOOKS.get(target, target)} {action}: {content or old_text}"
            self.client.note(sid, text, space=self.space, workspace=self.workspace)

    def flush(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for every queued write to be delivered; True when none is left."""
        with self._queue.all_tasks_done:
            return self._queue.all_tasks_done.wait_for(lambda: self._queue.unfinished_tasks == 0, timeout)

    # Tools

    def _tool_names(self) -> set[str]:
        return {t["name"] for t in self._fetch_tools()}

    def _fetch_tools(self) -> list[dict[str, Any]]:
        if self._tools is None:
            self._tools = [t["function"] for t in self.client.tools()]
        return self._tools

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """The hub's tools as bare {name, description, parameters}; none while the hub cannot be reached."""
        try:
            return self._fetch_tools()
        except MemoryHubError as exc:
            log.warning("memoryhub tools unavailable: %s", exc)
            return []

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run a tool on the hub; the answer (or {"error": {code, message, field}}) as a JSON string."""
        try:
            result: dict[str, Any] = self.client.call_tool(tool_name, kwargs.get("session_id") or self.session_id,
                                                           args)
        except MemoryHubError as exc:
            result = {"error": {"code": exc.code, "message": exc.message, **({"field": exc.field} if exc.field
                                                                              else {})}}
        return json.dumps(result, ensure_ascii=False)

    def shutdown(self) -> None:
        """Deliver queued writes for at most drain_timeout seconds; the rest stay in the spool for the next start."""
        if self._worker is None:
            return
        drained = self.flush(self.drain_timeout)
        self._stop.set()
        self._queue.put(None)
        self._worker.join(timeout=self.client.timeout + 1)
        if not drained:
            log.warning("memoryhub shutdown: undelivered writes kept in %s", self._spool.path)
        self._worker = None
        if self._owns_client:
            self.client.close()
