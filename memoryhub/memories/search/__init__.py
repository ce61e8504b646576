"""Reading memory back: full-text search (SQLite FTS5 in fulltext.py, PostgreSQL in pgsearch.py) with BM25 and
the hit boost, embeddings and nearest neighbours (vectors.py, pgvectors.py), ranking with memories
"remembered along the way" (ranking.py), recall-quality policies across providers (policies.py), and
recall.py, which searches every visible space and renders the budgeted context block of /context.
"""
