"""Jobs and django-q's rows in the admin, read-only: the Jobs page cancels and retries jobs through the runner.

django-q registers its Schedule, Success, Failure and queue admins editable; a schedule names any Python
callable with its arguments and the worker runs it, so a person who could edit one could run anything on
the worker. The hub's own schedule comes from its migrations; here they are shown, never changed, and the
"resubmit" actions go (a resubmitted task runs outside the Job rows people watch)."""

from django.contrib import admin
from django_q import admin as q_admin
from django_q.models import Failure, OrmQ, Schedule, Success

from memoryhub.core.readonly_admin import ReadOnlyAdmin
from memoryhub.jobs.models import Handoff, Job


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "space", "status", "progress", "created_at", "finished_at")
    list_filter = ("status", "kind")
    search_fields = ("label", "error", "task_id")


@admin.register(Handoff)
class HandoffAdmin(ReadOnlyAdmin):
    list_display = ("id", "name", "label", "created_at", "task_id", "error")
    list_filter = ("name",)
    exclude = ("args",)  # a vault's claims: what its owner said, not for the admin to read


for model, shown in ((Schedule, q_admin.ScheduleAdmin), (Success, q_admin.TaskAdmin), (Failure, q_admin.FailAdmin),
                     (OrmQ, q_admin.QueueAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
        admin.site.register(model, type(f"ReadOnly{shown.__name__}", (ReadOnlyAdmin, shown), {}))
