"""LoCoMo benchmarks (../shared/bench/README.md) through the real write, search and /context paths.

Each conversation becomes one space; each dialog turn one entry ("<speaker>: <text>", the session's
date and id). Every answerable question is searched; evidence recall@k is the mean fraction of its
evidence turns in the top k, session-level recall@10 the share of its evidence sessions among the sessions
of the top 10 turns. A plain Okapi BM25 over the same tokens runs beside it as the baseline, MemPalace's
published figure beside the session-level one (mempalace.py), and every ranking signal is switched off in
turn (the ablation). Then every question asks /api/v1/context for its block (context_block.py: what the agent
is given). `LOCOMO_DATA` (or `run(data=…)`) points it at another file of the same shape, such as the Chinese
conversation in bench/data/. A ranking constant is chosen by locomo_folds.py: on five conversations, measured on
the sixth.
"""

from __future__ import annotations

import json
import logging
import math
import os
import statistics
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.test import override_settings

from bench import context_block, mempalace

KS = (1, 5, 10, 20)
DATA = Path(os.environ.get("LOCOMO_DATA")
            or Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo" / "locomo_dev.json")
# A Chinese conversation of our own in the same shape (112 turns, 52 questions with evidence): segmentation and
# the signals measured on Chinese too.
CHINESE = Path(__file__).resolve().parent / "data" / "locomo_zh.json"


def sessions(conversation: dict):
    """(session id, datetime, the date as written, turns) in order."""
    n = 1
    while f"session_{n}" in conversation:
        raw = conversation.get(f"session_{n}_date_time", "")
        try:
            at = datetime.strptime(raw, "%I:%M %p on %d %B, %Y")
        except ValueError:
            at = datetime(2023, 1, 1)
        yield f"S{n}", at, raw, conversation[f"session_{n}"]
        n += 1


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shared a photo: {turn['blip_caption']}]"
    return text


def questions(sample: dict):
    """(question, evidence dialog ids, gold answer) of the answerable questions."""
    for qa in sample["qa"]:
        if qa.get("category") in (1, 2, 3, 4) and qa.get("evidence"):
            yield qa["question"], set(qa["evidence"]), qa.get("answer", "")


def recall_at(ranked: list[str], evidence: set[str], k: int) -> float:
    return len(evidence & set(ranked[:k])) / len(evidence)


def session_of(dia_id: str) -> str:
    """"D3:12" → "3": the session a dialog turn was said in."""
    return dia_id.split(":")[0].lstrip("D")


def session_recall(ranked: list[str | None], evidence: set[str], k: int = 10) -> float:
    """The share of the evidence's sessions among the sessions the top k turns come from."""
    wanted = {session_of(d) for d in evidence}
    return len(wanted & {session_of(d) for d in ranked[:k] if d}) / len(wanted)


