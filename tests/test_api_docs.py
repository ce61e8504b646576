"""docs/api.md documents every operation's arguments and every endpoint: its argument tables are rendered from the
declarations (memoryhub/operations/docs.py), so a declaration changed without its doc fails here."""

import re
from pathlib import Path

import pytest
from django.urls import get_resolver

from memoryhub.operations import docs, registry

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
ROW = re.compile(r"^\| `([^`]+)` \| (\w+) \| (yes|no) \|", re.M)


def text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_argument_tables_are_the_declarations():
    rendered = docs.rewrite(text())
    if rendered != text():
        changed = [name for name, tables in docs.tables_in(text()).items()
                   if tables != docs.tables_in(rendered).get(name)]
        pytest.fail(f"docs/api.md's tables for {changed} differ from the declarations: run manage.py api_docs")


def test_a_changed_row_or_a_missing_table_is_caught():
    """The check above is not vacuous: an edited meaning is put back, a table that is gone is refused."""
    doc = text()
    edited = doc.replace("| one line, up to 300 characters |", "| one line |", 1)
    assert edited != doc and docs.rewrite(edited) == doc
    start = doc.index("### `memory_read`")
    table = docs.TABLE.search(doc, start)
    with pytest.raises(docs.Mismatch, match="memory_read"):
        docs.rewrite(doc[:table.start()] + doc[table.end():])


@pytest.fixture
def tool_schemas(api):
    return {t["function"]["name"]: t["function"]["parameters"] for t in api.get("tools").json()["tools"]}


def test_every_served_tool_argument_is_documented_with_its_type_and_whether_it_is_required(tool_schemas):
    sections = docs.sections(text())
    for name, schema in tool_schemas.items():
        assert name in sections, f"docs/api.md has no section ### `{name}`"
        start, end = sections[name]
        first = docs.TABLE.search(text(), start, end)  # the tool's own arguments; nested ones follow
        documented = {arg: (kind, required == "yes") for arg, kind, required in ROW.findall(first.group(0) if first
                                                                                             else "")}
        expected = {arg: (spec.get("type", "object"), arg in schema.get("required", []))
                    for arg, spec in schema["properties"].items()}
        assert documented == expected, f"docs/api.md's table for {name} disagrees with its served schema"


def test_the_doc_names_no_tool_that_does_not_exist():
    tools = {name for name in docs.sections(text()) if not name.startswith(("GET ", "POST ", "DELETE "))}
    assert tools <= set(registry.MCP_TOOLS), f"documented but not served: {sorted(tools - set(registry.MCP_TOOLS))}"
    assert set(registry.MCP_TOOLS) <= tools, f"served but not documented: {sorted(set(registry.MCP_TOOLS) - tools)}"


def api_paths() -> set[str]:
    paths = set()
    for pattern in get_resolver("memoryhub.api.urls").url_patterns:
        paths.add("/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern)))
    return paths


def test_every_endpoint_is_documented():
    endpoints = {name.split(" ", 1)[1] for name in docs.sections(text()) if name.startswith(("GET ", "POST "))}
    assert api_paths() == endpoints


def test_every_operation_with_an_endpoint_names_a_served_path():
    for operation in registry.OPERATIONS.values():
        if operation.endpoint:
            method, path = operation.endpoint.split(" ", 1)
            assert path in api_paths(), operation.name
