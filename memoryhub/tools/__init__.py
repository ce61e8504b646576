"""The agent's memory tools, one registry for /api/v1/tools and /mcp alike (docs/api.md, Tools).

`base` holds the Tool type and the `tool` decorator, `args` the argument readers, and each
handler module one family of tools (`memory`: save, search, recall, forget, profile, facts;
`graph`: link, trust feedback; `vault`: request, status, read; `notebooks`: MEMORY.md and USER.md).
`registry` lists them all explicitly; importing a handler module registers nothing by itself.
"""