class Scores:
    """Evidence recall@k and session-level recall@10 of one ranking, over questions."""

    def __init__(self):
        self.at = {k: [] for k in KS}
        self.sessions: list[float] = []

    def add(self, ranked: list[str | None], evidence: set[str]) -> None:
        for k in KS:
            self.at[k].append(recall_at(ranked, evidence, k))
        self.sessions.append(session_recall(ranked, evidence))

    def means(self) -> dict:
        return {**{k: statistics.mean(v) for k, v in self.at.items()}, "sessions": statistics.mean(self.sessions)}


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) in memory: the baseline."""

    def __init__(self, docs: list[tuple[str, list[str]]], k1: float = 1.2, b: float = 0.75):
        self.docs = docs
        self.k1, self.b = k1, b
        self.avg = sum(len(t) for _, t in docs) / max(1, len(docs))
        df = Counter(tok for _, toks in docs for tok in set(toks))
        n = len(docs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.tf = [Counter(toks) for _, toks in docs]

    def rank(self, query: list[str], k: int) -> list[str]:
        scores = []
        for (doc_id, toks), tf in zip(self.docs, self.tf):
            s = 0.0
            for q in set(query):
                if q in tf:
                    f = tf[q]
                    s += self.idf[q] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * len(toks) / self.avg))
            if s:
                scores.append((s, doc_id))
        scores.sort(reverse=True)
        return [d for _, d in scores[:k]]


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


@dataclass
class Loaded:
    """One conversation written into its own space, as the bench searches it."""

    space: object
    dia_of: dict[int, str]  # entry id -> dialog id
    docs: list[tuple[str, list[str]]]  # (dialog id, tokens): the BM25 baseline's corpus
    lines: dict[str, tuple[str, str]]  # dialog id -> (its packed line, its words after "<speaker>:")
    ingest_seconds: float = 0.0
    enrich_seconds: float = 0.0
    embed_seconds: float = 0.0


def load(sample: dict, slug: str, semantic: bool = False) -> Loaded:
    """Write one conversation's turns through the real write path, then run the worker's enrichment on them."""
    from django.utils import timezone

    from memoryhub.memories.growth import enrich
    from memoryhub.memories.models import Category, Kind
    from memoryhub.memories.search import vectors
    from memoryhub.memories.text.tokens import tokenize
    from memoryhub.memories.write import gateway
    from memoryhub.spaces.models import MemorySpace

    space = MemorySpace.objects.create(slug=slug, name=sample.get("sample_id", slug))
    loaded = Loaded(space, {}, [], {})
    started = time.perf_counter()
    for session_id, at, written_at, turns in sessions(sample["conversation"]):
        for turn in turns:
            text = turn_text(turn)
            draft = gateway.Draft(kind=Kind.TURN, category=Category.CONTEXT, body=text,
                                  at=timezone.make_aware(at), session_id=session_id)
            written = gateway.write(space, draft)
            loaded.dia_of[written.entry.pk] = turn["dia_id"]
            loaded.docs.append((turn["dia_id"], tokenize(text)))
            said = text.split(": ", 1)[1]
            loaded.lines[turn["dia_id"]] = (context_block.turn_line(written_at, turn["speaker"], said), said)
    loaded.ingest_seconds = time.perf_counter() - started
    started = time.perf_counter()
    with words_only():
        enrich.run(space.pk)  # what the worker does after the writes: edges and topics
    loaded.enrich_seconds = time.perf_counter() - started
    if semantic:
        started = time.perf_counter()
        vectors.embed_pending(space.pk, raise_errors=True)
        loaded.embed_seconds = time.perf_counter() - started
    return loaded


def run(limit_conversations: int | None = None, data: Path = DATA, ablation: bool = True,
        slug: str = "locomo") -> dict:
    from memoryhub.memories.recall import cards as recall
    from memoryhub.memories.search import ranking, vectors
    from memoryhub.memories.text.tokens import tokenize

    semantic = vectors.enabled()  # MEMORYHUB_EMBEDDINGS_BASE_URL set: also measure search with embeddings

    samples = json.loads(Path(data).read_text())[:limit_conversations]
    ours, blended, base = Scores(), Scores(), Scores()
    switched = {name: Scores() for name in (*ranking.SIGNALS, "all")} if ablation else {}
    latencies: list[float] = []
    blended_latencies: list[float] = []
    block = Blocks()
    ingest_seconds = enrich_seconds = embed_seconds = 0.0
    rerank_cost: dict = {}
    turns_written = 0
    for index, sample in enumerate(samples):
        loaded = load(sample, f"{slug}-{index}", semantic)
        space, dia_of, docs, lines = loaded.space, loaded.dia_of, loaded.docs, loaded.lines
        turns_written += len(docs)
        ingest_seconds += loaded.ingest_seconds
        enrich_seconds += loaded.enrich_seconds
        embed_seconds += loaded.embed_seconds
        baseline = BM25(docs)
        for question, evidence, _answer in questions(sample):
            with words_only():
                ours.add(_ranked(recall, space, question, dia_of, latencies), evidence)
            base.add(baseline.rank(tokenize(question), max(KS)), evidence)
            if semantic:
                blended.add(_ranked(recall, space, question, dia_of, blended_latencies), evidence)
        for name, scores in switched.items():
            with words_only(), ranking.without(*(ranking.SIGNALS if name == "all" else [name])):
                for question, evidence, _answer in questions(sample):
                    scores.add(_ranked(recall, space, question, dia_of, []), evidence)
        if index == 0:
            rerank_cost = _rerank_cost(recall, space, [q for q, _, _ in questions(sample)], dia_of)
        # After the searches: an agent's /context counts as recall and bumps what it shows.
        with words_only():
            for question, evidence, answer in questions(sample):
                block.measure(space.slug, question, evidence, answer, lines, baseline.rank(tokenize(question), 200))
    return {
        "questions": len(latencies),
        "turns": turns_written,
        "ingest_turns_per_s": turns_written / ingest_seconds if ingest_seconds else 0.0,
        "enrich_turns_per_s": turns_written / enrich_seconds if enrich_seconds else 0.0,
        "memoryhub": ours.means(),
        "bm25": base.means(),
        "ablation": {name: scores.means() for name, scores in switched.items()},
        "mempalace": mempalace.session_recall([s.get("sample_id") for s in samples]),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "context": block.result(),
        "rerank_cost": rerank_cost,
        "embeddings": {
            "model": settings.MEMORYHUB["EMBEDDINGS_MODEL"], "recall": blended.means(),
            "p50_ms": percentile(blended_latencies, 50), "p95_ms": percentile(blended_latencies, 95),
            "embed_turns_per_s": turns_written / embed_seconds,
        } if semantic else None,
    }


class Blocks:
    """The context metric per question for memoryhub's block, packed BM25 and the oracle."""

    def __init__(self):
        self.client = None
        self.scores: dict[str, dict[str, list[float]]] = {
            name: {"answer": [], "evidence": [], "evidence_words": []} for name in ("memoryhub", "bm25", "oracle")}
        self.latencies: list[float] = []
        self.chars: list[int] = []

    def measure(self, slug: str, question: str, evidence: set[str], answer, lines: dict[str, tuple[str, str]],
                bm25_ranked: list[str]) -> str:
        """Score one question's three blocks; returns memoryhub's."""
        if self.client is None:
            self.client = context_block.ContextClient()
        with override_settings(MEMORYHUB={**settings.MEMORYHUB, "RATE_LIMIT_PER_MINUTE": 0}):
            ours = self.client.block(slug, question, self.latencies)
        self.chars.append(len(ours))
        ordered = sorted(evidence)
        blocks = {
            "memoryhub": ours,
            "bm25": context_block.packed([lines[d][0] for d in bm25_ranked]),
            "oracle": "\n".join(lines[d][0] for d in ordered if d in lines),
        }
        said = [lines[d][1] if d in lines else None for d in ordered]
        for name, text in blocks.items():
            self.scores[name]["answer"].append(context_block.answer_in(text, answer))
            self.scores[name]["evidence"].append(context_block.evidence_seen(text, said))
            self.scores[name]["evidence_words"].append(context_block.evidence_seen(text, said, strict=False))
        return ours

    def result(self) -> dict:
        means = {name: {metric: statistics.mean(v) for metric, v in by.items()} for name, by in self.scores.items()}
        return {**means, "p50_ms": percentile(self.latencies, 50), "p95_ms": percentile(self.latencies, 95),
                "mean_chars": statistics.mean(self.chars)}


