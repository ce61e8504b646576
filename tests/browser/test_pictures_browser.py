"""Connect an agent, the charts and the graph in Chromium, with real data written through the API."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.memories.models import Edge, Entry, OpLog
from memoryhub.spaces.workspaces import default_space
from tests.browser.conftest import log_in
from tests.conftest import make_api

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
NOTES = [
    ("decision", "Keep SQLite in WAL mode", "We decided to keep SQLite in WAL mode for the hub.", 0),
    ("pitfall", "WAL grows under long readers", "WAL files grow while a reader holds a snapshot open.", 0),
    ("progress", "Deploy script restarts the worker", "scripts/deploy.sh now restarts the worker.", 1),
    ("structure", "Deploy lives in scripts", "scripts/deploy.sh is the one way to deploy.", 3),
    ("preference", "Short answers", "The user prefers short answers in the morning.", 6),
    ("general", "Lunch", "Lunch was pizza at the usual place.", 9),
]
DEMO = [  # a fortnight of a coding agent's memories, for the screenshots
    ("decision", "Postgres for production", "Production runs on PostgreSQL 16; SQLite (WAL) stays the default.", 20),
    ("structure", "Settings in one module", "All settings are read in memoryhub/settings.py from the environment.", 19),
    ("pitfall", "VACUUM after big imports", "PostgreSQL needs VACUUM ANALYZE after a big import or search slows.", 18),
    ("progress", "HNSW index on vectors", "Built the HNSW index for pgvector once after loading 100k vectors.", 16),
    ("experience", "pgvector build", "Building pgvector needs postgresql-server-dev-16 and make.", 16),
    ("decision", "Redis for the queue", "With several web processes the django-q2 broker moves to Redis.", 15),
    ("pitfall", "Redis URL in CI", "CI forgot REDIS_URL and the worker silently used the ORM broker.", 14),
    ("progress", "Backup command", "manage.py backup writes a consistent SQLite copy with VACUUM INTO.", 12),
    ("preference", "Short answers", "The user prefers short answers and code over prose.", 11),
    ("insight", "Recall needs dates", "Cards with an absolute date are recalled more often than undated ones.", 10),
    ("progress", "Deploy script", "scripts/deploy.sh restarts gunicorn and the django-q2 worker.", 8),
    ("pitfall", "Deploy during migrations", "Never run scripts/deploy.sh while a migration is still running.", 7),
    ("fact", "Server", "The hub runs on a Hetzner CX22 in Falkenstein.", 6),
    ("context", "Nightly jobs", "Consolidation runs nightly at 03:00; gc runs weekly.", 5),
    ("companion", "Weekend", "The user goes climbing most Saturdays.", 4),
    ("decision", "MCP over HTTP", "Agents connect to /mcp over streamable HTTP with a bearer token.", 3),
    ("progress", "Connect page", "The dashboard got a connect page with MCP, curl and Python settings.", 1),
    ("general", "Lunch", "Lunch was pizza at the usual place.", 0),
]


def write_history(client, notes=NOTES):
    """Memories on several days through the agent API, and searches that recall some of them."""
    api = make_api(client, name="laptop-agent")
    ids = []
    for category, title, body, days_ago in notes:
        at = (timezone.now() - timedelta(days=days_ago)).isoformat()
        answer = api.tool("memory_save", category=category, title=title, body=body, at=at)
        assert answer.status_code == 200, answer.content
        ids.append(answer.json()["result"]["id"])
    for query in ("WAL mode", "WAL", "deploy script") if notes is NOTES else (
            "PostgreSQL VACUUM", "deploy", "deploy script", "Redis broker", "short answers", "MCP"):
        assert api.tool("memory_search", query=query).json()["result"]["results"]
    return ids


def api_call(base: str, raw: str, tool: str, **arguments) -> dict:
    """A call as an agent makes it: plain HTTP to the live server with the bearer token."""
    body = json.dumps({"session_id": "browser", "arguments": arguments}).encode()
    request = urllib.request.Request(f"{base}/api/v1/tools/{tool}", data=body, method="POST", headers={
        "Authorization": f"Bearer {raw}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_connect_page_creates_a_token_shows_settings_and_turns_connected_on_the_first_call(
        logged_in_page, live_server):
    page = logged_in_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    expect(page.locator("#connect-hint")).to_be_visible()  # an empty hub points the way
    page.locator("#connect-hint").get_by_role("link", name="Connect an agent").click()
    expect(page.get_by_role("heading", name="Connect an agent")).to_be_visible()
    page.get_by_label("Agent name").fill("laptop-agent")
    page.get_by_role("button", name="Create token and show settings").click()

    raw = page.locator("#connect-token-value").input_value()
    assert raw.startswith("mh_")
    expect(page.locator("#snippet-claude-plugin")).to_be_visible()  # Claude Code is the first choice, open
    expect(page.locator("#snippet-mcp")).to_be_hidden()
    page.locator("#choice-mcp summary").click()  # one choice open at a time
    expect(page.locator("#snippet-claude-plugin")).to_be_hidden()
    mcp = json.loads(page.locator("#snippet-mcp-text").inner_text())["mcpServers"]["memoryhub"]
    assert mcp["url"] == f"{live_server.url}/mcp" and mcp["headers"] == {"Authorization": f"Bearer {raw}"}
    expect(page.locator("#snippet-stdio-text")).to_contain_text("mcp-remote")
    page.locator("#choice-python summary").click()
    expect(page.locator("#snippet-env-text")).to_contain_text("MEMORYHUB_SPACE=default")
    page.locator("#choice-mcp summary").click()
    expect(page.locator("#connect-status")).to_have_attribute("data-state", "waiting")

    page.locator("#snippet-mcp").get_by_role("button", name="Copy").click()
    expect(page.locator("#snippet-mcp").get_by_role("button", name="Copied")).to_be_visible()
    assert json.loads(page.evaluate("navigator.clipboard.readText()")) == {"mcpServers": {"memoryhub": mcp}}

    note = api_call(live_server.url, raw, "memory_note", text="The agent connected from the browser test")
    status = page.locator("#connect-status")
    expect(status).to_have_attribute("data-state", "connected", timeout=15_000)
    expect(status).to_contain_text("Connected")
    expect(status).to_have_attribute("data-archive", "waiting")
    turn = urllib.request.Request(f"{live_server.url}/api/v1/turns", method="POST", headers={
        "Authorization": f"Bearer {raw}", "Content-Type": "application/json"}, data=json.dumps({
            "session_id": "browser", "user": "The browser test says hello", "assistant": "Hello."}).encode())
    urllib.request.urlopen(turn, timeout=30).close()
    expect(status).to_have_attribute("data-archive", "seen", timeout=15_000)
    expect(page.locator("#connect-archive")).to_contain_text("1 turn arrived")
    status.get_by_role("link", name="See its first memory").click()
    expect(page).to_have_url(f"{live_server.url}/spaces/default/entries/{note['result']['id']}/")
    expect(page.locator("main")).to_contain_text("The agent connected from the browser test")


def test_tokens_page_copies_the_new_token(logged_in_page, live_server):
    page = logged_in_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto("/tokens/")
    page.get_by_label("Name").fill("bot")
    page.get_by_label("Every space (unrestricted)").check()
    page.get_by_role("button", name="Create token").click()
    raw = page.locator("#new-token-value").input_value()
    expect(page.locator("#new-token-curl")).to_contain_text(f"Authorization: Bearer {raw}")
    page.locator(".new-token").get_by_role("button", name="Copy").first.click()
    assert page.evaluate("navigator.clipboard.readText()") == raw


def test_charts_draw_the_spaces_real_activity(logged_in_page, client):
    page = logged_in_page
    write_history(client)
    page.goto("/")
    spark = page.locator("#space-default svg.sparkline")
    expect(spark).to_be_visible()
    assert spark.get_attribute("data-total") == str(len(NOTES))
    spark.click()  # the sparkline opens the space's charts
    expect(page.get_by_role("heading", name="Activity")).to_be_visible()
    today = timezone.localdate()
    day = page.locator(f'#chart-activity g.day[data-day="{today:%Y-%m-%d}"]')
    assert day.get_attribute("data-writes") == "2" and day.get_attribute("data-recalls") == "3"
    bar = day.locator("rect.writes")
    assert bar.bounding_box()["height"] > 10
    assert page.locator("#chart-activity rect.writes").count() == 5  # five days with writes
    shares = page.locator("#chart-categories li.share")
    expect(shares).to_have_count(len(NOTES))
    assert shares.first.locator(".meter > span").bounding_box()["width"] > 100
    recalled = page.locator("#chart-recalled li")
    assert recalled.count() >= 2
    recalled.first.get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"/spaces/default/entries/\d+/$"))


def test_graph_draws_with_cytoscape_hides_time_edges_until_asked_and_links_nodes_to_memories(logged_in_page, client):
    page = logged_in_page
    ids = write_history(client)
    Edge.objects.create(source=Entry.objects.get(pk=ids[2]), target=Entry.objects.get(pk=ids[3]), edge_type="causal")
    assert Edge.objects.filter(edge_type="temporal").exists(), "the writes made time-proximity edges"
    page.goto("/spaces/default/graph/")
    graph = page.locator("#graph")
    expect(graph).to_have_attribute("data-ready", "true")
    expect(graph.locator("canvas").first).to_be_visible()
    drawn = page.evaluate("""() => { const cy = document.getElementById('graph').memoryGraph; return {
        nodes: cy.nodes().length, labels: cy.nodes().map(n => n.data('label')),
        temporal: cy.edges('[type = "temporal"]').length, temporalShown: cy.edges('[type = "temporal"]:visible').length,
        shown: cy.edges(':visible').map(e => e.data('type')) }; }""")
    assert drawn["nodes"] == len(NOTES) and "Keep SQLite in WAL mode" in drawn["labels"]
    assert drawn["temporal"] > 0 and drawn["temporalShown"] == 0
    assert "causal" in drawn["shown"] and "entity" in drawn["shown"]

    time_filter = page.get_by_label("Close in time", exact=False)
    expect(time_filter).not_to_be_checked()
    expect(page.get_by_label("Same names", exact=False)).to_be_checked()
    expect(page.locator('#graph-legend [data-group="decision"]')).to_be_visible()
    time_filter.check()
    assert page.evaluate("document.getElementById('graph').memoryGraph.edges('[type = \"temporal\"]:visible').length") \
        == drawn["temporal"]

    box = graph.bounding_box()
    where = page.evaluate(f"document.getElementById('graph').memoryGraph.getElementById('{ids[0]}').renderedPosition()")
    page.mouse.click(box["x"] + where["x"], box["y"] + where["y"])
    opener = page.locator("#graph-open")
    expect(opener).to_have_attribute("href", f"/spaces/default/entries/{ids[0]}/")
    expect(page.locator("#graph-entry")).to_contain_text("We decided to keep SQLite in WAL mode")
    opener.click()
    expect(page).to_have_url(re.compile(f"/spaces/default/entries/{ids[0]}/$"))


def test_my_pages_fit_a_phone(chromium_browser, live_server, staff_user, client):
    write_history(client)
    context = chromium_browser.new_context(base_url=live_server.url, viewport=PHONE, locale="en-US")
    page = context.new_page()
    log_in(page)
    for url in ("/connect/", "/spaces/default/charts/", "/spaces/default/graph/"):
        page.goto(url)
        expect(page.locator("main h1").first).to_be_visible()
        for selector in (".pictures", ".card", "#graph", "form"):
            for box in page.locator(selector).all():
                right = box.bounding_box()
                if right:
                    assert right["x"] + right["width"] <= PHONE["width"] + 1, (url, selector)
    context.close()


def test_screenshots_of_the_pictures(chromium_browser, live_server, staff_user, client, tmp_path):
    """PNG screenshots for the README: connect, charts, graph, and the home page at phone width (390 px)."""
    out = Path(os.environ.get("MEMORYHUB_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    ids = write_history(client, DEMO)
    for cause, effect in ((2, 3), (5, 6), (10, 11)):
        Edge.objects.create(source=Entry.objects.get(pk=ids[cause]), target=Entry.objects.get(pk=ids[effect]),
                            edge_type="causal")
    space = default_space()
    now = timezone.now()
    for days_ago, count in ((1, 4), (2, 2), (4, 5), (8, 3), (12, 1)):  # earlier recalls, as the op log keeps them
        for _ in range(count):
            OpLog.objects.create(space=space, operation="recall", detail="q=demo hits=1", actor="token:laptop-agent",
                                 created_at=now - timedelta(days=days_ago))
    context = chromium_browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 800},
                                           locale="en-US")
    page = context.new_page()
    log_in(page)
    page.goto("/connect/")
    page.get_by_label("Agent name").fill("claude-code")  # laptop-agent wrote the history: a name is one token's
    page.get_by_role("button", name="Create token and show settings").click()
    expect(page.locator("#connect-status")).to_be_visible()
    page.screenshot(path=out / "connect.png", full_page=True)
    page.goto("/spaces/default/charts/")
    page.screenshot(path=out / "charts.png", full_page=True)
    page.goto("/spaces/default/graph/")
    expect(page.locator("#graph")).to_have_attribute("data-ready", "true")
    page.screenshot(path=out / "graph.png")
    context.close()
    phone = chromium_browser.new_context(base_url=live_server.url, viewport=PHONE, locale="en-US",
                                         device_scale_factor=2)
    page = phone.new_page()
    log_in(page)
    page.goto("/")
    page.screenshot(path=out / "home-phone.png", full_page=True)
    phone.close()
    for name in ("connect", "charts", "graph", "home-phone"):
        assert (out / f"{name}.png").stat().st_size > 10_000
