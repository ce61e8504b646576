from django.apps import AppConfig
from django.utils.translation import gettext_noop


class JobsConfig(AppConfig):
    name = "memoryhub.jobs"
    label = "jobs"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from memoryhub.jobs import registry
        from memoryhub.jobs.runner import on_worker_spawn, selftest

        registry.job("selftest", gettext_noop("Self test"), selftest)
        post_spawn.connect(on_worker_spawn, dispatch_uid="memoryhub.jobs.fail_stale")