def _ranked(recall, space, question: str, dia_of: dict, latencies: list[float]) -> list[str]:
    started = time.perf_counter()
    cards = recall.search([space], question, limit=max(KS), recallable_only=True)
    latencies.append((time.perf_counter() - started) * 1000)
    return [dia_of.get(c.entry.pk) for c in cards if c.entry is not None]


def _rerank_cost(recall, space, asked: list[str], dia_of: dict) -> dict:
    """Search latency with re-ranking on beside off, on one conversation's questions: against the configured
    re-ranker when there is one, else against a stub that answers at once (the hub's own share of the cost)."""
    from bench.rerank_stub import Stub

    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    timings: dict[str, list[float]] = {"off": [], "on": []}
    real = bool(settings.MEMORYHUB.get("RERANK_BASE_URL"))
    with words_only(), Stub() as stub:
        on = settings.MEMORYHUB if real else {**settings.MEMORYHUB, "RERANK_BASE_URL": stub.base_url}
        for question in asked:
            with override_settings(MEMORYHUB={**settings.MEMORYHUB, "RERANK_BASE_URL": ""}):
                _ranked(recall, space, question, dia_of, timings["off"])
            with override_settings(MEMORYHUB=on):
                _ranked(recall, space, question, dia_of, timings["on"])
    return {"model": settings.MEMORYHUB.get("RERANK_MODEL") if real else None, "questions": len(asked),
            **{f"{k}_{p}": percentile(v, p) for k, v in timings.items() for p in (50, 95)}}


