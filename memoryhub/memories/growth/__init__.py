"""What the hub grows from entries after a write: the persona frame (persona.py, from the facts of
memories/facts), topics that turn a session's turns into index cards (topics.py), and the worker's
enrichment run that adds edges, topics and vectors after a write has committed (enrich.py).
"""
