"""memoryhub from Python: the agent API client and a Hermes memory-provider plugin built on it."""

from memoryhub_client.client import MemoryHubClient
from memoryhub_client.errors import MemoryHubError
from memoryhub_client.provider import MemoryHubProvider, register

__all__ = ["MemoryHubClient", "MemoryHubError", "MemoryHubProvider", "register"]
