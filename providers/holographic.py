"""Holographic adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class HolographicProvider(Provider):
    kind = "holographic"
    label = "Holographic"
    locality = "local"
    workspace_binding = "optional-override"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, entities=True, related=True, remember=True, write_mode="exact", forget=True, deletion_mode="hard")
    service_fields = (
        Field('dataPath', 'Data path (blank: follows the workspace)', input='path'),
    )
    space_fields = (
        Field('defaultTrust', 'Default trust', input='number'),
        Field('minTrust', 'Minimum trust', input='number'),
    )

    def status(self):
        raise ProviderError("Holographic is not configured in this build yet", permanent=True)
