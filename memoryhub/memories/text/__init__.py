"""Text work shared by search, the graph, facts and the block: tokens, entities, prose (clips, summaries,
excerpts) and event categories; pure functions, no database."""
