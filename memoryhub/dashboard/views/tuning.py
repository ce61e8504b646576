"""A space's Settings tab: per-space overrides of the global defaults, validated, audited, live at once; each
setting by its name in the reader's language, its key beside it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from memoryhub.access.people import Perm
from memoryhub.audit.actions import Action
from memoryhub.audit.changes import differing
from memoryhub.dashboard import labels
from memoryhub.dashboard.access import audited, person_may, space_context, space_for_user
from memoryhub.dashboard.partials import htmx_partial, render_page
from memoryhub.spaces import space_settings


def parse(rule: space_settings.Rule, raw: str | None) -> Any:
    """A form value as the rule's type; unparseable text is passed through for validate() to refuse."""
    if rule.kind is bool:
        return raw == "on"
    raw = (raw or "").strip()
    if rule.kind is str:
        return raw
    try:
        return int(raw) if rule.kind is int else float(raw)
    except ValueError:
        return raw


def rows(values: dict[str, Any], errors: dict[str, str], overrides: dict[str, Any]) -> list[dict]:
    defaults = space_settings.defaults()
    return [{"key": key, "label": labels.label("setting", key), "rule": rule, "value": values[key],
             "default": defaults[key], "error": errors.get(key, ""), "overridden": key in overrides,
             "choices": labels.choices("recall_policy", rule.choices) if rule.choices else (),
             "kind": rule.kind.__name__ if isinstance(rule.kind, type) else "float"}
            for key, rule in space_settings.RULES.items()]


def saved(request: HttpRequest, space, message: str) -> HttpResponse:
    """After a save or a reset: htmx gets the form again with the message in it (it swaps only the form, so a
    flash message would never show); a plain post gets the message and a redirect."""
    if htmx_partial(request):
        context = {**space_context(space, "settings"), "rows": rows(space_settings.effective(space), {},
                                                                    space.settings or {}), "saved": message}
        return render(request, "dashboard/space_settings.html#settings-form", context)
    messages.success(request, message)
    return redirect("dashboard:space_settings", slug=space.slug)


@require_http_methods(["GET", "POST"])
@person_may(Perm.SPACES)
def space_settings_page(request: HttpRequest, slug: str) -> HttpResponse:
    space = space_for_user(request, slug)
    current = space_settings.effective(space)
    errors: dict[str, str] = {}
    values = current
    if request.method == "POST":
        if request.POST.get("reset"):
            with transaction.atomic():
                audited(request, Action.SPACE_SETTINGS_RESET, space.slug, before=space.settings, after={})
                space.settings = {}
                space.save(update_fields=["settings"])
            space.recount_cap()
            return saved(request, space, _("Settings reset to the global defaults."))
        posted = {key: parse(rule, request.POST.get(key)) for key, rule in space_settings.RULES.items()}
        clean, errors = space_settings.validate(posted)
        if not errors:
            defaults = space_settings.defaults()
            overrides = {k: v for k, v in clean.items() if v != defaults[k]}
            before, after = differing({k: current.get(k) for k in clean}, clean)
            space.settings = {**{k: v for k, v in (space.settings or {}).items() if k not in space_settings.RULES},
                              **overrides}
            with transaction.atomic():
                space.save(update_fields=["settings"])
                if after:
                    audited(request, Action.SPACE_SETTINGS, space.slug, before=before, after=after)
            space.recount_cap()
            if not after:
                return saved(request, space, _("Nothing changed: every value was already as shown."))
            return saved(request, space, ngettext("Saved %(n)d change; it applies from the next call.",
                                                  "Saved %(n)d changes; they apply from the next call.", len(after))
                         % {"n": len(after)})
        values = {**current, **posted}
    context = {**space_context(space, "settings"), "rows": rows(values, errors, space.settings or {}),
               "has_errors": bool(errors)}
    return render_page(request, "dashboard/space_settings.html", "settings-form", context)
