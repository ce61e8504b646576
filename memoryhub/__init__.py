"""memoryhub: a self-hosted long-term memory hub for AI agents."""

__version__ = "0.1.0"
