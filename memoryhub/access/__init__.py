"""Who may see and change what: the one policy, for agent calls (the API and MCP alike) and for people.

`Call` is one authenticated agent call, with what it resolved cached on it (the token's spaces, the
workspace). `policy` answers every access question a tool or an endpoint asks: which spaces a
read covers and where a write goes, whether this caller may see or change one memory, topic, fact,
vault request or notebook. No tool filters by origin, token or space on its own; a new rule goes here.
`people` answers for a person signed in to the dashboard: their role, the permissions it holds, and
whether they may open a space; every dashboard view names the permission it needs.
"""
