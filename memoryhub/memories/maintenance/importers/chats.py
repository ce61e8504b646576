"""Chat apps' data exports: ChatGPT's and Claude.ai's `conversations.json` (the file itself, or the export's zip).

ChatGPT (Settings → Data controls → Export): a JSON list of conversations, each with `id`/`conversation_id`,
`title`, `create_time` (epoch seconds), `current_node` and `mapping`, a tree of `{id, parent, children, message}`
nodes whose messages have `author.role`, `content.content_type` and `content.parts`, `create_time`, `recipient`,
`weight` and `metadata` (described in https://whychose.com/seo/chatgpt-conversations-json-format and
https://difegam.github.io/chatgpt-to-markdown/reference/data-models). An edited prompt or a regenerated answer makes
a branch; the conversation as the person last saw it is the path from `current_node` back to the root, so that is
the branch read. Hidden messages (system, custom instructions, `weight` 0), tool calls and their output, and
reasoning are not the conversation.

Claude.ai (Settings → Privacy → Export data): a JSON list (or JSON lines) of conversations with `uuid`, `name`,
`created_at` and `chat_messages` in order, each with `uuid`, `sender` ("human" | "assistant"), `text`, `content`
blocks and `created_at` (https://whychose.com/seo/claude-conversation-export-format); newer exports name a
`parent_message_uuid` and the conversation's `current_leaf_message_uuid`, and then that branch is read.

Each user message and the assistant's answer after it make one turn, keyed by the conversation and the user
message's id, so importing the export again (or a later, larger export) adds only what is new.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from memoryhub.memories.maintenance.importers import reading
from memoryhub.memories.maintenance.importers.base import Batch, source_key, turn
from memoryhub.memories.maintenance.importers.sessions import NO_ANSWER

HIDDEN = gettext_noop("hidden messages (system, custom instructions, context)")
TOOLS = gettext_noop("tool calls and tool results")
THINKING = gettext_noop("the assistant's thinking")
BRANCHES = gettext_noop("messages on other branches (edited prompts, regenerated answers)")
ATTACHMENTS = gettext_noop("images and files (only text is imported)")
TEXT_TYPES = ("text", "multimodal_text")


def _conversations(source: reading.Source) -> list:
    if source.suffix == ".jsonl":
        return [record for _n, record in reading.lines(source, [])]
    data = source.document()
    return data if isinstance(data, list) else []


def looks_like_chatgpt(source: reading.Source) -> bool:
    if source.suffix != ".json":
        return False
    data = source.document()
    return isinstance(data, list) and any(isinstance(c, dict) and isinstance(c.get("mapping"), dict)
                                          for c in data[:5])


def looks_like_claude(source: reading.Source) -> bool:
    if source.suffix not in (".json", ".jsonl"):
        return False
    found = _conversations(source)[:5]
    return any(isinstance(c, dict) and isinstance(c.get("chat_messages"), list) for c in found)


# --- ChatGPT -------------------------------------------------------------------------------------------------

def load_chatgpt(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        data = source.document()
        if not isinstance(data, list):
            raise reading.Unreadable(f"{source.name} is not a ChatGPT export: conversations.json is a JSON list")
        for n, conversation in enumerate(data):
            where = f"{source.name}: conversation {n + 1}"
            if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
                batch.errors.append(f"{where}: not a conversation (no mapping)")
                continue
            _chatgpt_conversation(conversation, f"{where} ({_title(conversation.get('title'))})", batch, origin)


def _chatgpt_conversation(conversation: dict, where: str, batch: Batch, origin: str) -> None:
    mapping = conversation["mapping"]
    conversation_id = str(conversation.get("conversation_id") or conversation.get("id") or where)
    path = _branch(mapping, conversation.get("current_node"))
    on_path = {id(node) for node in path}
    batch.skip(BRANCHES, sum(1 for node in mapping.values() if isinstance(node, dict) and id(node) not in on_path
                             and isinstance(node.get("message"), dict)
                             and _role(node["message"]) in ("user", "assistant")))
    turns: list[dict] = []
    for node in path:
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        mid = str(message.get("id") or node.get("id") or len(turns))
        if not reading.clean(message.get("content"), f"{where}: message {mid}", batch.errors):
            if _role(message) == "user":
                turns.append({"bad": True, "said": []})
            continue
        role, text = _role(message), _chatgpt_text(message, batch)
        if text is None:
            continue
        if role == "user":
            turns.append({"id": mid, "user": text, "said": [], "at": reading.when(message.get("create_time"))})
        elif role == "assistant" and turns:
            turns[-1]["said"].append(text)
    title = _title(conversation.get("title"))
    started = reading.when(conversation.get("create_time"))
    for t in turns:
        if t.get("bad"):
            continue
        if not t["said"]:
            batch.skip(NO_ANSWER)
            continue
        batch.add(turn(source_key("chatgpt", conversation_id, t["id"]), t["user"], "\n\n".join(t["said"]),
                       at=t["at"] or started, session_id=conversation_id, origin=origin,
                       provenance={"source": "chatgpt", "conversation": title}),
                  where=f"{where}: message {t['id']}")


def _branch(mapping: dict, leaf) -> list[dict]:
    """The nodes from the root to `leaf` (the branch shown last); without a usable leaf, the newest one."""
    if not isinstance(leaf, str) or leaf not in mapping:
        leaves = [k for k, node in mapping.items() if isinstance(node, dict) and not node.get("children")]
        leaf = max(leaves, key=lambda k: _created(mapping[k]), default=None)
    path, seen = [], set()
    while isinstance(leaf, str) and leaf in mapping and leaf not in seen and isinstance(mapping[leaf], dict):
        seen.add(leaf)
        path.append(mapping[leaf])
        leaf = mapping[leaf].get("parent")
    return path[::-1]


def _created(node: dict) -> float:
    message = node.get("message") if isinstance(node.get("message"), dict) else {}
    value = message.get("create_time")
    return float(value) if isinstance(value, (int, float)) else 0.0


def _role(message: dict) -> str:
    author = message.get("author")
    return str(author.get("role") or "") if isinstance(author, dict) else ""


def _chatgpt_text(message: dict, batch: Batch) -> str | None:
    """The message's visible text, or None (counted) for what is not the conversation."""
    role = _role(message)
    content = message.get("content") if isinstance(message.get("content"), dict) else {}
    metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    ctype = content.get("content_type")
    if role in ("system",) or message.get("weight") == 0 or metadata.get("is_visually_hidden_from_conversation") \
            or ctype == "user_editable_context":
        batch.skip(HIDDEN)
        return None
    if role == "tool" or message.get("recipient") not in (None, "all") or ctype in ("code", "execution_output"):
        batch.skip(TOOLS)
        return None
    if ctype in ("thoughts", "reasoning_recap") or message.get("channel") == "commentary":
        batch.skip(THINKING)
        return None
    if role not in ("user", "assistant") or ctype not in TEXT_TYPES:
        batch.skip(HIDDEN)
        return None
    parts = content.get("parts") if isinstance(content.get("parts"), list) else []
    texts = [p for p in parts if isinstance(p, str) and p.strip()]
    batch.skip(ATTACHMENTS, sum(1 for p in parts if isinstance(p, dict)))
    return "\n\n".join(texts).strip() or None


