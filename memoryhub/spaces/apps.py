from django.apps import AppConfig


class SpacesConfig(AppConfig):
    name = "memoryhub.spaces"
    label = "spaces"
