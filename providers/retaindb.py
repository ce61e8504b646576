"""RetainDB adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class RetainDBProvider(Provider):
    kind = "retaindb"
    label = "RetainDB"
    locality = "remote"
    workspace_binding = "provider-global"
    score_semantics = "normalized"
    capabilities = Capabilities(search=True, browse=True, remember=True, write_mode="exact", forget=True, deletion_mode="hard")
    service_fields = (
        Field('endpoint', 'Endpoint', input='url', required=True),
        Field('apiKey', 'API key', input='secret', required=True, secret=True),
    )
    space_fields = (
        Field('project', 'Project', required=True),
        Field('userId', 'User id'),
    )

    def status(self):
        raise ProviderError("RetainDB is not configured in this build yet", permanent=True)
