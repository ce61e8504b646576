from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "memoryhub.api"
    label = "api"
