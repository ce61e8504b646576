"""Hindsight adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class HindsightProvider(Provider):
    kind = "hindsight"
    label = "Hindsight"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, entities=True, related=True, remember=True, write_mode="async", forget=True, deletion_mode="invalidate")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', secret=True),
    )
    space_fields = (
        Field('bankId', 'Bank id', required=True),
        Field('budget', 'Recall budget', input='select'),
    )

    def status(self):
        raise ProviderError("Hindsight is not configured in this build yet", permanent=True)
