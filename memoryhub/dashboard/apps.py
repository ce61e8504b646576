from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "memoryhub.dashboard"
    label = "dashboard"
