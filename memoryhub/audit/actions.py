"""Every action the audit log knows, in one place: `record()` refuses any other name, and the audit page shows
each one by its label. Names are `<what>.<verb>`; who may cause each is said in the comment above its group.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Action(models.TextChoices):
    # Spaces (people through the dashboard; a local token through the API; the hub making its own)
    SPACE_CREATE = "space.create", _("space created")
    SPACE_EDIT = "space.edit", _("space edited")
    SPACE_ACTIVATE = "space.activate", _("space switched on")
    SPACE_DEACTIVATE = "space.deactivate", _("space switched off")
    SPACE_DELETE = "space.delete", _("space deleted")
    SPACE_DISCONNECT = "space.disconnect", _("space disconnected")
    SPACE_SETTINGS = "space.settings", _("space settings changed")
    SPACE_SETTINGS_RESET = "space.settings.reset", _("space settings reset")

    # Memories, facts, persona, notebooks (people; memory.feedback and notebooks also agents)
    ENTRY_NOTE = "entry.note", _("memory noted")
    ENTRY_EDIT = "entry.edit", _("memory edited")
    ENTRY_FORGET = "entry.forget", _("memory forgotten")
    ENTRY_KEEP = "entry.keep", _("memory kept from clean-up")
    ENTRY_BULK_ARCHIVE = "entry.bulk_archive", _("memories archived")
    ENTRY_BULK_UNARCHIVE = "entry.bulk_unarchive", _("memories unarchived")
    ENTRY_BULK_FORGET = "entry.bulk_forget", _("memories forgotten")
    RECORD_FORGET = "record.forget", _("provider memory deleted")
    MEMORY_LINK = "memory.link", _("memories linked")
    MEMORY_FEEDBACK = "memory.feedback", _("memory rated")
    FACT_ASSERT = "fact.assert", _("fact asserted")
    FACT_INVALIDATE = "fact.invalidate", _("fact invalidated")
    PERSONA_EDIT = "persona.edit", _("profile edited")
    PERSONA_REBUILD = "persona.rebuild", _("persona rebuild queued")
    NOTEBOOK_ADD = "notebook.add", _("notebook entry added")
    NOTEBOOK_REPLACE = "notebook.replace", _("notebook entry replaced")
    NOTEBOOK_REMOVE = "notebook.remove", _("notebook entry removed")
    NOTEBOOK_IMPORT = "notebook.import", _("notebook imported")

    # Maintenance (people)
    CONSOLIDATION_APPLY = "consolidation.apply", _("consolidation started")
    CONSOLIDATION_UNDO = "consolidation.undo", _("consolidation undone")
    SPACE_COMPACT = "space.compact", _("compaction started")
    SPACE_EMBED = "space.embed", _("embedding started")
    SPACE_IMPORT = "space.import", _("history import started")
    SPACE_RETAG = "space.retag", _("origin re-tag started")
    SPACE_EXPORT = "space.export", _("space exported")
    SPACE_COPY = "space.copy", _("space copy started")
    SPACE_COPY_FORGET = "space.copy_forget", _("copied memories removed from the source")
    PACK_EXPORT = "pack.export", _("pack downloaded")
    PACK_IMPORT = "pack.import", _("pack imported")
    PACK_NOTEBOOKS = "pack.notebooks", _("notebooks restored from a pack")
    JOB_ENQUEUE = "job.enqueue", _("job queued")
    JOB_RETRY = "job.retry", _("job retried")
    JOB_CANCEL = "job.cancel", _("job cancelled")
    REMOTE_WRITE_RECHECK = "remote_write.recheck", _("remote write re-check queued")

    # The hub's configuration (people)
    PROVIDER_SAVE = "provider.save", _("provider settings saved")
    TOKEN_CREATE = "token.create", _("token created")
    TOKEN_PAUSE = "token.pause", _("token paused")
    TOKEN_RESUME = "token.resume", _("token resumed")
    TOKEN_REVOKE = "token.revoke", _("token revoked")
    WORKSPACE_EXPORT_ON = "workspace.export_on", _("MEMORY.md export switched on")
    WORKSPACE_EXPORT_OFF = "workspace.export_off", _("MEMORY.md export switched off")
    WORKSPACE_EXPORT_VAULT_ON = "workspace.export_vault_on", _("vault memories put in MEMORY.md")
    WORKSPACE_EXPORT_VAULT_OFF = "workspace.export_vault_off", _("vault memories left out of MEMORY.md")

    # People's accounts (the Django admin)
    PERSON_CREATE = "person.create", _("account created")
    PERSON_EDIT = "person.edit", _("account changed")
    PERSON_PASSWORD = "person.password", _("account password changed")
    PERSON_DELETE = "person.delete", _("account deleted")

    # The vault (agents request and read; people decide; sessions end)
    VAULT_REQUEST = "vault.request", _("vault request filed")
    VAULT_READ = "vault.read", _("vault entries read")
    VAULT_SESSION_END = "vault.session_end", _("agent session ended")
    VAULT_GRANT = "vault.grant", _("vault request approved")
    VAULT_DENY = "vault.deny", _("vault request denied")
    VAULT_REVOKE = "vault.revoke", _("vault grant revoked")

