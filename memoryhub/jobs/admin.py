from django.contrib import admin

from memoryhub.jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "space", "status", "progress", "created_at", "finished_at")
    list_filter = ("status", "kind")
    search_fields = ("label", "error", "task_id")
