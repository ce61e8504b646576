"""The provider service form, built from an adapter's declared service_fields.

A new provider needs no form code; its field names are the declared keys (endpoint, apiKey, mode, ...).
"""

from __future__ import annotations

from typing import Any

from django import forms

from memoryhub.dashboard.forms.fields import config_field, suggests_only


class ServiceForm(forms.Form):
    """A provider kind's service-level config; secrets are never rendered back."""

    def __init__(self, provider_cls, saved: dict[str, Any], secret_status: dict[str, str], *args, **kwargs):
        kwargs.setdefault("auto_id", f"id_{provider_cls.kind}_%s")
        super().__init__(*args, **kwargs)
        self.provider_cls = provider_cls
        self.secret_status = secret_status
        for field in provider_cls.service_fields:
            secret_set = secret_status.get(field.key) == "configured"
            self.fields[field.key] = config_field(field, secret_set=secret_set)
            if not field.secret:
                value = saved.get(field.key, None if suggests_only(field) else field.default)
                if value is not None:
                    self.initial[field.key] = value

    def values(self) -> dict[str, Any]:
        """Cleaned values for save_service: blank text becomes "", a blank secret keeps the saved one."""
        out: dict[str, Any] = {}
        for field in self.provider_cls.service_fields:
            value = self.cleaned_data.get(field.key)
            out[field.key] = "" if value is None else value
        return out

    def rows(self):
        """(bound field, declared field, secret status or None) for the template."""
        for field in self.provider_cls.service_fields:
            yield self[field.key], field, (self.secret_status.get(field.key) if field.secret else None)
