from django.apps import AppConfig
from django.utils.translation import gettext_noop


class JobsConfig(AppConfig):
    name = "memoryhub.jobs"
    label = "jobs"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from memoryhub.jobs import registry
        from memoryhub.jobs.runner import dispatch_lost, on_worker_spawn, selftest

        registry.job("selftest", gettext_noop("Self test"), selftest)
        registry.task("dispatch_lost", dispatch_lost)  # its schedule: migration 0005
        post_spawn.connect(on_worker_spawn, dispatch_uid="memoryhub.jobs.fail_stale")
