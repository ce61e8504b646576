from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "memoryhub.agents"
    label = "agents"
    verbose_name = "Agents"

    def ready(self) -> None:
        """A token saved in this process (the admin, a test) is read afresh on its next call here."""
        from django.db.models.signals import post_save

        from memoryhub.agents import auth
        from memoryhub.agents.models import ApiToken

        post_save.connect(lambda sender, instance, **kwargs: auth.forget(instance), sender=ApiToken,
                          dispatch_uid="agents.token_cache", weak=False)
