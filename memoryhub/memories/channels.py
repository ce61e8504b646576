"""Bridged chats: where a turn came from when a bot carries a group or private chat to the hub (seed 003).

An entry keeps the chat as the agent described it (`Entry.chat`), its ids in the bridge's `umo` form
(`Entry.channel`: the group id, or `group#u<user>`; a private chat's user id) and tags from the platform
and chat type (`qq`, `qq-group` or `qq-private`, plus the bridge's name such as `astrbot`), so a person
sees at a glance which memories came from a chat and who said them. Re-tagging history from a bridge's
session map (maintenance/importers/retag.py) builds the same labels here.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from memoryhub.core.errors import bad

GROUP, PRIVATE = "group", "private"
CHAT_TYPES = (GROUP, PRIVATE)
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")  # a platform or bridge: lower-case, as it becomes a tag
USER_MARK = "#u"
ID_CHARS, NAME_CHARS = 100, 200
FIELDS = ("platform", "chat_type", "chat_id", "chat_name", "user_id", "user_name", "thread_id", "bridge")


@dataclass(frozen=True)
class Channel:
    platform: str
    chat_type: str
    chat_id: str = ""
    chat_name: str = ""
    user_id: str = ""
    user_name: str = ""
    thread_id: str = ""
    bridge: str = ""

    @property
    def umo(self) -> str:
        """The chat's ids as the entry keeps them: `group` or `group#u<user>`; a private chat's user."""
        if self.chat_type == GROUP:
            return f"{self.chat_id}{USER_MARK}{self.user_id}" if self.user_id else self.chat_id
        return self.user_id or self.chat_id

    @property
    def tags(self) -> list[str]:
        return labels(self.platform, self.chat_type == GROUP, self.bridge)

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in asdict(self).items() if v}


def labels(platform: str, group: bool, bridge: str = "") -> list[str]:
    """The tags of a bridged chat: the platform, the bridge, `<platform>-group` or `<platform>-private`."""
    return list(dict.fromkeys(t for t in (platform, bridge, f"{platform}-{GROUP if group else PRIVATE}") if t))


def parse(value: Any, field: str = "channel") -> Channel | None:
    """The `channel` object of a turn, checked field by field; None when absent. Ids may be numbers."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad(f"{field} must be an object: {{platform, chat_type, chat_id, user_id, …}}", field)
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        raise bad(f"{field} takes {', '.join(FIELDS)}; {unknown[0]!r} is not one of them", f"{field}.{unknown[0]}")
    clean = {key: _text(value, key, field) for key in FIELDS}
    for key in ("platform", "bridge"):
        if clean[key] and not NAME.match(clean[key]):
            raise bad(f"{field}.{key} must be a short lower-case name (letters, digits, - _ .), e.g. \"qq\"",
                      f"{field}.{key}")
    if not clean["platform"]:
        raise bad(f"{field}.platform is required, e.g. \"qq\" or \"telegram\"", f"{field}.platform")
    if clean["chat_type"] not in CHAT_TYPES:
        raise bad(f"{field}.chat_type must be {GROUP!r} or {PRIVATE!r}", f"{field}.chat_type")
    if clean["chat_type"] == GROUP and not clean["chat_id"]:
        raise bad(f"{field}.chat_id is required for a group chat", f"{field}.chat_id")
    if clean["chat_type"] == PRIVATE and not (clean["chat_id"] or clean["user_id"]):
        raise bad(f"{field}.user_id (or chat_id) is required for a private chat", f"{field}.user_id")
    return Channel(**clean)


def _text(value: dict, key: str, field: str) -> str:
    raw = value.get(key)
    if raw is None:
        return ""
    if isinstance(raw, int) and not isinstance(raw, bool) and key.endswith("_id"):
        raw = str(raw)
    if not isinstance(raw, str):
        raise bad(f"{field}.{key} must be a string", f"{field}.{key}")
    raw = raw.strip()
    limit = NAME_CHARS if key.endswith("_name") else ID_CHARS
    if len(raw) > limit:
        raise bad(f"{field}.{key} is {len(raw)} characters; the limit is {limit}", f"{field}.{key}")
    if any(ord(c) < 32 or ord(c) == 127 for c in raw) or (key.endswith("_id") and " " in raw):
        raise bad(f"{field}.{key} holds control characters{' or spaces' if key.endswith('_id') else ''}",
                  f"{field}.{key}")
    return raw


def describe(chat: dict | None, umo: str, tags: list[str] | None) -> dict[str, str]:
    """What the dashboard shows of a bridged entry: {"group", "user"} (names where the agent gave them), or {}.

    Entries re-tagged from a session map have only the `umo` (a bridge's, like `aiocqhttp:GroupMessage:123#u456`)
    and tags; the last `:` part of its chat is the group number.
    """
    if chat:
        group = chat.get("chat_type") == GROUP
        shown = {"group": _named(chat.get("chat_name"), chat.get("chat_id")) if group else "",
                 "user": _named(chat.get("user_name"), chat.get("user_id") or ("" if group else chat.get("chat_id")))}
        return {k: v for k, v in shown.items() if v}
    if not umo:
        return {}
    chat_part, _, user = umo.rpartition(USER_MARK) if USER_MARK in umo else (umo, "", "")
    group = any(t.endswith(f"-{GROUP}") for t in tags or []) or bool(user)
    if group:
        return {k: v for k, v in {"group": chat_part.rsplit(":", 1)[-1], "user": user}.items() if v}
    return {"user": umo.rsplit(":", 1)[-1]}


def _named(name: str | None, ident: str | None) -> str:
    if name and ident:
        return f"{name} ({ident})"
    return name or ident or ""