@contextmanager
def words_only():
    """Search and enrichment as without an embedding service: the baseline of the embedding figures."""
    with override_settings(MEMORYHUB={**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}):
        yield


def _row(label: str, scores: dict) -> str:
    return f"{label:24}" + "".join(f"{scores[k]:<9.3f}" for k in KS) + f"{scores['sessions']:.3f}"


def report(result: dict, title: str = "LoCoMo dev") -> str:
    header = f"{'':24}" + "".join(f"R@{k:<7}" for k in KS) + "session R@10"
    lines = [
        f"{title}: {result['turns']} turns, {result['questions']} questions",
        header,
        _row("memoryhub", result["memoryhub"]),
        _row("BM25 baseline", result["bm25"]),
    ]
    palace = result.get("mempalace")
    if palace:
        lines.append(f"MemPalace hybrid v5 (no model) session R@10 on the same conversations: {palace['recall']:.3f} "
                     f"({palace['questions']} questions; its top 10 sessions, from its committed per-question "
                     f"results: {mempalace.DATA.relative_to(mempalace.DATA.parent.parent.parent)})")
    lines += [
        f"search p50 {result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms; "
        f"ingest {result['ingest_turns_per_s']:.0f} turns/s (in-process write pipeline), "
        f"{result['enrich_turns_per_s']:.0f} turns/s (the worker's edges and topics)",
        "targets: R@10 >= 0.75, session R@10 >= 0.93, search p95 <= 25 ms",
    ]
    cost = result.get("rerank_cost")
    if cost:
        who = f"the re-ranker {cost['model']}" if cost["model"] else "a stub /rerank on loopback answering at once"
        lines.append(f"re-ranking the best 20 (off by default), {cost['questions']} questions against {who}: search "
                     f"p50 / p95 {cost['on_50']:.1f} / {cost['on_95']:.1f} ms, without {cost['off_50']:.1f} / "
                     f"{cost['off_95']:.1f} ms")
    if result.get("ablation"):
        lines += ["each ranking signal switched off alone (what it adds is the drop from memoryhub's row):", header]
        lines += [_row(f"without {name}" if name != "all" else "no signal (words only)", scores)
                  for name, scores in result["ablation"].items()]
    ctx = result["context"]
    lines += [
        f"what /context gives (budget {context_block.BUDGET} chars): answer-in-context, evidence seen "
        "(as defined; among the block's content words)",
        *(f"{label:26}{ctx[name]['answer']:<9.3f}{ctx[name]['evidence']:<9.3f}{ctx[name]['evidence_words']:.3f}"
          for name, label in (("memoryhub", "memoryhub"), ("bm25", "packed BM25 baseline"),
                              ("oracle", "oracle (evidence turns)"))),
        f"/context over HTTP p50 {ctx['p50_ms']:.1f} ms, p95 {ctx['p95_ms']:.1f} ms; blocks of {ctx['mean_chars']:.0f} "
        "chars on average",
        f"targets: answer-in-context >= 1.2 x packed BM25 ({1.2 * ctx['bm25']['answer']:.3f}) and >= the oracle, "
        "evidence seen >= 0.50",
    ]
    semantic = result.get("embeddings")
    if semantic:
        lines[4:4] = [_row("+ embeddings", semantic["recall"])]
        lines.append(f"with embeddings ({semantic['model']}): search p50 {semantic['p50_ms']:.1f} ms, "
                     f"p95 {semantic['p95_ms']:.1f} ms (each question embedded once, uncached); "
                     f"the worker embeds {semantic['embed_turns_per_s']:.0f} turns/s")
    return "\n".join(lines)


if __name__ == "__main__":
    from bench.setup import django_on_temp_data

    django_on_temp_data()
    print(report(run(int(sys.argv[1]) if len(sys.argv) > 1 else None)), flush=True)
    print(report(run(data=CHINESE, slug="zh"), title="Chinese conversation (bench/data/locomo_zh.json)"))
