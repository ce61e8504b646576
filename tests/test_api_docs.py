"""docs/api.md documents every tool argument and every endpoint: a schema change without its doc fails here."""

import re
from pathlib import Path

import pytest
from django.urls import get_resolver

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
HEADING = re.compile(r"^### `([^`]+)`\s*$", re.M)
ROW = re.compile(r"^\| `([^`]+)` \| (\w+) \| (yes|no) \|", re.M)


def documented_sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    marks = list(HEADING.finditer(text))
    return {m.group(1): text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)]
            for i, m in enumerate(marks)}


def documented_arguments(section: str) -> dict[str, tuple[str, bool]]:
    return {name: (kind, required == "yes") for name, kind, required in ROW.findall(section)}


@pytest.fixture
def tool_schemas(api):
    return {t["function"]["name"]: t["function"]["parameters"] for t in api.get("tools").json()["tools"]}


def test_every_tool_argument_is_documented_with_its_type_and_whether_it_is_required(tool_schemas):
    sections = documented_sections()
    for name, schema in tool_schemas.items():
        assert name in sections, f"docs/api.md has no section ### `{name}`"
        documented = documented_arguments(sections[name])
        expected = {arg: (spec.get("type", "object"), arg in schema.get("required", []))
                    for arg, spec in schema["properties"].items()}
        assert documented == expected, f"docs/api.md's table for {name} disagrees with its schema"


def test_the_doc_names_no_tool_that_does_not_exist(tool_schemas):
    tools = {name for name in documented_sections() if not name.startswith(("GET ", "POST ", "DELETE "))}
    assert tools <= set(tool_schemas), f"documented but not served: {sorted(tools - set(tool_schemas))}"


def api_paths() -> set[str]:
    paths = set()
    for pattern in get_resolver("memoryhub.api.urls").url_patterns:
        paths.add("/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern)))
    return paths


def test_every_endpoint_is_documented():
    endpoints = {name.split(" ", 1)[1] for name in documented_sections() if name.startswith(("GET ", "POST "))}
    assert api_paths() == endpoints
