"""The write side: gateway.py is the one door through which every change to native entries goes (redaction,
the rows, the index, the op log), and events.py the signals it sends, which the follow-ups of a write
(enrichment, the maxEntries cap, summaries, persona rebuilds, MEMORY.md) listen to.
"""
