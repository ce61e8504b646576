"""Optional embeddings from an OpenAI-compatible `POST <base>/embeddings` (Ollama, vLLM, llama.cpp, OpenAI…).

Unset (`MEMORYHUB_EMBEDDINGS_BASE_URL` empty), the hub searches by words only. Set, the worker
embeds native entries and search adds their nearest neighbours (memories/search/vectors.py). Calls go
through memoryhub.core.http like every remote call: a timeout, a body cap, the key never in an error.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from django.conf import settings

from memoryhub.core.http import HttpClient, UpstreamError, outside_any_scope

MAX_INPUT_CHARS = 4000  # models read a few hundred tokens at most; the rest only costs bandwidth
MAX_DIMS = 8192
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
QUERY_CACHE = 512


class Embedder:
    """Turns texts into unit-length float32 rows with one model."""

    def __init__(self, base_url: str, model: str, api_key: str = "", *, timeout: float = 30.0, retries: int = 1):
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = HttpClient(base_url, headers, timeout=timeout, max_bytes=MAX_RESPONSE_BYTES, retries=retries)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per text, in order; UpstreamError when the service fails or answers nonsense."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        body = {"model": self.model, "input": [(t or " ")[:MAX_INPUT_CHARS] for t in texts]}
        answer = self._http.post("/embeddings", body, retry=True)  # embedding the same text twice is harmless
        return unit_rows(answer, len(texts), f"{self._http.endpoint}/embeddings")

    def close(self) -> None:
        self._http.close()


def unit_rows(answer, count: int, uri: str) -> np.ndarray:
    """The `data[].embedding` lists of an answer as unit rows ordered by `index`, after checking its shape."""
    def bad(why: str) -> UpstreamError:
        return UpstreamError(f"POST {uri} answered {why}", uri=uri)

    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise bad(f"{len(data) if isinstance(data, list) else 'no'} embeddings for {count} inputs")
    rows: list = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or rows[index] is not None:
            raise bad("embeddings with missing or repeated indexes")
        if not isinstance(vector, list) or not 0 < len(vector) <= MAX_DIMS:
            raise bad("an embedding that is not a list of 1 to 8192 numbers")
        rows[index] = vector
    if len({len(row) for row in rows}) != 1:
        raise bad("embeddings of different lengths")
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise bad("an embedding with a value that is not a number") from exc
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not np.all(np.isfinite(matrix)) or not np.all(norms > 0):
        raise bad("an embedding that is zero or not finite")
    return matrix / norms


def configured() -> bool:
    return bool(settings.MEMORYHUB.get("EMBEDDINGS_BASE_URL"))


def model_name() -> str:
    """What the stored vectors are labelled with: the configured model, or the endpoint when no model is named."""
    conf = settings.MEMORYHUB
    return (conf.get("EMBEDDINGS_MODEL") or conf.get("EMBEDDINGS_BASE_URL") or "")[:200]


def embedder(*, for_query: bool = False) -> Embedder:
    """A client for the worker (patient, one retry) or for a search (short timeout, no retry)."""
    conf = settings.MEMORYHUB
    timeout = float(conf.get("EMBEDDINGS_QUERY_TIMEOUT" if for_query else "EMBEDDINGS_TIMEOUT") or 10.0)
    return Embedder(conf["EMBEDDINGS_BASE_URL"], conf.get("EMBEDDINGS_MODEL", ""), conf.get("EMBEDDINGS_API_KEY", ""),
                    timeout=timeout, retries=0 if for_query else 1)


class _QueryVectors:
    """Recent query vectors of this process: agents ask about the same things again and again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vectors: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._client: tuple[tuple, Embedder] | None = None

    def get(self, text: str) -> np.ndarray:
        conf = settings.MEMORYHUB
        config = tuple(conf.get(k) for k in ("EMBEDDINGS_BASE_URL", "EMBEDDINGS_MODEL", "EMBEDDINGS_API_KEY",
                                             "EMBEDDINGS_QUERY_TIMEOUT"))
        key = (config, text)
        with self._lock:
            if key in self._vectors:
                self._vectors.move_to_end(key)
                return self._vectors[key]
            if self._client is None or self._client[0] != config:
                self._client = (config, outside_any_scope(lambda: embedder(for_query=True)))
            client = self._client[1]
        vector = client.embed([text])[0]
        with self._lock:
            self._vectors[key] = vector
            while len(self._vectors) > QUERY_CACHE:
                self._vectors.popitem(last=False)
        return vector


query_vector = _QueryVectors().get

