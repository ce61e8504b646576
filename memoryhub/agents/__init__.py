"""Agent identity: tokens, agent sessions and rate windows, and the services every agent-facing face shares.

`auth` turns a bearer token into an ApiToken and counts it against the rate limit; `sessions` is the
one place that sees, ends and expires agent sessions and runs a call inside one transaction; `calls`
holds what every agent call has in common whichever face it arrives by (the body cap, the error mapping).
"""
