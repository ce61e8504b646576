"""Connect an agent: a token, settings with it filled in, a wait for the first call; the tokens page's snippet."""

from __future__ import annotations

import html as htmllib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest
from django.urls import reverse
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memoryhub.agents.models import ApiToken, hash_token
from memoryhub.audit.models import AuditEvent
from memoryhub.dashboard.agent_steps import MCP_REMOTE, choices
from memoryhub.memories.models import Entry
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = os.environ.get("MEMORYHUB_MCP_REMOTE") or shutil.which("mcp-remote")
HX = {"HTTP_HX_REQUEST": "true"}


def snippet_text(page: str, key: str) -> str:
    """A snippet as the person copies it: the text of its <pre>, unescaped."""
    match = re.search(rf'<pre id="snippet-{key}-text"><code>(.*?)</code></pre>', page, re.DOTALL)
    assert match, f"no {key} snippet"
    return htmllib.unescape(match.group(1))


def create(client, **fields) -> tuple[str, ApiToken]:
    data = {"name": "laptop-agent", "space": default_space().slug, "origin": "local", **fields}
    response = client.post(reverse("dashboard:connect"), data)
    assert response.status_code == 200
    return response.content.decode(), ApiToken.objects.get()


@pytest.mark.django_db
def test_connect_page_needs_login(client):
    assert client.get(reverse("dashboard:connect")).status_code == 302
    assert client.post(reverse("dashboard:connect"), {"name": "x", "space": "default"}).status_code == 302
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
def test_sidebar_and_empty_home_link_to_the_connect_page(client, staff):
    default_space()
    home = client.get("/").content.decode()
    assert 'id="connect-hint"' in home and home.count(reverse("dashboard:connect")) == 2  # the sidebar and the hint
    Entry.objects.create(space=default_space(), body="something", content_hash="x")
    assert 'id="connect-hint"' not in client.get("/").content.decode()


@pytest.mark.django_db
def test_creating_a_token_is_audited_and_its_settings_carry_it(client, staff):
    page, token = create(client)
    raw = re.search(r'id="connect-token-value" value="([^"]+)"', page).group(1)
    assert token.token_hash == hash_token(raw) and token.created_by == staff and token.origin == "local"
    assert list(token.spaces.all()) == []
    event = AuditEvent.objects.get(action="token.create")
    assert event.actor == staff.username and event.target == token.actor and event.after["prefix"] == token.prefix
    assert raw not in json.dumps(event.detail)

    mcp = json.loads(snippet_text(page, "mcp"))["mcpServers"]["memoryhub"]
    assert mcp == {"type": "http", "url": "http://testserver/mcp", "headers": {"Authorization": f"Bearer {raw}"}}
    claude = shlex.split(snippet_text(page, "claude"))
    assert claude == ["claude", "mcp", "add", "--transport", "http", "memoryhub", "http://testserver/mcp",
                      "--header", f"Authorization: Bearer {raw}"]
    bridge = json.loads(snippet_text(page, "stdio"))["mcpServers"]["memoryhub"]
    assert bridge["command"] == "npx" and bridge["args"][:3] == ["-y", MCP_REMOTE, "http://testserver/mcp"]
    assert bridge["args"][3:5] == ["--header", "Authorization:${MEMORYHUB_AUTH}"]
    assert bridge["env"] == {"MEMORYHUB_AUTH": f"Bearer {raw}"}
    env = snippet_text(page, "env")
    assert f"export MEMORYHUB_TOKEN={raw}" in env and "export MEMORYHUB_SPACE=default" in env
    assert "MemoryHubClient()" in snippet_text(page, "python")
    assert f"Bearer {raw}" in snippet_text(page, "curl")
    assert 'data-state="waiting"' in page and 'hx-trigger="every 2s"' in page
    # shown once: the page again is the form
    again = client.get(reverse("dashboard:connect")).content.decode()
    assert raw not in again and 'name="name"' in again


