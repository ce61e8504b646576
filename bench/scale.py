"""Scale benchmarks: search and /context latency at 10k and 100k entries, the dashboard's list, search and
Maintenance pages, consolidation and compaction.

The baseline in the same run is the bare full-text query (no filtering, ranking extensions or
rendering), so the figures show what the hub adds on top of the index.
"""

from __future__ import annotations

import gc
import time
from contextlib import nullcontext
from typing import Callable

from django.conf import settings

from bench import synthetic

SIZES = (10_000, 100_000)
QUERIES = 200
PAGES = 40  # dashboard page loads per figure
MAINTENANCE_PAGES = 10  # Maintenance tab loads per figure (before its preview was a job, one took seconds)
WARM_UP = 10


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def timed(fn: Callable[[str], object], queries: list[str]) -> tuple[float, float]:
    """p50/p95 in ms over `queries`, after an untimed warm-up on the first few (caches, page cache).

    The bench process holds far more live objects than a server does (the seeded rows, LoCoMo);
    they are frozen out of the garbage collector's scans so its pauses don't land in the figures.
    """
    gc.collect()
    gc.freeze()
    for q in queries[:WARM_UP]:
        fn(q)
    samples = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        samples.append((time.perf_counter() - started) * 1000)
    return percentiles(samples)


def run(sizes=SIZES) -> list[dict]:
    from memoryhub.memories.maintenance import compact, consolidate
    from memoryhub.memories.recall import cards as recall
    from memoryhub.memories.search import fulltext as search
    from memoryhub.spaces.models import MemorySpace

    rows = []
    queries = synthetic.queries(QUERIES)
    # No maxEntries cap: the bulk load goes past the default 20,000, and the cap's catch-up job would archive most
    # of the space before consolidation plans over it (bench/cap.py measures the cap); apply is measured on its own.
    space = MemorySpace.objects.create(slug="bench-scale", name="Scale benchmark", settings={"maxEntries": 0})
    browser = dashboard_client()
    have = 0
    for size in sizes:
        started = time.perf_counter()
        synthetic.seed_space(space, size - have, seed=size)
        synthetic.give_topics(space)  # as the worker's topic pass would have: the Maintenance tab plans over them
        compact.optimize_storage()  # the index as the nightly compaction leaves it, not mid bulk-load
        search.recount_words()  # the seeding grew every word tenfold within the minutes counts are reused
        seeded = time.perf_counter() - started
        have = size
        row = {"entries": size, "seed_s": seeded}
        row["fts"] = timed(lambda q: search.query([space.pk], q, limit=8), queries)
        row["search"] = timed(lambda q: recall.search([space], q, limit=8), queries)
        row["context"] = timed(lambda q: recall.inject([space], q, origin=None), queries)
        row["list"] = timed(lambda q: page(browser, f"/spaces/{space.slug}/"), queries[:PAGES])
        row["list_search"] = timed(lambda q: page(browser, f"/spaces/{space.slug}/", {"q": q}), queries[:PAGES])
        started = time.perf_counter()
        plan = consolidate.plan(space)
        row["plan_s"] = time.perf_counter() - started
        row["plan"] = f"{len(plan.merges)} merges, {len(plan.digests)} digests, {len(plan.archives)} archives"
        del plan
        row["maintenance"] = maintenance_page(browser, space)
        row["api"] = agent_api(space, queries)  # last: its turns add a few hundred entries
        rows.append(row)
    rows[-1]["vectors"] = nearest_neighbours(space)
    started = time.perf_counter()
    consolidate.apply(space, actor="bench")
    rows[-1]["apply_s"] = time.perf_counter() - started
    started = time.perf_counter()
    compact.compact()
    rows[-1]["compact_s"] = time.perf_counter() - started
    return rows


def agent_api(space, queries: list[str]) -> dict:
    """POST /api/v1/context and POST /api/v1/turns as an agent calls them: a token of this space, the whole
    middleware stack (auth, rate window, session), the operation and its answer; in process, so no socket."""
    import json

    from django.test import Client

    from memoryhub.agents.models import ApiToken

    _token, raw = ApiToken.issue(name=f"scale bench {space.pk}-{time.monotonic_ns()}", spaces=[space])
    agent = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {raw}")
    said = iter(range(10 ** 9))

    def post(path: str, body: dict) -> None:
        response = agent.post(path, json.dumps(body), content_type="application/json")
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{path}: {response.status_code} {response.content[:200]!r}")

    def turn(q: str) -> None:
        n = next(said)
        post("/api/v1/turns", {"session_id": "scale-turns", "user": f"{q} (turn {n})", "assistant": "Noted.",
                               "idempotency_key": f"scale-{n}"})

    return {"context": timed(lambda q: post("/api/v1/context", {"session_id": "scale", "query": q}), queries),
            "turns": timed(turn, queries)}


