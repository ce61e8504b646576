"""Histories in the shapes people bring them from, generated from a seed: the import bench's input (bench/imports.py,
at 1,000 turns and more) and the import tests' fixtures (small, plus the hand-made edge cases the tests add).

Each builder follows its vendor's documented or observed format and names the page it follows; none copies a
vendor's data. The conversations are made of a few hundred English and Chinese sentences about everyday project
work, so topics, facts and recall have something real to find.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

START = datetime(2025, 11, 3, 9, 0, tzinfo=UTC)
SUBJECTS = ["the nightly backup", "the nginx config", "alerts.log rotation", "the CI pipeline", "the staging deploy",
            "the Postgres upgrade", "the invoice export", "the Redis cache", "the login form", "the cron jobs",
            "备份脚本", "部署流程", "日志轮转", "数据库迁移"]
ASKS = ["Where does {s} run from?", "Why did {s} fail last night?", "Can you check {s} before I push?",
        "What changed in {s} this week?", "How do I restart {s} safely?", "{s}在哪台机器上？", "{s}为什么又失败了？"]
ANSWERS = ["{s} runs from scripts/{f}.sh on {h}, every night at 0{n}:00 by cron (ticket {t}).",
           "It failed because the disk on {h} was full; I freed {n}2 GB and re-ran {s} (ticket {t}).",
           "I checked {s}: the tests pass and the config on {h} matches the repository (ticket {t}).",
           "{s} now keeps {n}4 days of history; the old copies on {h} were removed (ticket {t}).",
           "{s}已经改好了，配置在 {h} 的 /etc/{f}.conf（工单 {t}）。"]
FACTS = ["Call me Wang.", "I prefer Python over Go for scripts.", "以后叫我老王。", "I don't like long answers.",
         "My name is Wang Lei.", "我喜欢用 vim。"]
HOSTS = ["nas", "db1", "web2", "ci-runner", "backup-01"]
FILES = ["backup", "deploy", "rotate", "migrate", "export"]


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def exchanges(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """n (user, assistant) pairs; now and then the user says something about themselves."""
    out = []
    for i in range(n):
        s = rng.choice(SUBJECTS)
        ask = rng.choice(ASKS).format(s=s)
        if i % 7 == 3:
            ask = f"{rng.choice(FACTS)}\n{ask}"
        said = rng.choice(ANSWERS).format(s=s, f=rng.choice(FILES), h=rng.choice(HOSTS), n=rng.randint(1, 5),
                                          t=rng.randint(1000, 999_999))
        out.append((ask, said))
    return out


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def _lines(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# --- agents' transcripts -----------------------------------------------------------------------------------

def claude_code_project(root: Path, *, sessions: int, turns: int, seed: int = 1, cwd: str = "/home/wang/ledger") -> Path:
    """A `~/.claude/projects/<cwd with "/" as "-">/` folder: one `<session id>.jsonl` per session (the line shapes of
    https://docs.claude.com/en/docs/claude-code/sdk/sdk-sessions and of the transcripts Claude Code 2.x writes:
    snapshots, prompts, thinking, tool use and results, text blocks of one message on separate lines, stop-hook
    summaries), and one session's sub-agent transcript under `<session id>/subagents/`."""
    rng = random.Random(seed)
    folder = root / cwd.replace("/", "-")
    for s in range(sessions):
        session, at = _uuid(rng), START + timedelta(days=s)
        common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
                  "version": "2.1.17", "gitBranch": "main"}
        records: list[dict] = [{"type": "file-history-snapshot", "messageId": _uuid(rng), "snapshot": {
            "trackedFileBackups": {}, "timestamp": _iso(at)}, "isSnapshotUpdate": False}]
        for user, assistant in exchanges(rng, turns):
            at += timedelta(minutes=rng.randint(1, 20))
            prompt, msg, tool = _uuid(rng), f"msg_{rng.getrandbits(48):012x}", f"toolu_{rng.getrandbits(48):012x}"
            records += [
                {**common, "parentUuid": None, "type": "user", "uuid": prompt, "timestamp": _iso(at),
                 "message": {"role": "user", "content": user}},
                {**common, "parentUuid": prompt, "type": "assistant", "uuid": _uuid(rng), "timestamp": _iso(at),
                 "requestId": "req_1", "message": {"id": msg, "type": "message", "role": "assistant",
                                                   "model": "claude-sonnet-4-5", "content": [
                                                       {"type": "thinking", "thinking": "Look first.",
                                                        "signature": "Eq"}]}},
                {**common, "parentUuid": prompt, "type": "assistant", "uuid": _uuid(rng), "timestamp": _iso(at),
                 "message": {"id": msg, "role": "assistant", "content": [
                     {"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": "ls scripts"}}]}},
                {**common, "parentUuid": prompt, "type": "user", "uuid": _uuid(rng), "timestamp": _iso(at),
                 "message": {"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result",
                                                          "content": "backup.sh deploy.sh"}]}},
                {**common, "parentUuid": prompt, "type": "assistant", "uuid": _uuid(rng), "timestamp": _iso(at),
                 "message": {"id": msg + "b", "role": "assistant", "content": [{"type": "text", "text": assistant}]}},
                {**common, "parentUuid": prompt, "type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
                 "uuid": _uuid(rng), "timestamp": _iso(at)},
            ]
        _lines(folder / f"{session}.jsonl", records)
        if s == 0:
            _lines(folder / session / "subagents" / "agent-a1b2c3.jsonl", [
                {**common, "isSidechain": True, "agentId": "a1b2c3", "type": "user", "uuid": _uuid(rng),
                 "timestamp": _iso(at), "message": {"role": "user", "content": "Compare row counts"}},
                {**common, "isSidechain": True, "agentId": "a1b2c3", "type": "assistant", "uuid": _uuid(rng),
                 "timestamp": _iso(at), "message": {"id": "msg_sub", "role": "assistant",
                                                    "content": [{"type": "text", "text": "They match."}]}}])
            (folder / session / "subagents" / "agent-a1b2c3.meta.json").write_text(
                json.dumps({"agentType": "general-purpose", "description": "Check backup"}))
    return folder