@pytest.mark.django_db
def test_only_this_space_restricts_the_token(client, staff):
    MemorySpace.objects.create(slug="work", name="Work", provider="native")
    page, token = create(client, space="work", only_this_space="on")
    assert [s.slug for s in token.spaces.all()] == ["work"]
    assert "export MEMORYHUB_SPACE=work" in snippet_text(page, "env")
    assert '"space": "work"' in snippet_text(page, "curl")


def test_a_hub_whose_default_space_was_deleted_still_offers_it(client, staff):
    MemorySpace.objects.filter(slug="default").delete()
    page = client.get(reverse("dashboard:connect")).content.decode()
    assert '<option value="default"' in page
    assert create(client, space="default")[1].name


@pytest.mark.django_db
def test_bad_input_creates_nothing_and_says_why(client, staff):
    response = client.post(reverse("dashboard:connect"), {"name": "", "space": "nope", "origin": "not a slug"})
    page = response.content.decode()
    assert response.status_code == 200 and not ApiToken.objects.exists() and not AuditEvent.objects.exists()
    assert page.count('class="errorlist') >= 3


@pytest.mark.django_db
def test_status_waits_for_the_first_call_then_shows_archive_and_inject_as_they_arrive(client, staff):
    page, token = create(client)
    raw = re.search(r'id="connect-token-value" value="([^"]+)"', page).group(1)
    status_url = reverse("dashboard:connect_status", args=[token.pk])
    waiting = client.get(status_url, **HX).content.decode()
    assert 'data-state="waiting"' in waiting and f'hx-get="{status_url}"' in waiting
    agent = {"content_type": "application/json", "HTTP_AUTHORIZATION": f"Bearer {raw}"}
    answer = client.post("/api/v1/tools/memory_note", json.dumps({"session_id": "s", "arguments": {
        "text": "the agent says hello", "space": "default"}}), **agent)
    assert answer.status_code == 200, answer.content
    entry_id = int(answer.json()["result"]["id"])
    connected = client.get(status_url, **HX).content.decode()
    assert 'data-state="connected"' in connected and reverse("dashboard:entry", args=["default", entry_id]) in connected
    assert 'data-archive="waiting"' in connected and 'data-inject="waiting"' in connected
    assert "hx-trigger" in connected  # a note is no turn: still waiting for archive and inject

    turn = client.post("/api/v1/turns", json.dumps({"session_id": "hooks-1", "user": "We deploy on Fridays",
                                                    "assistant": "Noted."}), **agent)
    assert turn.status_code == 201, turn.content
    archived = client.get(status_url, **HX).content.decode()
    assert 'data-archive="seen"' in archived and "Archive: 1 turn arrived" in archived and "hx-trigger" in archived
    asked = client.post("/api/v1/context", json.dumps({"session_id": "hooks-1", "query": "deploy",
                                                       "notebooks": False}), **agent)
    assert asked.status_code == 200, asked.content
    both = client.get(status_url, **HX).content.decode()
    assert 'data-inject="seen"' in both and "hooks-1" in both and "hx-trigger" not in both


@pytest.mark.django_db
def test_status_of_a_revoked_token_stops_waiting(client, staff):
    _, token = create(client)
    client.post(reverse("dashboard:token_revoke", args=[token.pk]))
    page = client.get(reverse("dashboard:connect_status", args=[token.pk])).content.decode()
    assert 'data-state="revoked"' in page and "hx-trigger" not in page
    assert client.get(reverse("dashboard:connect_status", args=[9999])).status_code == 404


def step(base: str, key: str, *, restricted: bool = False, default_space: bool = True, raw: str = "mh_x",
         space: str = "default"):
    """One step of the page's agent choices, as text."""
    found = [st for c in choices(base, raw, space, restricted=restricted, default_space=default_space)
             for st in c.steps if st.key == key]
    assert len(found) == 1, key
    return found[0].text


def test_stdio_bridge_allows_plain_http_only_where_mcp_remote_needs_it():
    def args(base):
        return json.loads(step(base, "stdio"))["mcpServers"]["memoryhub"]["args"]

    assert "--allow-http" in args("http://192.168.1.20:8000")
    assert "--allow-http" in args("http://hub.lan")
    assert "--allow-http" not in args("http://127.0.0.1:8000")
    assert "--allow-http" not in args("http://localhost:8000")
    assert "--allow-http" not in args("https://hub.example.org")


