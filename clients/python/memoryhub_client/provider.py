"""MemoryHubProvider: memoryhub as a Hermes agent's external memory, through the memory-provider lifecycle.

The agent calls initialize → system_prompt_block → per turn on_turn_start / prefetch / sync_turn / queue_prefetch
→ on_session_end → shutdown, plus on_pre_compress, on_delegation, on_memory_write and on_session_switch when
those happen. Nothing here may break a turn: reads are bounded and return "" on failure; writes go to the on-disk
spool before the call returns and reach the hub in order through the outbox, which never drops one (see
outbox.py). Configuration mistakes are found at initialize and make is_available() false with the fix in
unavailable_reason(); status() shows what waits and what the hub refused.
"""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from memoryhub_client import settings
from memoryhub_client.client import MemoryHubClient
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.delivery import TURN_RUN, Delivery
from memoryhub_client.outbox import Outbox
from memoryhub_client.spool import Job, Spool, new_seq

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "Long-term memory (memoryhub): what may be relevant is recalled into each turn as short cards ending in "
    "`id=...`; expand one with memory_recall, look further with memory_search, and keep what matters with "
    "memory_save (a decision, a pitfall, a finished step) or memory_note."
)
NOTEBOOKS = {"memory": "MEMORY.md", "user": "USER.md"}
# What a bridged chat is, as Hermes's gateway tells it at initialize. Kept with each turn in the spool and sent
# as the turn's `channel` (delivery.hub_channel), so the hub tags and shows where the turn came from.
CHANNEL_KEYS = ("platform", "chat_type", "chat_id", "chat_name", "user_id", "user_name", "thread_id")
ARCHIVED_IDS_KEPT = 20


