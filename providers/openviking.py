"""OpenViking adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class OpenVikingProvider(Provider):
    kind = "openviking"
    label = "OpenViking"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, graph=True, remember=True, write_mode="verified", forget=True, deletion_mode="controlled-hard")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', required=True, secret=True),
        Field('account', 'Account'),
        Field('discoveryUser', 'Discovery user (user key, skips Admin)'),
    )
    space_fields = (
        Field('targetUri', 'Target URI (viking://user/<user>/memories)'),
        Field('user', 'User'),
        Field('actorPeerId', 'Actor peer id'),
    )

    def status(self):
        raise ProviderError("OpenViking is not configured in this build yet", permanent=True)
