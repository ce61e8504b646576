"""The agent API of docs/api.md: health, providers, spaces, turns, context, sessions, tools."""

from __future__ import annotations

from dataclasses import replace

from django.http import HttpRequest
from django.utils import timezone
from django.views import defaults

from memoryhub import __version__
from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents import sessions
from memoryhub.agents.calls import api_error
from memoryhub.api.endpoint import endpoint, known_fields
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.redaction import opaque_id
from memoryhub.memories import channels
from memoryhub.memories.recall import cards as recall
from memoryhub.memories.models import AUTOMATIC_SKIP, Kind
from memoryhub.memories.write import gateway
from memoryhub.spaces import space_service, space_settings
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.providers_info import choose_provider, provider_listing, space_listing
from memoryhub.spaces.selection import SelectionError
from memoryhub.tools import args as A
from memoryhub.tools import notebooks, registry
from providers.registry import PROVIDERS, get_provider_class


def session_arg(args: dict) -> str:
    """The agent's session id; one carrying a secret is kept as a digest (it is stored and shown to people)."""
    return opaque_id(A.text(args, "session_id", required=True, max_len=200))


@endpoint("GET", auth=False)
def health(request: HttpRequest) -> dict:
    return {"status": "ok", "version": __version__}


@endpoint("GET")
def providers(request: HttpRequest, call: Call) -> dict:
    return {"providers": provider_listing()}


@endpoint("GET", "POST", fields=("slug", "name", "provider", "access", "description", "config", "selection",
                                   "workspace"))
def spaces(request: HttpRequest, call: Call):
    if request.method == "GET":
        return {"spaces": [space_listing(s) for s in policy.allowed_spaces(call).order_by("slug")]}
    return create_space(call)


def create_space(call: Call):
    policy.may_create_spaces(call)
    body = call.body
    slug = A.text(body, "slug", required=True, max_len=80)
    space_service.check_slug(slug)
    name = A.text(body, "name", required=True, max_len=200)
    access = A.choice(body, "access", MemorySpace.Access.values, default=MemorySpace.Access.OPEN) or MemorySpace.Access.OPEN
    description = A.text(body, "description", max_len=2000)
    config = A.obj(body.get("config"), "config")
    if body.get("selection") is not None:
        kind, selection = smart_choice(A.obj(body.get("selection"), "selection"), description)
        config = {k: v for k, v in config.items() if k in {f.key for f in get_provider_class(kind).space_fields}}
    else:
        kind = A.choice(body, "provider", list(PROVIDERS), default=MemorySpace.NATIVE) or MemorySpace.NATIVE
        selection = {"source": "manual", "by": call.actor}
    space_service.check_config(kind, config)
    space = space_service.create_space(
        slug=slug, name=name, provider=kind, access=access, description=description, config=config,
        workspace=policy.workspace_arg(call, body), selection=selection, actor=call.actor,
    )
    return space_listing(space), 201


def smart_choice(selection: dict, description: str) -> tuple[str, dict]:
    """Smart mode: hard rules over the ticked candidates, then the configured LLM (never given credentials)."""
    candidates = A.strings(selection, "candidates", max_items=len(PROVIDERS), max_len=20)
    unknown = [c for c in candidates if c not in PROVIDERS]
    if not candidates or unknown:
        raise bad(f"selection.candidates must list provider kinds ({', '.join(PROVIDERS)})", "selection")
    required = set(A.strings(selection, "required", max_items=10, max_len=20))
    try:
        decision = choose_provider(
            candidates, boundary=A.text(selection, "boundary", max_len=20, default="any") or "any",
            required=required, preference=A.text(selection, "preference", max_len=20, default="balanced") or "balanced",
            policy_prompt="\n".join(p for p in (description, A.text(selection, "policy_prompt", max_len=4000)) if p),
        )
    except (SelectionError, ValueError) as exc:
        raise bad(str(exc), "selection") from exc
    return decision.provider, {"source": decision.source, **decision.as_dict()}