@pytest.mark.django_db
def test_each_agent_is_a_choice_with_its_install_steps(client, staff):
    page, token = create(client)
    raw = re.search(r'id="connect-token-value" value="([^"]+)"', page).group(1)
    for key in ("claude", "codex", "cursor", "mcp", "python", "curl"):
        assert f'id="choice-{key}"' in page
    assert page.count('<details name="agent"') == 6 and '<details name="agent" class="card choice" id="choice-claude" open>' in page
    env = json.loads(snippet_text(page, "claude-env"))["env"]
    assert env == {"MEMORYHUB_URL": "http://testserver", "MEMORYHUB_TOKEN": raw}  # turns go to each project's space
    assert snippet_text(page, "claude-plugin").splitlines()[1] == "claude plugin install memoryhub@memoryhub"
    assert shlex.split(snippet_text(page, "claude-install"))[:2] == ["pipx", "install"]
    codex = snippet_text(page, "codex-setup").splitlines()
    assert shlex.split(codex[0]) == ["memoryhub-hook", "setup", "--url", "http://testserver", "--token", raw]
    assert codex[1] == "memoryhub-hook install codex"
    assert "memoryhub-hook install cursor --project" in snippet_text(page, "cursor-setup")
    assert "memory_context" in page and "MEMORYHUB_ALLOWED_HOSTS" in page and "MEMORYHUB_BIND=0.0.0.0:" in page
    # every copy button has its text on the page
    for target in re.findall(r'data-copy="#([^"]+)"', page):
        assert f'id="{target}"' in page, target


def test_a_token_of_one_space_pins_its_hooks_to_it_and_binds_no_project():
    env = json.loads(step("http://hub.lan:8000", "claude-env", restricted=True, space="work", default_space=False))
    assert env["env"]["MEMORYHUB_SPACE"] == "work" and env["env"]["MEMORYHUB_WORKSPACE"] == "none"
    setup = shlex.split(step("http://hub.lan:8000", "codex-setup", restricted=True, space="work",
                             default_space=False).splitlines()[0])
    assert setup[-4:] == ["--space", "work", "--workspace", "none"]


@pytest.mark.django_db
def test_the_form_page_says_how_to_reach_the_hub_from_another_machine(client, staff):
    page = client.get(reverse("dashboard:connect"), HTTP_HOST="127.0.0.1:8123").content.decode()
    text = snippet_text(page, "remote")
    assert text.startswith("MEMORYHUB_BIND=0.0.0.0:8123 MEMORYHUB_ALLOWED_HOSTS=") and text.endswith("make run")


@pytest.mark.django_db
def test_tokens_page_shows_the_header_and_a_curl_line_with_copy_buttons(client, staff):
    page = client.post(reverse("dashboard:tokens"), {"name": "bot", "origin": "local", "scope": "all"}).content.decode()
    raw = re.search(r'id="new-token-value" value="([^"]+)"', page).group(1)
    curl = re.search(r'<pre id="new-token-curl"><code>(.*?)</code></pre>', page, re.DOTALL).group(1)
    assert shlex.split(htmllib.unescape(curl)) == ["curl", "-sS", "http://testserver/api/v1/spaces", "-H",
                                                   f"Authorization: Bearer {raw}"]
    assert 'data-copy="#new-token-value"' in page and 'data-copy="#new-token-curl"' in page
    assert "Bearer <token>" not in page and "Bearer &lt;token&gt;" not in page


