"""Files people and agents read: the hot-memory notebooks MEMORY.md / USER.md of each workspace (hot.py,
injected first by /context) and the MEMORY.md export of a workspace's memories beside its code (export.py).
"""
