"""The native data plane: entries, facts, topics, persona, edges and the op log (models.py), in sub-packages
by job. `write/` is the one door for every change to entries; `search/` reads them back (and builds the
context block); `growth/` is what the hub grows from them (facts, topics, edges, the persona frame);
`maintenance/` keeps a space in shape (consolidation, gc, compaction, packs, imports); `notebooks/` holds
the hot-memory files and the MEMORY.md export. native.py shows all of it to the hub as a provider.
"""
