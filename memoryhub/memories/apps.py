from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memoryhub.memories"
    label = "memories"