@pytest.mark.django_db(transaction=True)
def test_the_curl_and_python_snippets_work_against_a_real_server(live_server, client, staff):
    """Run the snippets as a person would: curl through a shell, the Python client in a fresh interpreter."""
    client.force_login(staff)
    response = client.post(reverse("dashboard:connect"), {"name": "laptop-agent", "space": default_space().slug,
                                                          "origin": "local"}, HTTP_HOST=urlsplit(live_server.url).netloc)
    page = response.content.decode()
    assert f"export MEMORYHUB_URL={live_server.url}" in snippet_text(page, "env")
    curl = subprocess.run(["bash", "-c", snippet_text(page, "curl")], capture_output=True, text=True, timeout=30,
                          check=False)
    assert curl.returncode == 0, curl.stderr
    assert json.loads(curl.stdout)["result"]["space"] == "default"

    env = dict(os.environ, PYTHONPATH=str(ROOT / "clients" / "python"))
    for line in snippet_text(page, "env").splitlines():
        if line.startswith("export "):
            name, value = line.removeprefix("export ").split("=", 1)
            env[name] = shlex.split(value)[0]
    python = subprocess.run([sys.executable, "-c", snippet_text(page, "python")], capture_output=True, text=True,
                            timeout=60, env=env, check=False)
    assert python.returncode == 0, python.stderr
    assert "memoryhub is connected from Python" in python.stdout  # the context block recalls the note just written
    assert sorted(Entry.objects.filter(space__slug="default").values_list("body", flat=True)) == [
        "memoryhub is connected", "memoryhub is connected from Python"]


@pytest.mark.django_db
def test_connect_page_speaks_chinese(client, staff):
    client.cookies.load({"django_language": "zh-hans"})
    page, _ = create(client)
    assert "连接智能体" in page and "正在等待使用 “laptop-agent” 的第一次调用" in page and ">复制<" in page
    assert "MCP 客户端（Streamable HTTP）" in page


def served_settings(hub, key: str) -> dict:
    """The connect page's settings of one kind for a token of the served hub."""
    raw = hub.token(name=f"connect-{key}")
    return json.loads(step(hub.url, key, raw=raw))["mcpServers"]["memoryhub"]


def test_the_mcp_settings_reach_the_served_hub_as_written(hub):
    config = served_settings(hub, "mcp")

    async def main():
        http = create_mcp_http_client(headers=config["headers"])
        async with (http, streamable_http_client(config["url"], http_client=http) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            listed = await session.list_tools()
            result = await session.call_tool("memory_note", {"text": "written over /mcp"})
            return [t.name for t in listed.tools], result.structured_content

    with ThreadPoolExecutor(1) as thread:
        names, result = thread.submit(anyio.run, main).result()
    assert "memory_note" in names and result["space"] == "default"


def installed_version(binary: str) -> str:
    """The version of the mcp-remote package a binary on PATH (node_modules/.bin/mcp-remote) belongs to."""
    for folder in Path(os.path.realpath(binary)).parents:
        package = folder / "package.json"
        if package.exists() and json.loads(package.read_text()).get("name") == "mcp-remote":
            return json.loads(package.read_text())["version"]
    return "unknown"


@pytest.mark.skipif(not BRIDGE, reason="mcp-remote is not installed (npm install mcp-remote, then put it on "
                                       "PATH or set MEMORYHUB_MCP_REMOTE)")
def test_the_stdio_recipe_works_through_mcp_remote(hub):
    """The stdio settings run as an MCP client would run them: mcp-remote on stdin/stdout, header from env."""
    config = served_settings(hub, "stdio")
    assert config["command"] == "npx" and config["args"][:2] == ["-y", MCP_REMOTE]
    assert installed_version(BRIDGE) == MCP_REMOTE.split("@")[1], "the bridge tested is not the one the page offers"
    env = {**os.environ, **config["env"], "MCP_REMOTE_CONFIG_DIR": tempfile.mkdtemp()}
    bridge = subprocess.Popen([BRIDGE, *config["args"][2:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        def ask(message: dict) -> dict | None:
            bridge.stdin.write(json.dumps(message) + "\n")
            bridge.stdin.flush()
            return json.loads(bridge.stdout.readline()) if "id" in message else None

        hello = ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
        assert hello["result"]["serverInfo"]["name"] == "memoryhub"
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        called = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_note", "arguments": {"text": "written through mcp-remote"}}})
        assert called["result"]["isError"] is False and called["result"]["structuredContent"]["space"] == "default"
    finally:
        bridge.terminate()
        bridge.wait(10)
