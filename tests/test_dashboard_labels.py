"""Every enumerated value the dashboard shows has a name in dashboard/labels.py, taken from its one declaration:
a category, kind, link type, write state, selection choice, setting or provider option added later
fails here until it is named (the 中文 walk would show it in English)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from memoryhub.dashboard import labels
from memoryhub.memories.models import CATEGORIES, EDGE_TYPES, Kind, Method, RemoteWrite
from memoryhub.spaces import selection, space_settings, workspaces
from memoryhub.vault.models import AccessRequest
from providers.registry import PROVIDERS, get_provider_class

ROOT = Path(__file__).resolve().parent.parent
DECLARED = {
    "category": CATEGORIES, "kind": Kind.values, "link": EDGE_TYPES, "method": Method.values,
    "write_state": RemoteWrite.State.values, "boundary": selection.BOUNDARIES,
    "preference": selection.PREFERENCES, "requirement": selection.REQUIREMENTS,
    "recall_policy": space_settings.POLICIES, "setting": list(space_settings.RULES),
    "space_name": [workspaces.DEFAULT_NAME],
    "field_option": sorted({o for kind in PROVIDERS for f in (*get_provider_class(kind).service_fields,
                                                               *get_provider_class(kind).space_fields)
                            for o in f.options}),
}


@pytest.mark.parametrize("family", sorted(DECLARED))
def test_every_declared_value_has_a_name(family):
    assert set(DECLARED[family]) - set(labels.FAMILIES[family]) == set()


def test_every_operation_the_op_log_records_has_a_name():
    """The op log's operations are literals at their call sites (log_op, record_change, marks' operation=)."""
    found = set()
    for source in (ROOT / "memoryhub").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        found |= set(re.findall(r'(?:log_op|record_change)\(\s*[\w.]+,\s*"([a-z_-]+)"', text))
        found |= set(re.findall(r'operation="([a-z_-]+)"', text))
        for pair in re.findall(r'"([a-z_-]+)" if archived else "([a-z_-]+)"', text):
            found |= set(pair)
    assert {"remember", "recall", "forget", "link", "prune", "archive"} <= found  # the scan is not blind
    assert found - set(labels.OPERATION) - {"restore", "summarize"} == set()  # those two are events, never logged


@pytest.mark.django_db
def test_every_criterion_a_vault_request_records_has_a_name(api):
    from memoryhub.spaces.models import MemorySpace

    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    api.tool("memory_save", category="companion", title="Walk", body="By the river.", space="diary",
             workspace="/home/wang/proj")
    api.tool("memory_request", space="diary", query="river", category=["companion"], **{"from": "2020-01-01"},
             to="2030-01-01", limit=5, project="/home/wang/proj")
    criteria = AccessRequest.objects.get().criteria
    assert len(criteria) >= 6 and set(criteria) - set(labels.CRITERION) == set()


def test_names_read_in_chinese_and_unknown_values_stay_as_they_are():
    with translation.override("zh-hans"):
        assert labels.label("category", "decision") == "决策" and labels.label("kind", "turn") == "对话"
        assert labels.label("link", "causal") != "Cause and effect"
        assert labels.provider("native") == "原生" and labels.provider("honcho") == "Honcho"
        assert labels.label("category", "made-up") == "made-up"


@pytest.mark.django_db
def test_the_memory_filters_read_right_in_chinese(client, staff):
    """#36: Tag read 起始日期, From 截止日期 and To 截止 (three labels one slot off)."""
    from memoryhub.spaces.workspaces import default_space

    default_space()
    page = client.get("/spaces/default/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    labels_shown = re.findall(r"<label>([^<{]+?)\s*<(?:input|select)", page)
    assert {"标签", "起始日期", "截止日期"} <= {text.strip() for text in labels_shown}
    assert "截止<" not in page.replace(" ", "")
