"""Keeping a space in shape, on a person's request or a schedule: consolidation (merge, digest, archive;
reversible), gc suggestions and the maxEntries cap, storage compaction, packs (a space as one archive)
and importers for history from other tools. Every change to entries goes through the write gateway.
"""
