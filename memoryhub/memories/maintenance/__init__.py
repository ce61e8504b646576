"""Keeping a space in shape, on a person's request or a schedule: consolidation (merge, digest, archive;
reversible), gc suggestions and the maxEntries cap, storage compaction, packs (a space as one archive)
importers for history from other tools, the open export (a space out, readable anywhere) and copies (a space into
another engine's space, with a receipt per memory). Every change to entries goes through the write gateway.
"""
