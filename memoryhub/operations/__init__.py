"""Every agent operation, each declared once: its input model, the permission it needs, one run().

The agent API (/api/v1: its tools, /turns, /context, /spaces, /providers) and MCP (/mcp: the tools plus
memory_turn and memory_context) reach memory only through these (an import contract keeps them from the
lower layers), so an agent gets the same answer, the same refusal and the same schema whichever face it
uses; `registry.run(name, call, session_id, arguments)` is the one entry point, open to a person-facing
caller too.

`base` holds the Operation type and its decorator, `fields` one field type per input rule, `refusals` how a
validation error is told, `schema` the JSON schema agents see, `needs` the named access checks; each other
module one family (`memory`, `graph`, `vault`, `notebooks`, `turns`, `context`, `spaces`); `registry` lists them.
"""
