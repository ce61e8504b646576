"""Optional re-ranking of a search's best candidates by a local cross-encoder (off unless configured).

The endpoint speaks the rerank shape that vLLM, llama.cpp's server, Hugging Face TEI, Infinity and OpenVINO Model
Server share with Cohere and Jina: `POST <base>/rerank` with `{"model", "query", "documents": [str], "top_n"}`,
answered by `{"results": [{"index", "relevance_score"}]}` (docs.openvino.ai, "Cohere API rerank endpoint";
docs.haystack.deepset.ai, "VLLMRanker"). `MEMORYHUB_RERANK_BASE_URL` switches it on; a failing or slow service
leaves the order as the words gave it. Calls go through memoryhub.core.http: a timeout, a body cap, the key never
in an error.
"""

from __future__ import annotations

import logging
import math
import threading

from django.conf import settings

from memoryhub.core.http import HttpClient, UpstreamError, outside_any_scope

log = logging.getLogger(__name__)

MAX_DOCUMENT_CHARS = 2000  # a cross-encoder reads a few hundred tokens of each
MAX_RESPONSE_BYTES = 1024 * 1024


def configured() -> bool:
    return bool(settings.MEMORYHUB.get("RERANK_BASE_URL"))


class Reranker:
    def __init__(self, base_url: str, model: str, api_key: str = "", *, timeout: float = 2.0):
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = HttpClient(base_url, headers, timeout=timeout, max_bytes=MAX_RESPONSE_BYTES, retries=0)

    def scores(self, query: str, documents: list[str]) -> list[float]:
        """One 0–1 score per document, in order; UpstreamError when the service fails or answers nonsense."""
        if not documents:
            return []
        uri = f"{self._http.endpoint}/rerank"
        answer = self._http.post("/rerank", {"model": self.model, "query": query, "top_n": len(documents),
                                             "documents": [(d or " ")[:MAX_DOCUMENT_CHARS] for d in documents]})
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise UpstreamError(f"POST {uri} answered no results", uri=uri)
        found: list[float | None] = [None] * len(documents)
        for item in results:
            index = item.get("index") if isinstance(item, dict) else None
            score = item.get("relevance_score", item.get("score")) if isinstance(item, dict) else None
            if not isinstance(index, int) or not 0 <= index < len(documents) or found[index] is not None \
                    or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise UpstreamError(f"POST {uri} answered a result without a valid index and score", uri=uri)
            found[index] = float(score)
        if any(score is None for score in found):
            raise UpstreamError(f"POST {uri} left documents unscored", uri=uri)
        return unit_scores(found)


def unit_scores(scores: list[float]) -> list[float]:
    """Scores on 0–1: as given when they already are (most servers apply a sigmoid), else through one (logits)."""
    if all(0.0 <= s <= 1.0 for s in scores):
        return scores
    return [1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, s)))) for s in scores]


_client: tuple[tuple, Reranker] | None = None
_lock = threading.Lock()


def scores(query: str, documents: list[str]) -> list[float] | None:
    """The configured re-ranker's scores, or None when it is off or failed (the failure is logged, search goes on)."""
    global _client
    conf = settings.MEMORYHUB
    config = tuple(conf.get(k) for k in ("RERANK_BASE_URL", "RERANK_MODEL", "RERANK_API_KEY", "RERANK_TIMEOUT"))
    if not config[0]:
        return None
    with _lock:
        if _client is None or _client[0] != config:
            _client = (config, outside_any_scope(lambda: Reranker(config[0], config[1] or "", config[2] or "",
                                                                   timeout=float(config[3] or 2.0))))
        client = _client[1]
    try:
        return client.scores(query, documents)
    except UpstreamError as exc:
        log.warning("re-ranking failed, keeping the order by words: %s", exc.message)
        return None