# --- Claude.ai -----------------------------------------------------------------------------------------------

def load_claude(sources: list[reading.Source], batch: Batch, origin: str) -> None:
    for source in sources:
        for n, conversation in enumerate(_conversations(source)):
            where = f"{source.name}: conversation {n + 1}"
            if not isinstance(conversation, dict) or not isinstance(conversation.get("chat_messages"), list):
                batch.errors.append(f"{where}: not a conversation (no chat_messages)")
                continue
            _claude_conversation(conversation, f"{where} ({_title(conversation.get('name'))})", batch, origin)


def _claude_conversation(conversation: dict, where: str, batch: Batch, origin: str) -> None:
    conversation_id = str(conversation.get("uuid") or where)
    messages = [m for m in conversation["chat_messages"] if isinstance(m, dict)]
    chosen = _claude_branch(messages, conversation.get("current_leaf_message_uuid"))
    batch.skip(BRANCHES, len(messages) - len(chosen))
    turns: list[dict] = []
    for message in chosen:
        mid = str(message.get("uuid") or len(turns))
        if not reading.clean(message, f"{where}: message {mid}", batch.errors):
            if message.get("sender") == "human":
                turns.append({"bad": True, "said": []})
            continue
        text = _claude_text(message, batch)
        if message.get("sender") == "human" and text:
            turns.append({"id": mid, "user": text, "said": [], "at": reading.when(message.get("created_at"))})
        elif message.get("sender") == "assistant" and turns and text:
            turns[-1]["said"].append(text)
    title = _title(conversation.get("name"))
    for t in turns:
        if t.get("bad"):
            continue
        if not t["said"]:
            batch.skip(NO_ANSWER)
            continue
        batch.add(turn(source_key("claude-ai", conversation_id, t["id"]), t["user"], "\n\n".join(t["said"]),
                       at=t["at"] or reading.when(conversation.get("created_at")), session_id=conversation_id,
                       origin=origin, provenance={"source": "claude.ai", "conversation": title}),
                  where=f"{where}: message {t['id']}")


def _claude_branch(messages: list[dict], leaf) -> list[dict]:
    """The messages in order; with a named leaf and parent links, only the branch that ends there."""
    by_id = {m.get("uuid"): m for m in messages}
    if not isinstance(leaf, str) or leaf not in by_id or not any("parent_message_uuid" in m for m in messages):
        return messages
    path, seen = [], set()
    while leaf in by_id and leaf not in seen:
        seen.add(leaf)
        path.append(by_id[leaf])
        leaf = by_id[leaf].get("parent_message_uuid")
    return path[::-1]


def _claude_text(message: dict, batch: Batch) -> str:
    content = message.get("content")
    if isinstance(content, list) and content:
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") in ("tool_use", "tool_result"):
                batch.skip(TOOLS)
            elif block.get("type") in ("thinking", "redacted_thinking"):
                batch.skip(THINKING)
        text = "\n\n".join(t for t in texts if t.strip())
    else:
        text = reading.text_of(message.get("text"))
    batch.skip(ATTACHMENTS, len(message.get("attachments") or []) + len(message.get("files") or []))
    return text.strip()


def _title(value) -> str:
    return " ".join(str(value or "").split())[:120] or "untitled"
