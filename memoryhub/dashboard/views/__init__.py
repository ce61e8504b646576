"""Dashboard views, one module per area (spaces, memories, providers, jobs, tokens)."""