class MemoryHubProvider:
    """An external memory provider backed by a memoryhub hub; see settings.py for where its settings come from."""

    def __init__(self, url: str | None = None, token: str | None = None, *, space: str | None = None,
                 workspace: str | None = None, spool_path: str | Path | None = None,
                 hermes_home: str | Path | None = None, timeout: float = 10.0, prefetch_timeout: float = 3.0,
                 drain_timeout: float = 5.0, retry_max_delay: float = 30.0, max_chars: int | None = None,
                 client: MemoryHubClient | None = None):
        self._given = {"url": url, "token": token, "space": space, "workspace": workspace,
                       "spool": str(spool_path) if spool_path else None}
        self._own_client = client is None
        self.client = client
        self.timeout = timeout
        self.prefetch_timeout = prefetch_timeout
        self.drain_timeout = drain_timeout
        self.retry_max_delay = retry_max_delay
        self.max_chars = max_chars
        self.session_id = ""
        self.agent_context = "primary"
        self.channel: dict[str, str] = {}
        self.problem = ""
        self._warn_host: Callable[[str], Any] | None = None
        self._outbox: Outbox | None = None
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None
        self._warm_query: str | None = None
        self._prefetched: str | None = None
        self._tools: list[dict[str, Any]] | None = None
        self._archived: dict[str, collections.deque[str]] = {}
        self._configure(settings.hermes_home(hermes_home))

    def _configure(self, home: Path) -> None:
        """Settle url, token, space, workspace and spool from arguments, environment and `home`'s memoryhub.json."""
        self.home = home
        values = settings.resolve(self._given, home)
        wanted = (values["url"].rstrip("/"), values["token"] or "")
        if self._own_client and (self.client is None or wanted != (self.client.url, self.client.token)):
            if self.client is not None:
                self.client.close()
            self.client = MemoryHubClient(*wanted, timeout=self.timeout)
        self.space = values["space"]
        self.workspace = values["workspace"]
        self.spool_path = Path(values["spool"]) if values["spool"] else None

    @property
    def name(self) -> str:
        return "memoryhub"

    # Configuration

    def is_available(self) -> bool:
        """Configured with an address and a token, and (after initialize) nothing the hub refused as set up."""
        return bool(self.client.url and self.client.token) and not self.problem

    def unavailable_reason(self) -> str:
        """What to fix when is_available() is false, in the words of the settings to change."""
        if not (self.client.url and self.client.token):
            return "set MEMORYHUB_URL and MEMORYHUB_TOKEN (a token from the hub's dashboard, API tokens)"
        return self.problem

    def get_config_schema(self) -> list[dict[str, Any]]:
        """The fields `hermes memory setup` asks for; the token is the one secret and goes to .env."""
        return [dict(field) for field in settings.CONFIG_SCHEMA]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Keep the non-secret settings in `<hermes_home>/memoryhub.json`, read by every later start."""
        path = settings.save(values, Path(hermes_home))
        log.info("memoryhub settings saved to %s", path)

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Open the spool and start sending (earlier runs' writes first), then ask the hub whether turns from this
        token, space and workspace would be taken; a refusal is reported with the setting that fixes it."""
        if self._outbox is not None:  # initialized again: one outbox per provider
            self._outbox.stop(self.timeout + 1)
        if kwargs.get("hermes_home") and Path(kwargs["hermes_home"]) != self.home:
            self._configure(Path(kwargs["hermes_home"]))
        self.session_id = session_id
        self.agent_context = kwargs.get("agent_context") or "primary"
        self.channel = {k: str(kwargs[k]) for k in CHANNEL_KEYS if kwargs.get(k)} if kwargs.get("chat_id") else {}
        self._warn_host = kwargs.get("warning_callback")
        self.problem = ""
        if not self.is_available():
            self._report(f"memoryhub is not configured: {self.unavailable_reason()}")
        delivery = Delivery(self.client, space=self.space, workspace=self.workspace, archived=self._note_archived,
                            other=lambda job: self._mirror(job["session_id"], job))
        self._outbox = Outbox(Spool(self.spool_path or self._default_spool()), delivery.send,
                              on_setup_problem=self._setup_problem, report=self._report,
                              retry_max_delay=self.retry_max_delay, run_size=TURN_RUN)
        self._outbox.start()
        if self.client.token:
            self._check_setup()

    def _default_spool(self) -> Path:
        digest = hashlib.sha256(f"{self.client.url} {self.client.token}".encode()).hexdigest()[:12]
        return self.home / f"memoryhub-spool-{digest}.jsonl"

    def _check_setup(self) -> None:
        try:
            self.client.check_turns(self.session_id or "memoryhub-setup-check", space=self.space,
                                    workspace=self.workspace, timeout=self.prefetch_timeout)
        except MemoryHubError as exc:
            if exc.about_setup:
                self._setup_problem(exc)
            elif exc.retryable:
                self._report(f"memoryhub at {self.client.url} did not answer at start ({exc}); turns wait in "
                             "the spool until it does")
            else:
                self._report(f"memoryhub refused the start-up check: {exc}")

    def _setup_problem(self, exc: MemoryHubError | None) -> None:
        """Called when the hub refuses the setup (exc) or takes a write again after that (None)."""
        if exc is None:
            log.info("memoryhub takes writes again")
            self.problem = ""
            return
        problem = self._diagnose(exc)
        if problem != self.problem:
            self.problem = problem
            self._report(f"memoryhub cannot archive turns: {problem}")

    def _diagnose(self, exc: MemoryHubError) -> str:
        """The hub's refusal in terms of the setting that fixes it."""
        if exc.code == "unauthorized":
            return (f"the hub at {self.client.url} does not accept MEMORYHUB_TOKEN ({exc.message}): set it to a "
                    "token from the dashboard (API tokens) or `manage.py issue_token`")
        try:
            slugs = [s["slug"] for s in self.client.spaces() if s.get("active", True)]
        except MemoryHubError:
            slugs = []
        choose = (f"set MEMORYHUB_SPACE to one of: {', '.join(slugs)}" if slugs
                  else "ask for a token that may use a space")
        if exc.field == "workspace":
            return f"MEMORYHUB_WORKSPACE={self.workspace!r} is refused ({exc.message}): unset it, or {choose}"
        if self.space:
            return f"MEMORYHUB_SPACE={self.space!r} is refused ({exc.message}): {choose}"
        return f"this token may use several spaces and MEMORYHUB_SPACE is not set: {choose}"

    def _report(self, message: str) -> None:
        """A WARNING in the log and, when the host gave one (Hermes's CLI does), its warning callback."""
        log.warning("%s", message)
        if self._warn_host is not None:
            try:
                self._warn_host(message)
            except Exception:  # the host's display must not break memory
                log.debug("memoryhub: the host's warning callback failed", exc_info=True)

    def status(self) -> dict[str, Any]:
        """What the host may show: {"available", "problem", "queued", "held": [{id, kind, session_id, at, error}],
        "retrying": the last transient error or "", "spool": the file keeping them}."""
        outbox = self._outbox
        held = [{"id": j["id"], "kind": j["kind"], "session_id": j["session_id"], "at": j.get("at", ""),
                 "error": j["held"]} for j in (outbox.held if outbox else [])]
        last = outbox.last_error if outbox else None
        return {"available": self.is_available(), "problem": self.unavailable_reason() if not self.is_available()
                else "", "queued": outbox.queued() if outbox else 0, "held": held,
                "retrying": str(last) if last is not None and last.retryable else "",
                "spool": str(outbox.spool.path) if outbox else ""}

    def discard(self, job_id: str) -> bool:
        """Give up on a held write for good (a person's decision); False when none has that id."""
        return self._outbox is not None and self._outbox.discard(job_id)

    def system_prompt_block(self) -> str:
        return SYSTEM_PROMPT

    # Reads

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        """Start fetching this turn's context now, so the prefetch that follows finds it (or waits less)."""
        if message:
            self._warm(message, session_id=self.session_id)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The /context text to inject: this query's warm fetch, else the queued one's, else fetched now, bounded."""
        with self._lock:
            warming, warm_query = self._warming, self._warm_query
        if warming is not None and warm_query == query:
            warming.join(self.prefetch_timeout)
        with self._lock:
            for_query = self._warm_query == query
            done = self._warming is None or not self._warming.is_alive()
            if self._prefetched is not None and (for_query or done):
                ready, self._prefetched, self._warm_query = self._prefetched, None, None
                return ready
            if for_query:
                return ""  # this query's fetch is still out after the bound: the turn does not wait twice
        return self._context(session_id or self.session_id, query)

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Warm the next turn's context in the background; the next prefetch picks it up."""
        self._warm(query, session_id=session_id or self.session_id)

    def _warm(self, query: str, *, session_id: str) -> None:
        """Fetch `query`'s context in the background (one fetch at a time); prefetch takes the result."""
        def warm() -> None:
            text = self._context(session_id, query)
            with self._lock:
                if self._warm_query == query:
                    self._prefetched = text

        with self._lock:
            if self._warming is not None and self._warming.is_alive():
                return
            self._warm_query, self._prefetched = query, None
            self._warming = threading.Thread(target=warm, name="memoryhub-prefetch", daemon=True)
            self._warming.start()

    def _context(self, session_id: str, query: str) -> str:
        """The block without the hub's notebooks: Hermes injects MEMORY.md and USER.md itself (and mirrors them to
        the hub through on_memory_write), so the hub's copy would say the same twice."""
        try:
            return self.client.context(session_id, query, space=self.space, workspace=self.workspace,
                                       max_chars=self.max_chars, notebooks=False,
                                       timeout=self.prefetch_timeout)["text"]
        except MemoryHubError as exc:
            log.warning("memoryhub prefetch failed, injecting nothing: %s", exc)
            return ""

    # Writes: spooled, then sent in order by the outbox

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "",
                  messages: list[dict[str, Any]] | None = None, **kwargs: Any) -> None:
        """Archive the finished turn; the space's settings decide whether a sub-agent's or cron job's turn is kept."""
        self._submit("turn", session_id, user=user_content, assistant=assistant_content,
                     agent_context=self.agent_context, channel=self.channel)

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        """A sub-agent finished: its task and answer as a sub-agent turn, kept where the space's recordSubagents
        is on."""
        self._submit("turn", child_session_id, user=task, assistant=result or "", agent_context="subagent",
                     channel=self.channel)

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        """Mirror a MEMORY.md / USER.md edit: to the hub's `memory` tool when it has one, else as a memory_note."""
        self._submit("mirror", "", action=action, target=target, content=content or "",
                     old_text=(metadata or {}).get("old_text") or "")

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """End the hub session after the turns queued before it; its vault grants expire with it."""
        self._submit("end", "")

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False,
                          rewound: bool = False, **kwargs: Any) -> None:
        """Later writes go to the new session; those already queued keep the session they were made in."""
        if not new_session_id or new_session_id == self.session_id:
            return
        self.session_id = new_session_id
        with self._lock:
            self._prefetched, self._warm_query = None, None  # context fetched for the old session

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Let queued turns land before the transcript is compressed; tell the summary where the full turns are."""
        self.flush(self.drain_timeout)
        ids = list(self._archived.get(self.session_id, ()))
        where = f"; its turns are id={', id='.join(ids)}" if ids else ""
        return (f"The full turns of this conversation are archived in memoryhub (session {self.session_id}{where}); "
                "keep ids of the form id=... so they can be expanded later with memory_recall.")

    def _submit(self, kind: str, session_id: str, **fields: Any) -> None:
        if self._outbox is None:
            raise RuntimeError("memoryhub provider: call initialize() before writing")
        self._outbox.put({"id": uuid.uuid4().hex, "seq": new_seq(), "kind": kind,
                          "session_id": session_id or self.session_id,
                          "at": datetime.now(timezone.utc).isoformat(), **fields})

    def _note_archived(self, sid: str, answer: dict[str, Any]) -> None:
        if answer.get("entry"):
            self._archived.setdefault(sid, collections.deque(maxlen=ARCHIVED_IDS_KEPT)).append(answer["entry"]["id"])

    def _mirror(self, sid: str, job: Job) -> None:
        action, target, content, old_text = job["action"], job["target"], job["content"], job["old_text"]
        if "memory" in self._tool_names() and (action == "add" or old_text):
            arguments = {"action": action, "target": target, "old_text": old_text or None,
                         "content": content if action != "remove" else None, "workspace": self.workspace}
            self.client.call_tool("memory", sid, {k: v for k, v in arguments.items() if v is not None})
        else:
            text = f"{NOTEBOOKS.get(target, target)} {action}: {content or old_text}"
            self.client.note(sid, text, space=self.space, workspace=self.workspace)

    def flush(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for queued writes; True when every one reached the hub (none held)."""
        return self._outbox is not None and self._outbox.flush(timeout)

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
            result = {"error": exc.as_dict()}
        return json.dumps(result, ensure_ascii=False)

    def shutdown(self) -> None:
        """Deliver queued writes for at most drain_timeout seconds (none while the set-up is refused); the rest
        stay in the spool for the next start."""
        if self._outbox is None:
            return
        delivered = self.flush(0 if self.problem else self.drain_timeout)  # a set-up refusal will not pass soon
        left = self.status()
        self._outbox.stop(self.timeout + 1)
        if not delivered:
            self._report(f"memoryhub shutdown: {left['queued']} queued and {len(left['held'])} held writes kept in "
                         f"{self._outbox.spool.path} for the next start")
        self._outbox = None
        if self._own_client:
            self.client.close()


def provider_class() -> type:
    """MemoryHubProvider, made a subclass of Hermes's MemoryProvider when Hermes is importable (its newer optional
    hooks then have their defaults)."""
    try:
        from agent.memory_provider import MemoryProvider
    except ImportError:
        return MemoryHubProvider
    return type("MemoryHubProvider", (MemoryHubProvider, MemoryProvider), {"__module__": __name__})


def register(ctx: Any) -> None:
    """Hermes plugin entry point: registers a provider configured from the environment and memoryhub.json."""
    ctx.register_memory_provider(provider_class()())
