"""The agent tools over the Model Context Protocol (streamable HTTP at /mcp)."""
