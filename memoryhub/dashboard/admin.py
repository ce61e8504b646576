"""People's accounts stay editable in the Django admin (it is where an account gets staff status, the one role
that may use the dashboard), and every change to one is audited with what it was before and after.

Everything else the admin lists is read-only there (core/readonly_admin.py)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from memoryhub.audit.actions import Action
from memoryhub.audit.changes import differing
from memoryhub.dashboard.access import audited

User = get_user_model()


def account_state(user) -> dict:
    """An account as its audit records show it: what it may do, never its password."""
    return {"username": user.get_username(), "is_active": user.is_active, "is_staff": user.is_staff,
            "is_superuser": user.is_superuser,
            "groups": sorted(user.groups.values_list("name", flat=True)) if user.pk else []}


class AuditedUserAdmin(UserAdmin):
    def save_model(self, request, obj, form, change) -> None:
        obj._audit_before = account_state(User.objects.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change) -> None:
        """Groups are saved here, after the row: the record is written once they are."""
        super().save_related(request, form, formsets, change)
        user = form.instance
        after = account_state(user)
        if user._audit_before is None:
            audited(request, Action.PERSON_CREATE, user.get_username(), after=after)
        else:
            before, after = differing(user._audit_before, after)
            if after:
                audited(request, Action.PERSON_EDIT, user.get_username(), before=before, after=after)

    def user_change_password(self, request, id, form_url=""):
        response = super().user_change_password(request, id, form_url)
        if request.method == "POST" and response.status_code == 302:
            user = User.objects.get(pk=id)
            audited(request, Action.PERSON_PASSWORD, user.get_username(), before={"password": "(old)"},
                    after={"password": "(new)"})
        return response

    def delete_model(self, request, obj) -> None:
        before = account_state(obj)
        super().delete_model(request, obj)
        audited(request, Action.PERSON_DELETE, before["username"], before=before)

    def delete_queryset(self, request, queryset) -> None:
        gone = [account_state(user) for user in queryset]
        super().delete_queryset(request, queryset)
        for before in gone:
            audited(request, Action.PERSON_DELETE, before["username"], before=before)


admin.site.unregister(User)
admin.site.register(User, AuditedUserAdmin)