def entry_summary(result: gateway.Written) -> dict:
    if result.entry is not None:
        e = result.entry
        return {"id": str(e.pk), "space": result.space.slug, "at": e.at_iso, "summary": e.summary,
                "category": e.category}
    return {"id": result.id, "space": result.space.slug, "at": timezone.now().isoformat(), "summary": "",
            "category": "context", "receipt": result.receipt.state if result.receipt else "unknown"}


AGENT_CONTEXTS = ("primary", "subagent", "cron", "flush")


TURN_FIELDS = ("session_id", "user", "assistant", "space", "workspace", "at", "idempotency_key", "agent_context",
               "channel")
BATCH_TURNS = 100
BATCH_FIELDS = ("turns", "space", "workspace")


@endpoint("POST", fields=(*TURN_FIELDS, "turns"))
def turns(request: HttpRequest, call: Call):
    """One turn, or `{"turns": [...]}`: a batch written in one transaction, answered one result per turn."""
    if "turns" in call.body:
        return {"results": turn_batch(call)}, 200
    space, draft, skipped = read_turn(call, call.body)
    if skipped:
        return skipped, 200
    return turn_answer(gateway.write(space, draft, actor=call.actor))


def turn_batch(call: Call) -> list[dict]:
    """Each turn read on its own (a bad one answers its own error), then every good one written at once."""
    body = call.body
    unknown = sorted(set(body) - set(BATCH_FIELDS))
    if unknown:
        raise bad(f"a batch takes only turns, space and workspace; {unknown[0]} belongs in each turn", unknown[0])
    batch = body["turns"]
    if not isinstance(batch, list) or not batch:
        raise bad("turns must be a non-empty list of turn objects", "turns")
    if len(batch) > BATCH_TURNS:
        raise bad(f"turns takes at most {BATCH_TURNS} turns per request; send the rest in another", "turns")
    defaults = {key: body[key] for key in ("space", "workspace") if key in body}
    spaces: dict = {}  # (space, workspace) arguments -> the space they resolved to, once per batch
    results: list[dict | None] = [None] * len(batch)
    drafts, places = [], []
    for n, fields in enumerate(batch):
        try:
            if not isinstance(fields, dict):
                raise bad(f"turns[{n}] must be an object", "turns")
            known_fields(fields, TURN_FIELDS)
            space, draft, skipped = read_turn(call, {**defaults, **fields}, spaces)
        except Exception as exc:  # noqa: BLE001 — this turn's own error; the others go on
            results[n] = error_result(exc)
            continue
        if skipped:
            results[n] = {"status": 200, **skipped}
        else:
            drafts.append((space, draft))
            places.append(n)
    for n, written in zip(places, gateway.write_many(drafts, actor=call.actor)):
        if isinstance(written, Exception):
            results[n] = error_result(written)
        else:
            answer, status = turn_answer(written)
            results[n] = {"status": status, **answer}
    return results


def read_turn(call: Call, body: dict, spaces: dict | None = None) -> tuple[MemorySpace, gateway.Draft | None,
                                                                          dict | None]:
    """(space, draft, None) for a turn to write, or (space, None, the answer) for one its space does not archive;
    raises the turn's error. `spaces` remembers where each (space, workspace) pair of a batch goes."""
    session_id = session_arg(body)
    user = A.text(body, "user", required=True)
    assistant = A.text(body, "assistant", required=True, allow_empty=True)
    at = A.moment(body, "at")
    key = A.text(body, "idempotency_key", max_len=200)
    agent_context = A.choice(body, "agent_context", AGENT_CONTEXTS, default="primary") or "primary"
    chat = channels.parse(body.get("channel"))
    where = (body.get("space"), body.get("workspace"))
    remembered = spaces is not None and all(v is None or isinstance(v, str) for v in where)
    space = spaces.get(where) if remembered else None
    if space is None:
        space = policy.write_space(call, body)
        if remembered:
            spaces[where] = space
    sessions.touch(call.token, session_id)
    if not records(space, agent_context):
        return space, None, {"entry": None, "facts": {"asserted": [], "invalidated": []}, "redactions": 0,
                             "skipped": f"{agent_context} turns are not archived in {space.slug}"}
    draft = gateway.Draft(kind=Kind.TURN, user=user, assistant=assistant, session_id=session_id, at=at,
                          origin=call.origin, idempotency_key=key, writer=str(call.token.pk))
    if chat is not None:
        draft = replace(draft, channel=chat.umo, chat=chat.as_dict(), tags=chat.tags)
    return space, draft, None


