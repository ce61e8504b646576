"""Honcho adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class HonchoProvider(Provider):
    kind = "honcho"
    label = "Honcho"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "native"
    capabilities = Capabilities(search=True, browse=True, remember=True, write_mode="exact", forget=True, deletion_mode="hard")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', secret=True),
    )
    space_fields = (
        Field('workspace', 'Workspace', required=True),
        Field('userId', 'User peer id', required=True),
        Field('agentId', 'Agent peer id'),
    )

    def status(self):
        raise ProviderError("Honcho is not configured in this build yet", permanent=True)
