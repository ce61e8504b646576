from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "memoryhub.audit"
    label = "audit"
    verbose_name = "Audit log"
