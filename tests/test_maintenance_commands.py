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
from memoryhub.memories.tasks import daily_consolidation
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


def test_daily_schedule_exists_once_and_queues_every_space_not_opted_out(space):
    assert Schedule.objects.filter(func="memoryhub.memories.tasks.daily_consolidation").count() == 1
    MemorySpace.objects.exclude(pk=space.pk).update(settings={"autoConsolidate": False})
    space.settings = {"autoConsolidate": False}
    space.save()
    assert daily_consolidation() == {}
    space.settings = {}  # seed 003: autoConsolidate defaults to on
    space.save()
    queued = daily_consolidation()
    assert list(queued) == ["m"]
    job = Job.objects.get(pk=queued["m"])
    assert job.kind == "consolidate" and job.status == "succeeded" and job.result["archived"] == 1
    assert ConsolidationRun.objects.filter(space=space).count() == 1


def _upgrade_from_0017(make_spaces):
    """Migrate memories back to before the new default, let `make_spaces(OldSpace, OldEntry)` set up, migrate on."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    before = [("memories", "0017_entry_chat")]
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        make_spaces(old.get_model("spaces", "MemorySpace"), old.get_model("memories", "Entry"))
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())


def _spaces_in_use(OldSpace, OldEntry):
    used = OldSpace.objects.create(slug="used", name="Used")
    OldEntry.objects.create(space_id=used.pk, body="an old memory", content_hash="a")
    OldSpace.objects.create(slug="empty", name="Empty")
    chosen = OldSpace.objects.create(slug="chosen", name="Chosen", settings={"autoConsolidate": True})
    OldEntry.objects.create(space_id=chosen.pk, body="another", content_hash="b")


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_keeps_daily_consolidation_off_for_spaces_already_in_use(monkeypatch):
    monkeypatch.delenv("MEMORYHUB_AUTO_CONSOLIDATE", raising=False)
    _upgrade_from_0017(_spaces_in_use)
    settings = {s.slug: s.settings for s in MemorySpace.objects.filter(slug__in=["used", "empty", "chosen"])}
    assert settings == {"used": {"autoConsolidate": False}, "empty": {}, "chosen": {"autoConsolidate": True}}


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_changes_nothing_where_the_environment_had_it_on(monkeypatch):
    monkeypatch.setenv("MEMORYHUB_AUTO_CONSOLIDATE", "true")
    _upgrade_from_0017(_spaces_in_use)
    assert MemorySpace.objects.get(slug="used").settings == {}
