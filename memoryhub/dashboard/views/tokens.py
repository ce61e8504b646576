"""API tokens: create (the raw value is shown once), list, pause and resume, revoke. Every change is audited."""

from __future__ import annotations

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from memoryhub.access.people import Perm
from memoryhub.agents import auth
from memoryhub.agents.models import ApiToken
from memoryhub.audit.actions import Action
from memoryhub.dashboard.access import audited, person_may
from memoryhub.dashboard.forms.tokens import TokenForm
from memoryhub.dashboard.partials import after_action, render_page


def token_state(token: ApiToken, spaces) -> dict:
    """A new token as its audit record shows it: never its value, only the prefix people see on the page."""
    return {"token": token.pk, "name": token.name, "prefix": token.prefix, "origin": token.origin,
            "spaces": [s.slug for s in spaces]}


def _get_token(token_id: int) -> ApiToken:
    return get_object_or_404(ApiToken, pk=token_id)


def _context(form: TokenForm | None = None, **extra) -> dict:
    tokens = ApiToken.objects.prefetch_related("spaces").order_by(F("revoked_at").desc(nulls_first=True), "name", "pk")
    return {"tokens": tokens, "form": form or TokenForm(), "nav": "tokens", **extra}


@never_cache
@require_http_methods(["GET", "POST"])
@person_may(Perm.CONFIGURE)
def token_list(request: HttpRequest) -> HttpResponse:
    """GET lists tokens; POST creates one and answers with its raw value, which is never shown again."""
    if request.method == "GET":
        return render(request, "dashboard/tokens.html", _context())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return render_page(request, "dashboard/tokens.html", "token-panel", _context(form))
    spaces = list(form.cleaned_data["spaces"])
    token, raw = ApiToken.issue(form.cleaned_data["name"], form.cleaned_data["origin"], spaces, user=request.user)
    audited(request, Action.TOKEN_CREATE, token.actor, after=token_state(token, spaces))
    return render_page(request, "dashboard/tokens.html", "token-panel", _context(new_token=token, raw=raw))


@require_http_methods(["GET", "POST"])
@person_may(Perm.CONFIGURE)
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET asks for confirmation (the no-JS path); POST revokes: agents using it get 401 from then on."""
    token = _get_token(token_id)
    if request.method == "GET":
        return render(request, "dashboard/tokens_revoke.html", {"token": token, "nav": "tokens"})
    if auth.revoke(token):
        audited(request, Action.TOKEN_REVOKE, token.actor, before={"token": token.pk, "revoked": False},
                after={"token": token.pk, "revoked": True})
    return after_action(request, "dashboard/tokens.html#token-panel", _context(), "dashboard:tokens",
                        message=_("Token “%(name)s” revoked.") % {"name": token.name})


@require_http_methods(["POST"])
@person_may(Perm.CONFIGURE)
def token_pause(request: HttpRequest, token_id: int) -> HttpResponse:
    """Pause a token (its agents get 403 `paused`, it keeps its settings) or, when paused, resume it."""
    token = _get_token(token_id)
    paused = token.paused_at is None
    if auth.pause(token) if paused else auth.resume(token):
        audited(request, Action.TOKEN_PAUSE if paused else Action.TOKEN_RESUME, token.actor,
                before={"token": token.pk, "paused": not paused}, after={"token": token.pk, "paused": paused})
    message = _("Token “%(name)s” paused.") if paused else _("Token “%(name)s” resumed.")
    return after_action(request, "dashboard/tokens.html#token-panel", _context(), "dashboard:tokens",
                        message=message % {"name": token.name})
