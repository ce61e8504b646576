"""The agent API at /api/v1 (docs/api.md): a face over the tools, the access policy and the session service.

It owns no models: its old ones (tokens, sessions, rate windows) moved to memoryhub.agents with their
tables; its migrations stay for the history of existing databases (and the cache table).
"""
