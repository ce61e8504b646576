from django.apps import AppConfig


class VaultConfig(AppConfig):
    name = "memoryhub.vault"
    label = "vault"

    def ready(self) -> None:
        """Hear when agent sessions end: their grants end with them."""
        from memoryhub.agents.sessions import session_ended
        from memoryhub.vault.grants import end_session

        session_ended.connect(end_session, dispatch_uid="memoryhub.vault.end_session")