def turn_answer(result: gateway.Written) -> tuple[dict, int]:
    payload = {"entry": entry_summary(result), "facts": result.facts, "redactions": result.redactions}
    if not policy.shows_derived(result.space):  # a vault's summary and facts stay in it, even for a repeated key
        payload["entry"]["summary"] = ""
        payload["facts"] = {"asserted": [], "invalidated": []}
    if not result.created:
        payload["redactions"] = result.entry.redactions if result.entry else result.redactions
    return payload, (201 if result.created else 200)


def error_result(exc: Exception) -> dict:
    """One item's failure inside a batch answer: its status and the API's error object."""
    error = api_error(exc, "a batch item")
    return {"status": error.status, "error": error.as_dict()}


def records(space: MemorySpace, agent_context: str) -> bool:
    """Only the primary agent's turns are archived, plus sub-agents' where recordSubagents is on."""
    if agent_context == "primary":
        return True
    return agent_context == "subagent" and space_settings.effective(space)["recordSubagents"]


@endpoint("POST", fields=("session_id", "query", "space", "workspace", "max_chars", "skipTags"))
def context(request: HttpRequest, call: Call) -> dict:
    body = call.body
    session_id = session_arg(body)
    query = A.text(body, "query", max_len=4000)
    max_chars = None
    if body.get("max_chars") is not None:
        max_chars = A.integer(body, "max_chars", default=0, low=0, high=100_000)
    skip = A.skip_tags(body, AUTOMATIC_SKIP)
    spaces = policy.read_spaces(call, body)
    session = sessions.see(call.token, session_id)
    missing: list = []
    ctx, cards = recall.context_block(notebooks.pinned(call, session, body), spaces, query,
                                      origin=policy.readable_origin(call), session_id=session_id,
                                      max_chars=max_chars, home=policy.home_space(call, body), skip_tags=skip,
                                      missing=missing)
    recall.note_recall(cards, query, call.actor)
    answer = {"text": ctx.text, "chars": ctx.chars, "items": ctx.items}
    if missing:  # third-party spaces left out: failed, or late for the read's deadline
        answer["warnings"] = [m.as_dict() for m in missing]
    return answer


@endpoint("POST")
def session_end(request: HttpRequest, call: Call, session_id: str) -> dict:
    return {"expired_grants": sessions.end(call.token, session_id)}


@endpoint("GET")
def tool_list(request: HttpRequest, call: Call) -> dict:
    return {"tools": [t.schema() for t in registry.TOOLS.values()]}


@endpoint("POST", fields=("session_id", "arguments"))
def tool_call(request: HttpRequest, call: Call, name: str) -> dict:
    tool = registry.get(name)
    session_id = session_arg(call.body)
    arguments = A.obj(call.body.get("arguments"), "arguments")
    return {"result": sessions.run(call.token, session_id, lambda: tool.run(call, session_id, arguments))}


# --- Django's error pages, for agent paths ------------------------------------------------------
AGENT_PATHS = ("/api/", "/mcp")


def for_agents(request: HttpRequest) -> bool:
    return request.path.startswith(AGENT_PATHS)


def page_not_found(request: HttpRequest, exception=None):
    """An unknown /api/v1/... path answers in the API's shape; elsewhere Django's page."""
    if for_agents(request):
        return ApiError("not_found", f"no endpoint {request.path}; see GET /api/v1/tools and docs/api.md").response()
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception=None):
    """A Host header outside MEMORYHUB_ALLOWED_HOSTS (and other suspicious requests), JSON for agents."""
    if for_agents(request):
        return bad("bad request: the Host header is not one of MEMORYHUB_ALLOWED_HOSTS, or the request was "
                   "malformed").response()
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest):
    if for_agents(request):
        return ApiError("internal", "internal error; the hub's log has details").response()
    return defaults.server_error(request)
