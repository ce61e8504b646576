"""Where memories live: workspaces, provider services, memory spaces, and the one service that changes spaces.

`workspaces` finds the default space and workspaces; `provider_services` holds a kind's saved config and builds a
space's provider; `space_service` creates, changes and
deletes spaces (checked against the provider's declared fields, audited); `providers_info` says what is
available and chooses a provider smartly; `selection` holds the pure rules of that choice.
"""
