"""Every provider kind, mapped to the dotted path of its adapter class.

Classes are imported on first use (as healthchecks does for its transports) so the
native adapter can live beside its store without an import cycle.
"""

from __future__ import annotations

from importlib import import_module

from providers.base import Provider

PROVIDERS: dict[str, str] = {
    "native": "memoryhub.memories.native.NativeProvider",
    "openviking": "providers.openviking.OpenVikingProvider",
    "honcho": "providers.honcho.HonchoProvider",
    "mem0": "providers.mem0.Mem0Provider",
    "hindsight": "providers.hindsight.HindsightProvider",
    "holographic": "providers.holographic.HolographicProvider",
    "retaindb": "providers.retaindb.RetainDBProvider",
    "byterover": "providers.byterover.ByteRoverProvider",
    "supermemory": "providers.supermemory.SupermemoryProvider",
}

_loaded: dict[str, type[Provider]] = {}


def provider_kinds() -> list[str]:
    return list(PROVIDERS)


def get_provider_class(kind: str) -> type[Provider]:
    if kind not in PROVIDERS:
        raise KeyError(kind)
    if kind not in _loaded:
        module_path, _, class_name = PROVIDERS[kind].rpartition(".")
        cls = getattr(import_module(module_path), class_name)
        if cls.kind != kind:
            raise RuntimeError(f"{PROVIDERS[kind]} declares kind {cls.kind!r}, registered as {kind!r}")
        _loaded[kind] = cls
    return _loaded[kind]
