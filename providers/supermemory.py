"""Supermemory adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class SupermemoryProvider(Provider):
    kind = "supermemory"
    label = "Supermemory"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, remember=True, write_mode="async", forget=True, deletion_mode="provider-forget")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', required=True, secret=True),
    )
    space_fields = (
        Field('containerTag', 'Container tag', required=True),
        Field('searchMode', 'Search mode', input='select'),
    )

    def status(self):
        raise ProviderError("Supermemory is not configured in this build yet", permanent=True)
