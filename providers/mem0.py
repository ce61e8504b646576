"""Mem0 adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class Mem0Provider(Provider):
    kind = "mem0"
    label = "Mem0"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, remember=True, write_mode="async", forget=True, deletion_mode="hard")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', secret=True),
        Field('mode', 'Mode', input='select', required=True),
    )
    space_fields = (
        Field('userId', 'User id', required=True),
        Field('agentId', 'Agent id'),
        Field('rerank', 'Rerank', input='boolean'),
    )

    def status(self):
        raise ProviderError("Mem0 is not configured in this build yet", permanent=True)