def codex_sessions(root: Path, *, sessions: int, turns: int, seed: int = 2, cwd: str = "/home/wang/ledger") -> Path:
    """A `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` tree in the RolloutLine shape of openai/codex
    (codex-rs/protocol; described in https://codex.danielvaughan.com/2026/04/29/codex-cli-rollout-files-session-
    recording-replay-audit-trails/): session_meta, injected instructions, and per turn turn_context, task_started,
    the wire items (message, reasoning, function call and output) and the event messages people saw."""
    rng = random.Random(seed)
    for s in range(sessions):
        session, at = _uuid(rng), START + timedelta(days=s, hours=2)
        name = f"rollout-{at.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl"
        records: list[dict] = [
            {"timestamp": _iso(at), "type": "session_meta", "payload": {
                "id": session, "timestamp": _iso(at), "cwd": cwd, "originator": "codex_cli_rs",
                "cli_version": "0.120.0", "source": "cli", "model_provider": "openai"}},
            {"timestamp": _iso(at), "type": "response_item", "payload": {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<user_instructions>\nrun make test before pushing\n</user_instructions>"}]}},
        ]
        for user, assistant in exchanges(rng, turns):
            at += timedelta(minutes=rng.randint(1, 20))
            turn_id = _uuid(rng)
            records += [
                {"timestamp": _iso(at), "type": "turn_context", "payload": {"turn_id": turn_id, "cwd": cwd,
                                                                            "model": "gpt-5-codex"}},
                {"timestamp": _iso(at), "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn_id}},
                {"timestamp": _iso(at), "type": "response_item", "payload": {
                    "type": "message", "role": "user", "content": [{"type": "input_text", "text": user}]}},
                {"timestamp": _iso(at), "type": "event_msg", "payload": {"type": "user_message", "message": user}},
                {"timestamp": _iso(at), "type": "response_item", "payload": {
                    "type": "reasoning", "summary": [{"type": "summary_text", "text": "Reading"}]}},
                {"timestamp": _iso(at), "type": "response_item", "payload": {
                    "type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"}},
                {"timestamp": _iso(at), "type": "response_item", "payload": {
                    "type": "function_call_output", "call_id": "c1", "output": "scripts"}},
                {"timestamp": _iso(at), "type": "response_item", "payload": {
                    "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": assistant}]}},
                {"timestamp": _iso(at), "type": "event_msg", "payload": {"type": "agent_message", "message": assistant}},
                {"timestamp": _iso(at), "type": "event_msg", "payload": {"type": "token_count", "info": {}}},
                {"timestamp": _iso(at), "type": "event_msg", "payload": {
                    "type": "task_complete", "turn_id": turn_id, "last_agent_message": assistant}},
            ]
        _lines(root / at.strftime("%Y/%m/%d") / name, records)
    return root


# --- chat apps' exports ------------------------------------------------------------------------------------

def chatgpt_conversations(*, conversations: int, turns: int, seed: int = 3) -> list[dict]:
    """conversations.json of a ChatGPT data export (https://whychose.com/seo/chatgpt-conversations-json-format):
    a message tree per conversation under a synthetic root, a hidden system message, and every third conversation
    an edited prompt (a branch the person left, so `current_node` points down the other one)."""
    rng = random.Random(seed)
    out = []
    for c in range(conversations):
        cid, created = _uuid(rng), (START + timedelta(days=c)).timestamp()
        mapping: dict[str, dict] = {"client-created-root": {"id": "client-created-root", "message": None,
                                                            "parent": None, "children": []}}

        def add(parent: str, role: str, text: str, at: float, hidden: bool = False) -> str:
            mid = _uuid(rng)
            mapping[mid] = {"id": mid, "parent": parent, "children": [], "message": {
                "id": mid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": at,
                "update_time": None, "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully", "end_turn": role == "assistant", "weight": 0.0 if hidden else 1.0,
                "metadata": {"is_visually_hidden_from_conversation": True} if hidden else {}, "recipient": "all",
                "channel": None}}
            mapping[parent]["children"].append(mid)
            return mid

        node = add("client-created-root", "system", "", created, hidden=True)
        at = created
        for i, (user, assistant) in enumerate(exchanges(rng, turns)):
            at += rng.randint(30, 600)
            if c % 3 == 0 and i == 1:
                abandoned = add(node, "user", "an edited-away prompt", at)
                add(abandoned, "assistant", "an answer nobody kept", at + 5)
            node = add(add(node, "user", user, at), "assistant", assistant, at + 8)
        out.append({"title": f"Conversation {c}", "create_time": created, "update_time": at, "mapping": mapping,
                    "moderation_results": [], "current_node": node, "plugin_ids": None, "conversation_id": cid,
                    "conversation_template_id": None, "gizmo_id": None, "is_archived": False, "safe_urls": [],
                    "default_model_slug": "gpt-4o", "id": cid})
    return out


def claude_ai_conversations(*, conversations: int, turns: int, seed: int = 4) -> list[dict]:
    """conversations.json of a Claude.ai export (https://whychose.com/seo/claude-conversation-export-format): each
    conversation's chat_messages in order, with text and content blocks."""
    rng = random.Random(seed)
    out = []
    for c in range(conversations):
        at, messages = START + timedelta(days=c, hours=5), []
        for user, assistant in exchanges(rng, turns):
            for sender, text in (("human", user), ("assistant", assistant)):
                at += timedelta(seconds=rng.randint(5, 300))
                messages.append({"uuid": _uuid(rng), "text": text, "content": [{"type": "text", "text": text}],
                                 "sender": sender, "created_at": _iso(at), "updated_at": _iso(at),
                                 "attachments": [], "files": []})
        out.append({"uuid": _uuid(rng), "name": f"Chat {c}", "created_at": messages[0]["created_at"],
                    "updated_at": _iso(at), "account": {"uuid": "acct"}, "chat_messages": messages})
    return out


def zip_of(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, blob in files.items():
            archive.writestr(name, blob)
    return path


def turns_file(path: Path, *, sessions: int, turns: int, seed: int = 5) -> Path:
    """The generic turns format of docs/memory.md: one {session_id, user, assistant, at, id} a line."""
    rng = random.Random(seed)
    records = []
    for s in range(sessions):
        at = START + timedelta(days=s, hours=8)
        for n, (user, assistant) in enumerate(exchanges(rng, turns)):
            at += timedelta(minutes=rng.randint(1, 30))
            records.append({"session_id": f"s{s}", "user": user, "assistant": assistant, "at": _iso(at),
                            "id": f"s{s}-{n}"})
    return _lines(path, records)


# --- other memory engines' exports -------------------------------------------------------------------------

def _facts(rng: random.Random, n: int) -> list[str]:
    return [f"{rng.choice(['User', 'Wang'])} {rng.choice(['keeps', 'wants', 'moved'])} {rng.choice(SUBJECTS)} "
            f"{rng.choice(['on', 'to', 'off'])} {rng.choice(HOSTS)} ({i})" for i in range(n)]


def mem0_memories(*, memories: int, seed: int = 6, platform: bool = True) -> dict:
    """What Mem0's get_all answers (docs.mem0.ai/api-reference/memory/get-memory): the Platform pages
    `{count, next, previous, results}` with categories; the self-hosted server `{results}` without them."""
    rng = random.Random(seed)
    results = []
    for i, text in enumerate(_facts(rng, memories)):
        at = START + timedelta(hours=i)
        item = {"id": _uuid(rng), "memory": text, "user_id": "wang", "agent_id": None, "run_id": None,
                "hash": f"{rng.getrandbits(64):016x}", "metadata": {"type": "ops"} if i % 2 else None,
                "created_at": at.isoformat(), "updated_at": at.isoformat()}
        if platform:
            item.update(app_id=None, categories=[rng.choice(["work", "infrastructure", "preferences"])],
                        immutable=False, expiration_date=None)
        results.append(item)
    return {"count": len(results), "next": None, "previous": None, "results": results} if platform \
        else {"results": results}


def openmemory_zip(path: Path, *, memories: int, seed: int = 7) -> Path:
    """OpenMemory's backup export (mem0ai/mem0 openmemory/api/app/routers/backup.py): memories.json with users,
    apps, categories and memories (some archived, one deleted) and memories.jsonl.gz."""
    rng = random.Random(seed)
    app, cats = {"id": _uuid(rng), "name": "cursor"}, [{"id": _uuid(rng), "name": n} for n in ("work", "personal")]
    rows = []
    for i, text in enumerate(_facts(rng, memories)):
        at = (START + timedelta(hours=i)).isoformat()
        state = "deleted" if i == 0 else "archived" if i % 10 == 5 else "active"
        rows.append({"id": _uuid(rng), "user_id": "u1", "app_id": app["id"], "content": text, "metadata": {},
                     "state": state, "created_at": at, "updated_at": at, "archived_at": None,
                     "deleted_at": at if state == "deleted" else None, "category_ids": [cats[i % 2]["id"]]})
    relational = {"user": {"id": "u1", "user_id": "wang"}, "apps": [app], "categories": cats, "memories": rows,
                  "memory_categories": [], "status_history": [], "access_controls": [],
                  "export_meta": {"version": "1", "generated_at": START.isoformat()}}
    logical = io.BytesIO()
    with gzip.GzipFile(fileobj=logical, mode="wb") as gz:
        for r in rows:
            gz.write((json.dumps({"id": r["id"], "content": r["content"], "metadata": {}, "state": r["state"],
                                  "created_at": r["created_at"], "updated_at": r["updated_at"], "app": "cursor",
                                  "categories": []}) + "\n").encode())
    return zip_of(path, {"memories.json": json.dumps(relational, indent=2).encode(),
                         "memories.jsonl.gz": logical.getvalue()})


def letta_passages(*, passages: int, seed: int = 8) -> list[dict]:
    """An agent's archival memory as docs.letta.com/guides/agents/archival-export writes it: passages without their
    embeddings."""
    rng = random.Random(seed)
    return [{"id": f"passage-{_uuid(rng)}", "text": text, "agent_id": "agent-1", "archive_id": "archive-1",
             "created_at": (START + timedelta(hours=i)).isoformat(), "updated_at": None,
             "tags": ["ops"] if i % 3 == 0 else [], "metadata": {}, "is_deleted": False, "file_id": None}
            for i, text in enumerate(_facts(rng, passages))]
