"""Agent hooks: the `memoryhub-hook` command that Claude Code, Codex CLI and Cursor call around each turn, to inject
the hub's block before the model answers and archive the turn after it (cli.py; one module per agent)."""
