from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "memoryhub.agents"
    label = "agents"
    verbose_name = "Agents"
