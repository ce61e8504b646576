"""A small OpenAI-compatible `/v1/embeddings` server on 127.0.0.1:0 whose vectors know a few synonyms.

Each word is mapped to its synonym group's first word, and each such word gets its own axis (no
collisions), so "automobile" and "car" share one while no text shares a word with the other. `mode`
switches the answer to a failure: "down" (500), "short" (one vector too few), "nan", "slow"; a
text with "TOO-LONG" in it is refused with 413, as a server refuses input over its model's limit.
"""

from __future__ import annotations

import math
import re
import threading
import time

from tests.fakes_llm import FakeJsonServer

DIMS = 256
SYNONYMS = [("car", "automobile", "vehicle", "sedan"), ("doctor", "physician", "clinic"),
            ("invoice", "bill", "payment"), ("dog", "puppy", "hound")]
_CANONICAL = {word: group[0] for group in SYNONYMS for word in group}
_AXES: dict[str, int] = {}
_AXES_LOCK = threading.Lock()


def vector(text: str) -> list[float]:
    values = [0.0] * DIMS
    for word in re.findall(r"[a-z]+", text.lower()):
        word = _CANONICAL.get(word, word)
        with _AXES_LOCK:
            axis = _AXES.setdefault(word, len(_AXES) % DIMS)
        values[axis] += 1.0
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values] if any(values) else [1.0] + [0.0] * (DIMS - 1)


class FakeEmbeddings(FakeJsonServer):
    def __init__(self):
        super().__init__()
        self.mode = "ok"
        self.slow_answers = 0  # how many "slow" answers it has finished: a caller that waited has seen one

    def respond(self, body: dict) -> tuple[int, dict]:
        if self.mode == "down":
            return 500, {"error": {"message": "model not loaded"}}
        if self.mode == "slow":
            time.sleep(3)
            self.slow_answers += 1
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if any("TOO-LONG" in t for t in texts):
            return 413, {"error": {"message": "input is longer than the model's 512 tokens"}}
        data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]
        if self.mode == "short":
            data = data[:-1]
        if self.mode == "nan":
            data[0]["embedding"] = ["NaN"] * DIMS
        return 200, {"object": "list", "model": body.get("model"), "data": data[::-1]}  # any order: index counts

    def embedded_texts(self) -> list[str]:
        return [t for r in self.requests for t in (r["body"]["input"] if isinstance(r["body"]["input"], list)
                                                   else [r["body"]["input"]])]
