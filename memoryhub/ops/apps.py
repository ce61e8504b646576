from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "memoryhub.ops"
    label = "ops"
    verbose_name = "Operations"
