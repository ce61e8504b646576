"""The login form: Django's, refusing an account whose role may do nothing on the dashboard (access/people.py)."""

from __future__ import annotations

from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from memoryhub.access import people


class DashboardLoginForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "no_role": _("This account has no staff status, so the dashboard has nothing it may show it. Ask whoever "
                     "runs this hub to give it staff status, or sign in with another account."),
    }

    def confirm_login_allowed(self, user) -> None:
        super().confirm_login_allowed(user)
        if not people.may_sign_in(user):
            raise ValidationError(self.error_messages["no_role"], code="no_role")

    @property
    def refused_role(self) -> bool:
        """The password was right but the account may not sign in (shown instead of "wrong password")."""
        return self.is_bound and self.has_error("__all__", "no_role")