def maintenance_page(browser, space) -> dict:
    """The Maintenance tab's server time: the first load after the space changed, then loads with its preview
    current (the worker's preview job run in between, as a worker would run it)."""
    from memoryhub.jobs import runner
    from memoryhub.jobs.models import Job

    url = f"/spaces/{space.slug}/maintenance/"
    gc.collect()
    gc.freeze()  # as in timed(): the bench's own heap (the seeded rows, the plans) must not time the GC
    started = time.perf_counter()
    page(browser, url)
    first = time.perf_counter() - started
    started = time.perf_counter()
    for job in Job.objects.filter(space=space, status=Job.Status.QUEUED):
        runner.execute(job.pk)
    preview = time.perf_counter() - started
    gc.collect()
    gc.freeze()
    samples = []
    for _ in range(MAINTENANCE_PAGES):
        started = time.perf_counter()
        page(browser, url)
        samples.append((time.perf_counter() - started) * 1000)
    p50, p95 = percentiles(samples)
    return {"first_ms": first * 1000, "job_s": preview, "p50": p50, "p95": p95}


def nearest_neighbours(space, dims: int = 384) -> dict:
    """The vector half of search with embeddings on: random unit vectors for every entry (no model needed),
    then the nearest 50 of random queries. Beside it, the full-text query above is the baseline."""
    import numpy as np
    from django.test import override_settings

    from memoryhub.memories.search import pgvectors, vectors
    from memoryhub.memories.models import Entry

    random = np.random.default_rng(7)
    with override_settings(MEMORYHUB={**settings.MEMORYHUB, "EMBEDDINGS_MODEL": "bench-random"}):
        entries = list(Entry.objects.filter(space=space).values_list("pk", "content_hash"))
        started = time.perf_counter()
        # As `manage.py embed` loads a big backlog: on pgvector, the HNSW index is built once afterwards.
        with pgvectors.indexes_built_after() if pgvectors.in_use() else nullcontext():
            for start in range(0, len(entries), 1000):
                chunk = entries[start:start + 1000]
                matrix = random.standard_normal((len(chunk), dims), dtype=np.float32)
                vectors.save(space.pk, "bench-random", chunk, matrix / np.linalg.norm(matrix, axis=1, keepdims=True))
        stored = time.perf_counter() - started
        queries = [v / np.linalg.norm(v) for v in random.standard_normal((QUERIES, dims), dtype=np.float32)]
        started = time.perf_counter()
        vectors.nearest([space.pk], queries[0], 50)  # a process's first look reads every vector
        first = time.perf_counter() - started
        by_key = {str(i): q for i, q in enumerate(queries)}
        p50, p95 = timed(lambda key: vectors.nearest([space.pk], by_key[key], 50), list(by_key))
    return {"vectors": len(entries), "dims": dims, "store_s": stored, "first_s": first, "p50": p50, "p95": p95,
            "method": "pgvector HNSW" if pgvectors.in_use() else "NumPy in the process"}


def dashboard_client():
    """A logged-in staff session on the dashboard, through Django's full middleware stack."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_user("bench", password=None, is_staff=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    return client


def page(client, path: str, params: dict | None = None) -> None:
    response = client.get(path, params or {})
    if response.status_code != 200:
        raise RuntimeError(f"{path}: {response.status_code}")


def report(rows: list[dict]) -> str:
    from django.db import connection

    lines = [f"database: {connection.vendor}",
             "entries   FTS only p50/p95   memory_search p50/p95   /context p50/p95   consolidation plan"]
    for r in rows:
        lines.append(f"{r['entries']:>7}   {r['fts'][0]:6.1f}/{r['fts'][1]:6.1f} ms    {r['search'][0]:6.1f}/{r['search'][1]:6.1f} ms"
                     f"        {r['context'][0]:6.1f}/{r['context'][1]:6.1f} ms   {r['plan_s']:.1f} s ({r['plan']})")
    lines.append("entries   dashboard memory list p50/p95   dashboard search p50/p95 (server time per request)")
    for r in rows:
        lines.append(f"{r['entries']:>7}   {r['list'][0]:6.1f}/{r['list'][1]:6.1f} ms"
                     f"                 {r['list_search'][0]:6.1f}/{r['list_search'][1]:6.1f} ms")
    lines.append("entries   agent API over the middleware: POST /api/v1/context p50/p95   POST /api/v1/turns p50/p95")
    for r in rows:
        a = r["api"]
        lines.append(f"{r['entries']:>7}   {a['context'][0]:6.1f}/{a['context'][1]:6.1f} ms"
                     f"                                    {a['turns'][0]:6.1f}/{a['turns'][1]:6.1f} ms")
    lines.append("entries   Maintenance tab: first load after a change, its preview job, then p50/p95 (server time)")
    for r in rows:
        m = r["maintenance"]
        lines.append(f"{r['entries']:>7}   {m['first_ms']:8.1f} ms, job {m['job_s']:.1f} s, "
                     f"{m['p50']:6.1f}/{m['p95']:6.1f} ms")
    last = rows[-1]
    lines.append(f"at {last['entries']} entries: consolidation apply {last.get('apply_s', 0):.1f} s, "
                 f"compaction {last.get('compact_s', 0):.1f} s")
    v = last.get("vectors")
    if v:
        lines.append(f"nearest 50 of {v['vectors']} vectors ({v['dims']} dims, {v['method']}): p50 {v['p50']:.1f} ms, "
                     f"p95 {v['p95']:.1f} ms; storing them {v['store_s']:.1f} s, a process's first look {v['first_s']:.2f} s")
    lines.append("targets at 100k: search p95 <= 25 ms, /context p95 <= 50 ms, list pages <= 100 ms")
    return "\n".join(lines)
