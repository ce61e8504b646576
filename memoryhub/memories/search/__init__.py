"""The search index: full-text search (SQLite FTS5 in fulltext.py, PostgreSQL in pgsearch.py) with BM25 and
the hit boost, embeddings and nearest neighbours (vectors.py, pgvectors.py), ranking with memories
"remembered along the way" (ranking.py) and recall-quality policies across providers (policies.py).
Below the write gateway, which indexes every entry it stores; reading back across spaces is memories/recall.
"""
