""""Test connection": prove a provider's service settings (or one space's merged settings) work, and say why not
in a sentence a person can act on.

The service test asks only what the service layer can answer (the vendor's health or auth route, `check()`),
so a space-level field such as Mem0's userId is never needed and never blamed. Unsaved form values are
tested as typed; only a permanent failure of the *saved* settings (a refused key) disables the service.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import provider_for, service_config
from providers.base import ProviderError
from providers.registry import get_provider_class


@dataclass
class Outcome:
    """What one test found: `message` for the person, `detail` (the raw error) folded away under it."""

    ok: bool
    message: str
    detail: str = ""
    unsaved: bool = False
    permanent: bool = False
    space: str = ""
    at: datetime = field(default_factory=timezone.now)


def check_service(kind: str, form_values: dict[str, str] | None = None) -> Outcome:
    """Run the kind's service check on the saved config, or on `form_values` laid over it (blank secrets keep)."""
    cls = get_provider_class(kind)
    config = service_config(kind)
    saved = dict(config)
    if form_values:
        keys = {f.key: f for f in cls.service_fields}
        config.update({k: v for k, v in form_values.items() if k in keys and (v not in ("", None) or not keys[k].secret)})
    # The provider page posts its form, saved values included: only values that differ are "unsaved". Before,
    # any posted form counted as unsaved, so a passing test never switched a disabled service back on.
    unsaved = any(str(config.get(k) or "") != str(saved.get(k) or "") for k in set(config) | set(saved))
    provider = cls({**config, "_timeout": settings.MEMORYHUB["PROVIDER_TIMEOUT"],
                    "_max_bytes": settings.MEMORYHUB["PROVIDER_MAX_BYTES"]})
    try:
        outcome = _run(provider.check, cls.label, config)
    finally:
        provider.close()
    outcome.unsaved = unsaved
    _record(kind, outcome, disable=not unsaved)
    return outcome


def check_space(space: MemorySpace) -> Outcome:
    """Run the space's full status with the service and space settings merged, as its reads and writes will.

    It runs even while the service is disabled, and a pass switches the saved service back on: those saved
    settings work. A failure of the space's own setting stays the space's."""
    cls = get_provider_class(space.provider)
    try:
        provider = provider_for(space, even_if_disabled=True)
    except ProviderError as exc:
        return Outcome(False, explain(exc, cls.label, {}), exc.message, space=space.slug)
    try:
        outcome = _run(provider.status, cls.label, provider.config)
    finally:
        provider.close()
    outcome.space = space.slug
    if outcome.ok:
        _record(space.provider, outcome, disable=False)
    return outcome


def discover(kind: str) -> list[dict]:
    """What the saved service settings can reach (OpenViking: users and their memory roots) to pick into a space."""
    provider = get_provider_class(kind)({**service_config(kind), "_timeout": settings.MEMORYHUB["PROVIDER_TIMEOUT"],
                                         "_max_bytes": settings.MEMORYHUB["PROVIDER_MAX_BYTES"]})
    try:
        return provider.discover()
    finally:
        provider.close()


def _run(call, label: str, config: dict) -> Outcome:
    try:
        status = call()
    except ProviderError as exc:
        secret_values = [str(v) for k, v in config.items() if k.lower().endswith(("key", "token", "secret")) and v]
        detail = exc.message
        for value in secret_values:
            detail = detail.replace(value, "***")
        return Outcome(False, explain(exc, label, config), detail, permanent=exc.permanent)
    facts = ", ".join(f"{k}: {v}" for k, v in status.items() if k != "healthy" and isinstance(v, (str, int, float)))
    return Outcome(True, _("%(label)s answered.") % {"label": label}, facts[:500])


def explain(exc: ProviderError, label: str, config: dict) -> str:
    """One sentence that says what to do, from the error's fields and its cause."""
    where = _host(exc.uri or str(config.get("endpoint") or ""))
    cause = exc.__cause__
    if isinstance(cause, httpx.ConnectError):
        reason = str(cause).split("] ")[-1].lower() or "no connection"
        return _("Could not reach %(where)s — is %(label)s running there? (%(reason)s)") % {
            "where": where, "label": label, "reason": reason}
    if exc.timeout:
        return _("%(label)s at %(where)s did not answer in time; it may be overloaded, or the endpoint is wrong.") % {
            "label": label, "where": where}
    if exc.status in (401, 403):
        return _("%(label)s refused the API key (HTTP %(status)s): paste a valid key and test again.") % {
            "label": label, "status": exc.status}
    if exc.status == 404:
        return _("%(label)s answered 404 at %(where)s: check that the endpoint is the API's base URL.") % {
            "label": label, "where": where}
    if exc.status and exc.status >= 500:
        return _("%(label)s had an internal error (HTTP %(status)s); try again, or look at its logs.") % {
            "label": label, "status": exc.status}
    if isinstance(cause, httpx.TransportError):
        return _("The connection to %(where)s broke off; check the endpoint and any proxy in between.") % {
            "where": where}
    return _("%(label)s: %(message)s") % {"label": label, "message": exc.message}


def _host(uri: str) -> str:
    parts = urlsplit(uri)
    return parts.netloc or uri or _("the configured endpoint")


def _record(kind: str, outcome: Outcome, disable: bool) -> None:
    """The badge shows the last test: its time, and its error if it failed. Saved settings that work re-enable."""
    service, _created = ProviderService.objects.get_or_create(kind=kind)
    updates: dict = {"last_checked": outcome.at, "last_error": "" if outcome.ok else outcome.message[:2000]}
    if outcome.ok and not outcome.unsaved:
        updates["enabled"] = True
    if disable and outcome.permanent:
        updates["enabled"] = False
    ProviderService.objects.filter(pk=service.pk).update(**updates)
