"""Where memories live: workspaces, provider services, memory spaces, and the one service that changes spaces.

`services` finds spaces and workspaces and builds a space's provider; `space_service` creates, changes and
deletes spaces (checked against the provider's declared fields, audited); `providers_info` says what is
available and chooses a provider smartly; `selection` holds the pure rules of that choice.
"""
