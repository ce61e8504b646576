"""The provider contract (base.py) and the registry of every memory engine (registry.py)."""

from providers.base import Capabilities, Field, Provider, ProviderError, Receipt, Record
from providers.registry import PROVIDERS, get_provider_class, provider_kinds

__all__ = [
    "Capabilities",
    "Field",
    "Provider",
    "ProviderError",
    "Receipt",
    "Record",
    "PROVIDERS",
    "get_provider_class",
    "provider_kinds",
]
