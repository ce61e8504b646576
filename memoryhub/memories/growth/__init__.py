"""What the hub grows from entries: facts resolved by slots (facts.py, from fact_rules.py's patterns), the
persona frame (persona.py), topics that turn a session's turns into index cards (topics.py), and the
worker's enrichment run that adds edges, topics and vectors after a write has committed (enrich.py).
"""
