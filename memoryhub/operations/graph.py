"""The graph operations: an explicit link between two memories, and a verdict on one memory (trust feedback).

Each answers `422 unsupported` where the space's provider does not declare the capability: `link`, which only
native declares (its typed edges, written through the write gateway), or trust scores for feedback. Every id
is resolved through access/policy as memory_recall resolves it, so the origin, vault, token and
inactive-space rules hold for both ends of a link.
"""

from __future__ import annotations

from pydantic import Field

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.audit.models import record
from memoryhub.core.errors import ApiError, bad
from memoryhub.core.http import without_endpoints
from memoryhub.memories import remote
from memoryhub.memories.models import EDGE_TYPES, EdgeType, Entry
from memoryhub.memories.write import gateway
from memoryhub.operations import needs
from memoryhub.operations.base import Input, operation
from memoryhub.operations.fields import RecordId, Choice
from memoryhub.spaces.provider_services import provider_for
from providers.base import ProviderError
from providers.registry import get_provider_class

WEIGHT = 0.5  # an explicit link's weight (Mnemon's `link` default); the worker's own edges carry theirs
VERDICTS = ("helpful", "wrong")


class Link(Input):
    """Link two memories of one space, where its provider keeps explicit links (native); memory_recall then
    lists each in the other's related."""

    from_: RecordId = Field(alias="from", description="a memory id")
    to: RecordId = Field(description="another memory id of the same space")
    kind: Choice(EDGE_TYPES) = Field(EdgeType.SEMANTIC, description=(
        "the native store's edge types: `semantic` (default: about the same thing), `causal` (`from` led to "
        "`to`), `temporal` (one followed the other), `entity` (about the same named thing), `supersedes` "
        "(`from` replaces `to`)"))


def link_ends(call: Call, session_id: str, args: Link) -> policy.Target:
    """Both ends must be memories this call may change (policy.changeable_memory, blamed on `from` or `to`);
    the first is resolved here, the second once the first's provider is known to keep links."""
    return policy.changeable_memory(call, args.from_, "from")


@operation("memory_link", Link, permission=link_ends)
def memory_link(call: Call, session_id: str, args: Link, source: policy.Target) -> dict:
    source_id, target_id, kind = args.from_, args.to, args.kind
    provider_class = get_provider_class(source.space.provider)
    if not provider_class.capabilities.link or source.entry is None:  # native is the one provider with links
        raise ApiError("unsupported", f"{provider_class.label} (space {source.space.slug!r}) keeps no links "
                                      "between memories", "from")
    target = policy.changeable_memory(call, target_id, "to")
    if target.space.pk != source.space.pk:
        raise bad(f"to is in space {target.space.slug!r} and from in {source.space.slug!r}; "
                  "a link joins two memories of one space", "to")
    if target.entry.pk == source.entry.pk:
        raise bad("to must name another memory than from", "to")
    gateway.link(source.entry, target.entry, kind, WEIGHT, actor=call.actor)
    return {"from": source_id, "to": target_id, "kind": kind}


class Feedback(Input):
    """Say whether a memory was helpful or wrong, where its provider keeps trust scores (Holographic): helpful
    raises its trust by 0.05, wrong lowers it by 0.10, and below the space's minTrust it leaves search and recall."""

    id: RecordId = Field(description="a memory id from a search result or a write")
    verdict: Choice(VERDICTS) = Field(description="`helpful` or `wrong`")


@operation("memory_feedback", Feedback, permission=needs.changeable_memory)
def memory_feedback(call: Call, session_id: str, args: Feedback, target: policy.Target) -> dict:
    record_id, verdict = args.id, args.verdict
    provider_class = get_provider_class(target.space.provider)
    if not provider_class.has_trust:
        raise ApiError("unsupported", f"{provider_class.label} (space {target.space.slug!r}) keeps no trust scores",
                       "id")
    provider = provider_for(target.space)
    try:
        trust = [provider.feedback(one, verdict == "helpful").extra["trust"]
                 for one in remote.record_ids(target.space, provider, target.remote_id)]
    except ProviderError as exc:
        if exc.status == 404:
            raise ApiError("not_found", f"no memory {record_id!r}: {without_endpoints(exc.message)}", "id") from exc
        raise
    finally:
        provider.close()
    record(call.actor, "memory.feedback", target.space.slug, id=record_id, verdict=verdict, trust=trust)
    return {"id": record_id, "trust": trust[0]}


def linked(call: Call, entry: Entry) -> list[str]:
    """Ids of the live memories explicitly linked to `entry` (memory_link, a person's link, an import) that this
    call may see; the worker's automatic edges (time, shared names) are not listed."""
    found = Entry.objects.live().filter(edges_in__source=entry, edges_in__metadata__has_key="created_by")
    return [str(pk) for pk in policy.of_visible_origin(call, found).order_by("pk").values_list("pk", flat=True)
            .distinct()]
