"""What the hub offers an agent besides memory: its spaces (list, create) and providers, and ending a session.

These are operations like the others (declared input, named permission, one run), served only over /api/v1
(`GET`/`POST /spaces`, `GET /providers`, `POST /sessions/{id}/end`; MCP's `DELETE /mcp` ends a session with
the same operation), so the API reaches the space service only through here.
"""

from __future__ import annotations

from typing import Annotated

from django.utils.translation import gettext_noop
from pydantic import AfterValidator, Field

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.core.errors import bad
from memoryhub.core.redaction import opaque_id
from memoryhub.operations.base import Input, operation
from memoryhub.operations.fields import Config, Workspace, Choice, problem, Strings, Text
from memoryhub.spaces import space_service
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.providers_info import choose_provider, provider_listing, space_listing
from memoryhub.spaces.selection import BOUNDARIES, PREFERENCES, SelectionError
from providers.registry import PROVIDERS, get_provider_class


class Nothing(Input):
    """No arguments."""

    noun = "field"


def any_token(call: Call, session_id: str, args: Input) -> None:
    """Every live token may ask (the token itself was checked by agents/auth.admit)."""
    return None


def allowed_spaces(call: Call, session_id: str, args: Input):
    """The spaces this token may use (policy.allowed_spaces: all, or the ones it is limited to)."""
    return policy.allowed_spaces(call)


@operation("providers_list", Nothing, permission=any_token, tool=False, mcp=False, endpoint="GET /api/v1/providers",
           in_session=False, description="Every provider kind, configured or not, with its capabilities.")
def providers_list(call: Call, session_id: str, args: Nothing, permitted: None) -> dict:
    return {"providers": provider_listing()}


@operation("spaces_list", Nothing, permission=allowed_spaces, tool=False, mcp=False, endpoint="GET /api/v1/spaces",
           in_session=False, description="The spaces this token may use.")
def spaces_list(call: Call, session_id: str, args: Nothing, spaces) -> dict:
    return {"spaces": [space_listing(s) for s in spaces.order_by("slug")]}


def _kinds(value: list[str]) -> list[str]:
    if not value or any(c not in PROVIDERS for c in value):
        raise problem(gettext_noop("{field} must list provider kinds ({kinds})"), kinds=", ".join(PROVIDERS))
    return value


class Selection(Input):
    """Smart selection instead of `provider`: hard rules first, then the configured LLM among the eligible ones."""

    noun = "field"
    candidates: Annotated[Strings(len(PROVIDERS), 20), AfterValidator(_kinds)] = Field(
        description="the provider kinds to choose among")
    boundary: Choice(BOUNDARIES) = Field("any", description="`any`, or `local-only`: remote providers are removed")
    required: Strings(10, 20) = Field([], description="capabilities the space must have, e.g. `related`, `graph`")
    preference: Choice(PREFERENCES) = Field("balanced", description="the soft preference among the eligible ones")
    policy_prompt: Text(4000) = Field("", description="what the configured LLM should weigh, in words")


class SpaceNew(Input):
    """Create a space."""

    noun = "field"
    slug: Text(80, blank=False) = Field(description="lower-case letters, digits, `-`, `_`; `409 conflict` if it "
                                                    "exists")
    name: Text(200, blank=False) = Field(description="shown on the dashboard")
    provider: Choice(PROVIDERS) = Field(MemorySpace.NATIVE, description="a provider kind (default `native`)")
    access: Choice(MemorySpace.Access.values) = Field(MemorySpace.Access.OPEN,
                                                      description="`open` (default) or `vault`")
    description: Text(2000) = Field("", description="what the space is for")
    config: Config = Field({}, description='the provider\'s space fields (see the provider page), e.g. '
                                           '`{"userId": "alice"}` for Mem0')
    selection: Selection | None = Field(None, description=(
        "smart selection instead of `provider` (below): hard rules first, then the configured LLM (never given "
        "credentials) among the eligible ones"))
    workspace: Workspace = Field("", description="bind the space to a workspace")


def space_maker(call: Call, session_id: str, args: SpaceNew) -> None:
    """Only a local token allowed every space may add one (policy.may_create_spaces)."""
    policy.may_create_spaces(call)


@operation("space_create", SpaceNew, permission=space_maker, tool=False, mcp=False, endpoint="POST /api/v1/spaces",
           in_session=False)
def space_create(call: Call, session_id: str, args: SpaceNew, permitted: None):
    space_service.check_slug(args.slug)
    config = dict(args.config)
    if args.selection is not None:
        kind, selection = smart_choice(args.selection, args.description)
        config = {k: v for k, v in config.items() if k in {f.key for f in get_provider_class(kind).space_fields}}
    else:
        kind, selection = args.provider, {"source": "manual", "by": call.actor}
    space_service.check_config(kind, config)
    space = space_service.create_space(
        slug=args.slug, name=args.name, provider=kind, access=args.access, description=args.description,
        config=config, workspace=policy.workspace_arg(call, args.given()), selection=selection, actor=call.actor,
    )
    return space_listing(space), 201


def smart_choice(selection: Selection, description: str) -> tuple[str, dict]:
    """Smart mode: hard rules over the ticked candidates, then the configured LLM (never given credentials)."""
    try:
        decision = choose_provider(
            selection.candidates, boundary=selection.boundary, required=set(selection.required),
            preference=selection.preference,
            policy_prompt="\n".join(p for p in (description, selection.policy_prompt) if p),
        )
    except (SelectionError, ValueError) as exc:
        raise bad(str(exc), "selection") from exc
    return decision.provider, {"source": decision.source, **decision.as_dict()}


@operation("session_end", Nothing, permission=any_token, tool=False, mcp=False,
           endpoint="POST /api/v1/sessions/{session_id}/end", in_session=False,
           description="End an agent session: its vault grants end and its pending requests close.")
def session_end(call: Call, session_id: str, args: Nothing, permitted: None) -> dict:
    return {"expired_grants": sessions.end(call.token, opaque_id(session_id))}  # as the session's calls stored it
