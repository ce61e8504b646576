"""Bridged chats: where a turn came from when a bot carries a group or private chat to the hub (seed 003).

An entry keeps the chat as the agent described it (`Entry.chat`), its ids in the bridge's `umo` form
(`Entry.channel`: the group id, or `group#u<user>`; a private chat's user id) and tags from the platform
and chat type (`qq`, `qq-group` or `qq-private`, plus the bridge's name such as `astrbot`), so a person
sees at a glance which memories came from a chat and who said them. Re-tagging history from a bridge's
session map (maintenance/importers/retag.py) builds the same labels here. What an agent may send as a
turn's `channel` is declared by the turn operation (operations/turns.Channel), which builds this Channel.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

GROUP, PRIVATE = "group", "private"
CHAT_TYPES = (GROUP, PRIVATE)
USER_MARK = "#u"


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
