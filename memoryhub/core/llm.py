"""A small OpenAI-compatible chat client: optional, retried on intermittent failure, tolerant of sloppy JSON.

Everything that uses it must also work without it (rules only), so callers treat any
LLMError as "no model this time" and fall back. Requests go through core.http.HttpClient, so a
model call has its size cap and can be cancelled with the job waiting on it. Besides the default
endpoint (MEMORYHUB_LLM_*) a hub may name more (MEMORYHUB_LLM_ENDPOINTS); a space's
`summarizeProvider` picks the one that writes its summaries.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from django.conf import settings

from memoryhub.core.http import HttpClient, UpstreamError

MAX_ATTEMPTS = 5
MAX_RESPONSE_BYTES = 2 * 1024 * 1024


class LLMError(Exception):
    """The model could not be reached or gave no usable answer."""


class LLMClient:
    """POSTs chat messages to `<base_url>/chat/completions` and returns the first choice's text."""

    def __init__(self, base_url: str, model: str, api_key: str = "", *, timeout: float = 25.0,
                 attempts: int = MAX_ATTEMPTS, backoff: float = 0.5, transport: httpx.BaseTransport | None = None):
        if not base_url.startswith(("http://", "https://")):
            raise LLMError(f"LLM base URL must start with http:// or https://, got {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.backoff = backoff
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = HttpClient(base_url, headers, timeout=timeout, max_bytes=MAX_RESPONSE_BYTES, retries=0,
                                transport=transport)

    def complete(self, messages: list[dict[str, str]], *, timeout: float | None = None) -> str:
        """One chat completion; retries 5xx/429, timeouts and connection errors, never other 4xx."""
        body = {"model": self.model, "messages": messages, "temperature": 0.2}
        last = "no attempt made"
        for attempt in range(self.attempts):
            if attempt and self.backoff and self._http.pause(min(self.backoff * 2 ** (attempt - 1), 4.0)):
                break
            if self._http.cancelled:
                break
            try:
                answer = self._http.request("POST", "/chat/completions", json_body=body, retry=False,
                                            timeout=timeout or self.timeout)
            except UpstreamError as exc:
                if self._http.cancelled:
                    break
                if exc.timeout or exc.retryable:
                    last = exc.message
                    continue
                raise LLMError(exc.message) from exc
            return _content(answer, self.url)
        if self._http.cancelled:
            raise LLMError(f"POST {self.url} cancelled")
        raise LLMError(f"{last} (after {self.attempts} attempts)")

    def __call__(self, messages: list[dict[str, str]]) -> str:
        return self.complete(messages)

    def close(self) -> None:
        self._http.close()


def _content(answer: Any, url: str) -> str:
    """The assistant text of a chat-completions answer, or LLMError when the shape is wrong."""
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"POST {url} answered an unexpected shape") from exc
    if not isinstance(content, str):
        raise LLMError(f"POST {url} answered no text")
    return content


def endpoint_names() -> list[str]:
    """The named model endpoints besides the default one (MEMORYHUB_LLM_ENDPOINTS)."""
    return sorted(settings.MEMORYHUB.get("LLM_ENDPOINTS") or {})


def configured(endpoint: str = "") -> bool:
    """Whether `endpoint` ("" = the default) can be asked: the default needs MEMORYHUB_LLM_BASE_URL."""
    return endpoint in endpoint_names() if endpoint else bool(settings.MEMORYHUB.get("LLM_BASE_URL"))


def get_client(endpoint: str = "", *, model: str = "") -> LLMClient | None:
    """A client of the default endpoint (None when MEMORYHUB_LLM_BASE_URL is unset: rules only), or of the one
    named `endpoint`; a name no endpoint has is an LLMError saying which names there are. `model` replaces the
    endpoint's own model."""
    conf = settings.MEMORYHUB
    if endpoint:
        named = (conf.get("LLM_ENDPOINTS") or {}).get(endpoint)
        if named is None:
            names = ", ".join(endpoint_names()) or "none (MEMORYHUB_LLM_ENDPOINTS is empty)"
            raise LLMError(f"no model endpoint named {endpoint!r}; configured: {names}")
        return LLMClient(named["BASE_URL"], model or named.get("MODEL", ""), named.get("API_KEY", ""),
                         timeout=float(named.get("TIMEOUT") or conf.get("LLM_TIMEOUT") or 25.0))
    if not conf.get("LLM_BASE_URL"):
        return None
    return LLMClient(conf["LLM_BASE_URL"], model or conf.get("LLM_MODEL", ""), conf.get("LLM_API_KEY", ""),
                     timeout=float(conf.get("LLM_TIMEOUT") or 25.0))


_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def parse_json(text: str) -> Any:
    """Parse model output: bare JSON, a ```json fence, prose around it, trailing commas. ValueError if none."""
    text = _THINK.sub("", text or "").strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise ValueError("no JSON object or array in the model output")
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    if end < start:
        raise ValueError("unterminated JSON in the model output")
    return json.loads(_drop_trailing_commas(text[start:end + 1]))


def _drop_trailing_commas(text: str) -> str:
    """Remove commas directly before } or ] outside strings (a common model slip)."""
    out: list[str] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == ",":
            rest = text[i + 1:].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(ch)
    return "".join(out)
