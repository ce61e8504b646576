from django.apps import AppConfig


class VaultConfig(AppConfig):
    name = "memoryhub.vault"
    label = "vault"
