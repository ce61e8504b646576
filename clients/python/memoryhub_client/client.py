"""MemoryHubClient: one typed method per endpoint of the agent API (API.md) and a wrapper per memory tool."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

import httpx

from memoryhub_client.errors import MemoryHubError

Json = dict[str, Any]


def _given(**values: Any) -> Json:
    """The arguments that were actually given (None means "leave it to the hub's default")."""
    return {key: value for key, value in values.items() if value is not None}


def _seconds(value: str | None) -> float | None:
    """A Retry-After header in seconds (the hub sends delta-seconds), None when absent or not a number."""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


class MemoryHubClient:
    """The agent API over HTTP. `url` and `token` default to MEMORYHUB_URL and MEMORYHUB_TOKEN."""

    def __init__(self, url: str | None = None, token: str | None = None, *, timeout: float = 10.0,
                 transport: httpx.BaseTransport | None = None):
        self.url = (url or os.environ.get("MEMORYHUB_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.token = token or os.environ.get("MEMORYHUB_TOKEN") or ""
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        self._http = httpx.Client(base_url=f"{self.url}/api/v1/", headers=headers, timeout=timeout,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, body: Json | None = None, *, timeout: float | None = None) -> Json:
        """One API call; every failure is a MemoryHubError (`unavailable`/`timeout` when the hub is unreachable).

        The body is sent as ASCII JSON, so text the hub refuses (a lone surrogate) comes back as the hub's own
        400 instead of an encoding error on this side."""
        content = None if body is None else json.dumps(body, ensure_ascii=True, allow_nan=False).encode()
        try:
            response = self._http.request(method, path, content=content,
                                          headers={"Content-Type": "application/json"} if content else None,
                                          timeout=self.timeout if timeout is None else timeout)
        except httpx.TimeoutException as exc:
            raise MemoryHubError("timeout", f"{method} {path}: no answer in time ({exc})") from exc
        except httpx.HTTPError as exc:
            raise MemoryHubError("unavailable", f"{method} {path}: {exc}") from exc
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.is_success and isinstance(data, dict):
            return data
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            raise MemoryHubError(str(error.get("code", "internal")), str(error.get("message", "")),
                                 response.status_code, error.get("field"),
                                 _seconds(response.headers.get("Retry-After")))
        code = "unavailable" if response.status_code in (502, 503, 504) else "internal"
        raise MemoryHubError(code, f"{method} {path}: HTTP {response.status_code}", response.status_code)

    # Endpoints

    def health(self) -> Json:
        return self.request("GET", "health")

    def providers(self) -> list[Json]:
        return self.request("GET", "providers")["providers"]

    def spaces(self) -> list[Json]:
        return self.request("GET", "spaces")["spaces"]

    def create_space(self, slug: str, name: str, *, provider: str | None = None, access: str | None = None,
                     description: str | None = None, config: Json | None = None,
                     workspace: str | None = None) -> Json:
        return self.request("POST", "spaces", _given(slug=slug, name=name, provider=provider, access=access,
                                                     description=description, config=config, workspace=workspace))

    def turn(self, session_id: str, user: str, assistant: str, *, space: str | None = None, at: str | None = None,
             idempotency_key: str | None = None, workspace: str | None = None, agent_context: str | None = None,
             channel: Json | None = None) -> Json:
        """Archive one finished turn; the same idempotency_key again returns the same entry, written once.

        `agent_context` (primary, subagent, cron, flush) lets the space decide whether the turn is archived; a
        skipped turn answers {"entry": None, "skipped": why}. `channel` names a bridged chat: {"platform",
        "chat_type": "group" | "private", "chat_id", "user_id", "chat_name", "user_name", "thread_id", "bridge"}."""
        return self.request("POST", "turns", _given(session_id=session_id, user=user, assistant=assistant, space=space,
                                                    at=at, idempotency_key=idempotency_key, workspace=workspace,
                                                    agent_context=agent_context, channel=channel))

    def turns(self, turns: list[Json], *, space: str | None = None, workspace: str | None = None) -> list[Json]:
        """Archive up to 100 turns in one request, each a dict of turn()'s fields with its own idempotency_key.

        One result per turn, in order: {"status": 201 | 200, "entry", "facts", "redactions"} or
        {"status": 4xx | 5xx, "error": {...}}; a refused turn does not stop the others being written."""
        return self.request("POST", "turns", _given(turns=turns, space=space, workspace=workspace))["results"]

    def check_turns(self, session_id: str, *, space: str | None = None, workspace: str | None = None,
                    timeout: float | None = None) -> Json:
        """Would turns from this token, space and workspace be taken? Asked without writing anything: a `flush`
        turn, which the hub checks and routes like any turn and never archives. Raises the hub's refusal."""
        return self.request("POST", "turns", _given(session_id=session_id, user="(memoryhub client: set-up check)",
                                                    assistant="", space=space, workspace=workspace,
                                                    agent_context="flush"), timeout=timeout)

    def context(self, session_id: str, query: str = "", *, space: str | None = None, max_chars: int | None = None,
                workspace: str | None = None, skip_tags: list[str] | None = None, notebooks: bool | None = None,
                timeout: float | None = None) -> Json:
        """The budgeted block to inject before a turn: {"text", "chars", "items"}. `skip_tags` (the API's skipTags)
        replaces the tags whose memories stay out, by default ["test", "archived"]; [] leaves none out.
        `notebooks=False` leaves out the pinned MEMORY.md / USER.md, for a client that injects its own."""
        return self.request("POST", "context", _given(session_id=session_id, query=query, space=space,
                                                      max_chars=max_chars, workspace=workspace, skipTags=skip_tags,
                                                      notebooks=notebooks),
                            timeout=timeout)

    def end_session(self, session_id: str) -> int:
        """End the session; returns how many vault grants expired with it."""
        return self.request("POST", f"sessions/{quote(session_id, safe='')}/end")["expired_grants"]

    def tools(self) -> list[Json]:
        """Tool schemas in OpenAI function format: [{"type": "function", "function": {...}}]."""
        return self.request("GET", "tools")["tools"]

    def call_tool(self, name: str, session_id: str, arguments: Json | None = None) -> Json:
        return self.request("POST", f"tools/{quote(name, safe='')}",
                            {"session_id": session_id, "arguments": arguments or {}})["result"]

    # Tools

    def save(self, session_id: str, category: str, title: str, body: str, *, tags: list[str] | None = None,
             related: list[str] | None = None, at: str | None = None, space: str | None = None,
             workspace: str | None = None) -> Json:
        return self.call_tool("memory_save", session_id, _given(category=category, title=title, body=body, tags=tags,
                                                                related=related, at=at, space=space,
                                                                workspace=workspace))

    def note(self, session_id: str, text: str, *, space: str | None = None, workspace: str | None = None) -> Json:
        return self.call_tool("memory_note", session_id, _given(text=text, space=space, workspace=workspace))

    def search(self, session_id: str, query: str, *, scope: str | None = None, limit: int | None = None,
               space: str | None = None, workspace: str | None = None,
               skip_tags: list[str] | None = None) -> list[Json]:
        """memory_search; `skip_tags` replaces the default ["test"] (archived memories are found); [] finds all."""
        return self.call_tool("memory_search", session_id, _given(query=query, scope=scope, limit=limit, space=space,
                                                                  workspace=workspace, skipTags=skip_tags))["results"]

    def recall(self, session_id: str, id: str) -> Json:
        return self.call_tool("memory_recall", session_id, {"id": id})

    def forget(self, session_id: str, id: str) -> Json:
        return self.call_tool("memory_forget", session_id, {"id": id})

    def link(self, session_id: str, source: str, target: str, kind: str | None = None) -> Json:
        """memory_link: link two memories of one space (native); returns {"from", "to", "kind"}."""
        return self.call_tool("memory_link", session_id, _given(kind=kind, **{"from": source, "to": target}))

    def feedback(self, session_id: str, id: str, verdict: str) -> Json:
        """memory_feedback: "helpful" or "wrong" where the provider keeps trust; returns {"id", "trust"}."""
        return self.call_tool("memory_feedback", session_id, {"id": id, "verdict": verdict})

    def profile(self, session_id: str, action: str = "get", profile: str | None = None, *, space: str | None = None,
                workspace: str | None = None) -> Json:
        return self.call_tool("memory_profile", session_id, _given(action=action, profile=profile, space=space,
                                                                   workspace=workspace))

    def facts(self, session_id: str, action: str = "list", *, subject: str | None = None,
              predicate: str | None = None, value: str | None = None, all: bool | None = None,
              space: str | None = None, workspace: str | None = None) -> list[Json]:
        return self.call_tool("memory_facts", session_id, _given(action=action, subject=subject, predicate=predicate,
                                                                 value=value, all=all, space=space,
                                                                 workspace=workspace))["facts"]

    def request_access(self, session_id: str, *, project: str | None = None, category: str | None = None,
                       since: str | None = None, until: str | None = None, query: str | None = None,
                       limit: int | None = None, space: str | None = None) -> Json:
        """memory_request: ask a person to open vault entries; returns {"request_id", "matched"}."""
        return self.call_tool("memory_request", session_id, _given(project=project, category=category, query=query,
                                                                   limit=limit, space=space, **{"from": since,
                                                                                                "to": until}))

    def status(self, session_id: str) -> Json:
        """memory_status: pending requests and live grants of this session."""
        return self.call_tool("memory_status", session_id)

    def read(self, session_id: str, request_id: str) -> list[Json]:
        """memory_read: the entries a person approved for this session's request."""
        return self.call_tool("memory_read", session_id, {"request_id": request_id})["entries"]
