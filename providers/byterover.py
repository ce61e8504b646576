"""ByteRover adapter: declaration only until its issue lands (every call says "not configured")."""

from providers.base import Capabilities, Field, Provider, ProviderError


class ByteRoverProvider(Provider):
    kind = "byterover"
    label = "ByteRover"
    locality = "local"
    workspace_binding = "optional-override"
    score_semantics = "none"
    capabilities = Capabilities(search=True, remember=True, write_mode="async", deletion_mode="none")
    service_fields = (
        Field('cliPath', 'brv CLI path', input='path'),
        Field('apiKey', 'API key', input='secret', secret=True),
        Field('defaultDirectory', 'Default directory (blank: follows the workspace)', input='path'),
    )
    space_fields = (
        Field('workingDirectory', 'Working directory', input='path'),
    )

    def status(self):
        raise ProviderError("ByteRover is not configured in this build yet", permanent=True)
