from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "memoryhub.jobs"
    label = "jobs"
