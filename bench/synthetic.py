"""Synthetic but realistic memories, Chinese and English mixed, written in bulk for scale benchmarks.

Bulk rows skip the per-write pipeline (that is measured separately as ingest); they are indexed
exactly as the pipeline indexes them, so search sees what it would see in production.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

SUBJECTS = ["the deploy script", "PostgreSQL", "the nginx gateway", "Redis cache", "the billing service",
            "alerts.log", "Kubernetes node pool", "the React dashboard", "pytest suite", "the CI pipeline",
            "数据库迁移", "向量索引", "日志轮转", "支付服务", "前端页面", "定时任务", "缓存失效", "权限系统"]
VERBS = ["fails when", "was moved to", "needs a fix for", "is slow because of", "now depends on",
         "was rewritten around", "broke after", "should not touch", "is documented in", "was tuned for",
         "出现问题因为", "迁移到了", "依赖于", "需要优化", "已经修复了", "不要修改"]
OBJECTS = ["the weekend backup", "a missing index", "the old API token", "timezone handling", "large uploads",
           "the staging cluster", "memory pressure", "a flaky network", "the Chinese locale", "cold starts",
           "凌晨的备份", "缺失的索引", "时区处理", "大文件上传", "测试环境", "内存不足", "网络抖动"]
TAILS = ["We agreed to revisit it next sprint.", "Decided to keep it simple.", "The user prefers short answers.",
         "下次注意这个坑。", "这是一个长期约束。", "Logged as a pitfall for later.", ""]
CATEGORIES = ["progress", "pitfall", "decision", "structure", "experience", "context", "general"]


SYLLABLES = ["ka", "ro", "mi", "tel", "vin", "da", "sor", "lu", "pex", "an", "qui", "zo", "ber", "nik", "ta", "ul"]


def rare_word(rng: random.Random) -> str:
    """Names, codes and project words: the long tail real conversations are full of."""
    return "".join(rng.choice(SYLLABLES) for _ in range(3)) + rng.choice(["", str(rng.randint(2, 999))])


def sentence(rng: random.Random) -> str:
    return (f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} for {rare_word(rng)} "
            f"({rare_word(rng)}). {rng.choice(TAILS)}").strip()


def queries(count: int, seed: int = 7) -> list[str]:
    """Half name a long-tail word, half only common ones: both kinds of question agents ask."""
    rng = random.Random(seed)
    return [f"{rng.choice(SUBJECTS)} {rng.choice(OBJECTS)}" + (f" {rare_word(rng)}" if i % 2 else "")
            for i in range(count)]


def seed_space(space, count: int, seed: int = 1, batch: int = 2000) -> None:
    """Add `count` entries to `space` in bulk, with FTS rows, over the last year."""
    from memoryhub.memories.search import fulltext as search
    from memoryhub.memories.models import Entry
    from memoryhub.memories.write.gateway import content_hash

    rng = random.Random(seed)
    now = timezone.now()
    made = 0
    while made < count:
        rows = []
        for i in range(min(batch, count - made)):
            body = f"User: {sentence(rng)}\n\nAssistant: {sentence(rng)}"
            title = body[6:70]
            rows.append(Entry(
                space=space, kind="turn", body=body, title=title, summary=title, category=rng.choice(CATEGORIES),
                at=now - timedelta(minutes=rng.randint(0, 525_600)), session_id=f"bench-{(made + i) // 20}",
                content_hash=content_hash(title, f"{body}\n{made + i}"), hits=rng.randint(0, 3),
            ))
        with transaction.atomic():
            Entry.objects.bulk_create(rows, batch_size=500)
            created = list(Entry.objects.filter(space=space).order_by("-id")[: len(rows)])
            if connection.vendor == "sqlite":
                with connection.cursor() as cur:
                    cur.executemany(f"INSERT INTO {search.FTS_TABLE}(rowid, tokens) VALUES (%s, %s)",
                                    [(e.pk, " ".join(search.document_tokens(e))) for e in created])
            else:
                for e in created:
                    search.index(e)
        made += len(rows)


def give_topics(space, turns: int = 20) -> int:
    """Group the space's entries without a topic into topics of `turns` consecutive ones in time, as the worker's
    topic pass leaves a long history (most topics old, each with its title and span); returns how many."""
    from memoryhub.memories.models import Entry, Topic

    rows = list(Entry.objects.filter(space=space, topic__isnull=True).order_by("at", "id")
                .values_list("id", "at", "title"))
    chunks = [rows[i:i + turns] for i in range(0, len(rows), turns)]
    with transaction.atomic():
        made = Topic.objects.bulk_create([
            Topic(space=space, session_id=f"bench-topic-{i}", title=chunk[0][2][:300], started_at=chunk[0][1],
                  ended_at=chunk[-1][1], turn_count=len(chunk)) for i, chunk in enumerate(chunks)], batch_size=500)
        with connection.cursor() as cur:
            for topic, chunk in zip(made, chunks):
                ids = [pk for pk, _, _ in chunk]
                cur.execute(f"UPDATE memories_entry SET topic_id = %s WHERE id IN ({', '.join(['%s'] * len(ids))})",
                            [topic.pk, *ids])
    return len(chunks)
