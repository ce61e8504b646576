"""The maintenance commands and job kinds: consolidate, gc, compact, import_history, packs, the daily schedule."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule

from memoryhub.jobs.models import Job
from memoryhub.memories.write import gateway
from memoryhub.memories.jobs import daily_consolidation
from memoryhub.memories.models import ConsolidationRun, Entry
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def space():
    space = MemorySpace.objects.create(slug="m", name="M")
    gateway.write(space, gateway.Draft(body="an old note nobody reads", at=timezone.now() - timedelta(days=60)))
    return space


def test_consolidate_command_previews_applies_and_undoes(space):
    assert json.loads(run("consolidate", "m"))["archived"] == 1
    assert not Entry.objects.filter(archived=True).exists()
    applied = json.loads(run("consolidate", "m", "--apply"))
    assert Entry.objects.filter(archived=True).count() == 1
    run("consolidate", "m", "--undo", str(applied["run"]))
    assert not Entry.objects.filter(archived=True).exists()


def test_gc_command_suggests_and_keeps(space):
    found = json.loads(run("gc", "m"))
    assert found["candidates_found"] == 1
    kept = json.loads(run("gc", "m", "--keep", str(found["candidates"][0]["id"])))
    assert kept["status"] == "retained" and kept["new_access"] == 3


def test_import_and_pack_commands(space, tmp_path):
    (tmp_path / "MEMORY.md").write_text("one\n§\ntwo")
    assert json.loads(run("import_history", "m", str(tmp_path / "MEMORY.md"), "--dry-run"))["new"] == 2
    assert json.loads(run("import_history", "m", str(tmp_path / "MEMORY.md")))["added"] == 2
    run("export_pack", "m", str(tmp_path / "m.tar.gz"))
    assert "m-2" in run("import_pack", str(tmp_path / "m.tar.gz"))
    assert Entry.objects.filter(space__slug="m-2").count() == 3
    assert "oplog" in json.loads(run("compact"))


def test_daily_schedule_exists_once_and_queues_only_opted_in_spaces(space):
    assert Schedule.objects.filter(func="memoryhub.memories.jobs.daily_consolidation").count() == 1
    assert daily_consolidation() == {}
    space.settings = {"autoConsolidate": True}
    space.save()
    queued = daily_consolidation()
    assert list(queued) == ["m"]
    job = Job.objects.get(pk=queued["m"])
    assert job.kind == "consolidate" and job.status == "succeeded" and job.result["archived"] == 1
    assert ConsolidationRun.objects.filter(space=space).count() == 1
