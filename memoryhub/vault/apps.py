from django.apps import AppConfig


class VaultConfig(AppConfig):
    name = "memoryhub.vault"
    label = "vault"

    def ready(self) -> None:
        """Register the MEMORY.md job kind wherever Django runs (web and worker alike)."""
        from memoryhub.jobs import runner

        runner.register("memory_md", "MEMORY.md export", "memoryhub.memories.notebooks.export.regenerate_job")
