"""The optional re-ranker: a cross-encoder at a /rerank endpoint re-orders search's best candidates; off, failing or
answering nonsense, search keeps the order its words gave."""

import pytest

from memoryhub.memories.recall import cards as recall
from memoryhub.memories.search import ranking
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from tests.fakes_llm import FakeJsonServer


class FakeReranker(FakeJsonServer):
    """Scores a document 0.9 when it holds the word `favourite`, else 0.1, as a cross-encoder that knew better would;
    `mode` answers a failure instead: "down" (500), "short" (a result missing), "logits" (raw scores)."""

    def __init__(self, favourite: str):
        super().__init__()
        self.favourite, self.mode = favourite, "ok"

    def respond(self, body: dict) -> tuple[int, dict]:
        if self.mode == "down":
            return 500, {"error": {"message": "model not loaded"}}
        scores = [0.9 if self.favourite in d else 0.1 for d in body["documents"]]
        if self.mode == "logits":
            scores = [8.0 if s > 0.5 else -8.0 for s in scores]
        results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
        return 200, {"results": results[:-1] if self.mode == "short" else results}


@pytest.fixture
def space(db):
    space = MemorySpace.objects.create(slug="notes", name="notes")
    fillers = [f"The heating bill of month {n} was paid." for n in range(8)]
    for body in ["The boiler service is due, the boiler makes noise.", "Call the landlord about the heating.",
                 "The boiler room key hangs by the door.", *fillers]:
        gateway.write(space, gateway.Draft(body=body))
    return space


def order(space):
    return [c.summary for c in recall.search([space], "boiler heating", limit=5)]


@pytest.fixture
def reranker(settings):
    with FakeReranker("landlord") as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "RERANK_BASE_URL": fake.base_url, "RERANK_MODEL": "fake-ce",
                              "RERANK_API_KEY": "sk-rerank-secret", "RERANK_WEIGHT": 0.7}
        yield fake


def test_search_is_not_reranked_unless_a_reranker_is_configured(space):
    assert "landlord" not in order(space)[0]


def test_a_configured_reranker_reorders_the_best_candidates(space, reranker):
    assert "landlord" in order(space)[0]
    sent = reranker.requests[-1]
    assert sent["path"] == "/v1/rerank" and sent["auth"] == "Bearer sk-rerank-secret"
    assert sent["body"]["model"] == "fake-ce" and sent["body"]["query"] == "boiler heating"
    assert len(sent["body"]["documents"]) == 5
    with ranking.without("rerank"):
        assert "landlord" not in order(space)[0]


def test_raw_logits_are_read_through_a_sigmoid(space, reranker):
    reranker.mode = "logits"
    assert "landlord" in order(space)[0]


@pytest.mark.parametrize("mode", ["down", "short"])
def test_a_failing_reranker_leaves_the_order_by_words(space, reranker, mode, caplog):
    reranker.mode = mode
    assert "landlord" not in order(space)[0]
    assert "re-ranking failed" in caplog.text and "sk-rerank-secret" not in caplog.text
