"""Origin re-tagging: data imported before a channel bridge existed gets its origin from a session map.

Only origin, channel and tags change; bodies, titles and ids stay as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from memoryhub.memories import channels
from memoryhub.memories.models import Entry
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace


@dataclass
class Retag:
    entry: Entry
    origin: str
    channel: str
    tags: list[str]


def mapping_from_sessions_json(data: dict, origin: str = "qq") -> dict[str, dict]:
    """The bridge's `{umo: {sessionId, chatType, senderId, ...}}` table as {session id: new labels}."""
    mapping = {}
    for umo, info in (data or {}).items():
        if not isinstance(info, dict) or not info.get("sessionId"):
            continue
        group = info.get("chatType") == channels.GROUP
        channel = f"{umo}{channels.USER_MARK}{info['senderId']}" if group and info.get("senderId") else str(umo)
        mapping[str(info["sessionId"])] = {"origin": origin, "channel": channel[:200],
                                           "tags": channels.labels(origin, group, "astrbot")}
    return mapping


def load_mapping(path: Path, origin: str = "qq") -> dict[str, dict]:
    return mapping_from_sessions_json(json.loads(path.read_text(encoding="utf-8")), origin)


def preview(space: MemorySpace, mapping: dict[str, dict]) -> list[Retag]:
    """Entries of the mapped sessions whose labels would change."""
    changes = []
    for entry in Entry.objects.filter(space=space, session_id__in=list(mapping)).order_by("at", "id"):
        labels = mapping[entry.session_id]
        tags = list(dict.fromkeys([*entry.tags, *labels.get("tags", [])]))
        origin, channel = labels.get("origin", entry.origin), labels.get("channel", entry.channel)
        if (origin, channel, tags) != (entry.origin, entry.channel, entry.tags):
            changes.append(Retag(entry, origin, channel, tags))
    return changes


def apply(space: MemorySpace, mapping: dict[str, dict], *, actor: str = "") -> int:
    """Set the new labels (the index follows, since tags are searchable); returns how many changed."""
    changes = preview(space, mapping)
    return gateway.retag(space, [(c.entry, c.origin, c.channel, c.tags) for c in changes], actor=actor,
                         detail=f"entries={len(changes)} sessions={len(mapping)}")
