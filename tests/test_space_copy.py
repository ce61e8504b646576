"""Moving and copying a space between engines: the preview names what the target cannot keep (from its declaration),
the copy keeps a receipt per memory and resumes, nothing leaves the source until a person removes it; a native space
copied to the Mem0 fake and back keeps everything Mem0 declares it keeps."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from memoryhub.memories.maintenance import copies
from memoryhub.memories.models import CopyReceipt, Edge, Entry, Kind, RemoteWrite
from memoryhub.memories.write import gateway, marks
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import save_service
from providers.mem0 import Mem0Provider
from tests.providers.fakes.mem0 import Mem0Fake

pytestmark = pytest.mark.django_db
KEPT = {"title": "title", "category": "category", "tags": "tags", "dates": "at"}  # Keeps field -> Entry field


@pytest.fixture
def fake():
    server = Mem0Fake()
    yield server
    server.stop()


@pytest.fixture(params=["platform", "self-hosted"])
def mem0(request, fake):
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": request.param})
    return MemorySpace.objects.create(slug="m0", name="Mem0", provider="mem0", config={"userId": "alice"})


@pytest.fixture
def native():
    space = MemorySpace.objects.create(slug="notes", name="Notes")
    old = timezone.now() - timedelta(days=400)
    a = gateway.write(space, gateway.Draft(title="Backups", body="Backups go to the NAS at 02:00", category="decision",
                                           tags=["nas", "ops"], at=old)).entry
    b = gateway.write(space, gateway.Draft(title="NAS", body="The NAS is backup-01", category="fact",
                                           at=old + timedelta(days=3))).entry
    gateway.write(space, gateway.Draft(kind=Kind.TURN, user="以后叫我老王", assistant="好的，老王", session_id="s1",
                                       at=old + timedelta(days=9)))
    gateway.link(a, b, "causal", 0.8, actor="alice", reason="where")
    return space


def test_the_preview_names_what_mem0_cannot_keep_and_changes_nothing(native, mem0, fake):
    preview = copies.preview(native, mem0)
    assert preview["memories"] == 3 and preview["to_send"] == 3 and preview["complete"]
    said = " ".join(preview["losses"])
    assert "Mem0 extracts memories" in said and "arrive as accepted" in said
    assert "1 link between memories stays behind (Mem0 has no links)" in said
    assert "1 conversation turn becomes a plain memory" in said
    assert "keeps no dates" not in said and "titles" not in said  # Mem0 keeps them in its metadata
    assert not fake.memories and not CopyReceipt.objects.exists()


def test_a_native_space_copied_to_mem0_and_back_keeps_what_mem0_keeps(native, mem0, fake):
    to_mem0 = copies.run(copies.pair(native, mem0))
    assert to_mem0["accepted"] == 3 and to_mem0["receipts"]["accepted"] == 3
    assert RemoteWrite.objects.filter(space=mem0, state="accepted").count() == 3
    back = MemorySpace.objects.create(slug="back", name="Back")
    returned = copies.run(copies.pair(mem0, back))
    assert returned["committed"] == 3
    keeps = Mem0Provider.keeps
    for entry in Entry.objects.filter(space=native):
        copy = Entry.objects.get(space=back, body=entry.body)  # the fake's extraction keeps the text as it was sent
        for declared, field in KEPT.items():
            if getattr(keeps, declared):
                assert getattr(copy, field) == getattr(entry, field), (declared, entry.body)
        assert copy.provenance["source"] == "mem0" and copy.provenance["copied_from"]["space"] == "m0"
    assert not Edge.objects.filter(source__space=back, edge_type="causal").exists()  # Mem0 keeps no links


def mem0_key(key: str) -> None:
    service = ProviderService.objects.get(kind="mem0")
    save_service("mem0", {"endpoint": service.config["endpoint"], "apiKey": key, "mode": service.config["mode"]})


def test_a_second_run_sends_only_what_has_no_receipt_and_failed_writes_are_sent_again(native, mem0, fake):
    copy = copies.pair(native, mem0)
    mem0_key("wrong-key-000")  # refused outright: surely not stored
    first = copies.run(copy)
    assert first["failed"] == 3 and not fake.memories
    mem0_key(fake.api_key)
    second = copies.run(copy)
    assert second["accepted"] == 3 and second["already"] == 0
    assert set(CopyReceipt.objects.values_list("attempts", flat=True)) == {2}
    third = copies.run(copy)
    assert third["already"] == 3 and "accepted" not in third and len(fake.memories) == 3


def test_a_memory_whose_write_may_have_arrived_is_not_sent_again_by_a_second_run(native, mem0, fake):
    """A 5xx may come after the engine stored the memory: before, the copy called it failed and sent it again."""
    copy = copies.pair(native, mem0)
    fake.fault = "error500"
    assert copies.run(copy)["unknown"] == 3
    fake.fault = None
    sent = len(fake.log)
    second = copies.run(copy)
    assert second["unknown"] == 3 and len(fake.log) == sent and not fake.memories
    assert RemoteWrite.objects.filter(space=mem0).count() == 3


def test_nothing_leaves_the_source_until_a_person_removes_what_arrived(native, mem0, fake):
    copy = copies.pair(native, mem0)
    copies.run(copy)
    assert Entry.objects.live().filter(space=native).count() == 3
    first = CopyReceipt.objects.filter(copy=copy).order_by("id").first()
    CopyReceipt.objects.filter(pk=first.pk).update(state="failed")
    result = copies.forget(copy, actor="alice")
    assert result["removed"] == 2 and Entry.objects.live().filter(space=native).count() == 1
    assert Entry.objects.live().get(space=native).pk == int(first.source_id)
    assert copies.summary(copy)["forgotten"] == 2 and copies.forget(copy, actor="alice")["removed"] == 0


def test_a_native_copy_keeps_turns_links_summaries_and_archive_marks(native):
    turn = Entry.objects.get(space=native, kind=Kind.TURN)
    Entry.objects.filter(pk=turn.pk).update(summary="A model's line about 老王", category="companion")
    marks.archive(native, [Entry.objects.get(space=native, title="NAS").pk])
    target = MemorySpace.objects.create(slug="other", name="Other")
    result = copies.run(copies.pair(native, target))
    assert result["committed"] == 3 and result["linked"] == 1
    copied = Entry.objects.get(space=target, kind=Kind.TURN)
    assert copied.body == turn.body and copied.summary == "A model's line about 老王" and copied.session_id == "s1"
    assert copied.category == "companion"  # as a person set it, not as the rules would say
    assert Entry.objects.get(space=target, title="NAS").archived
    assert Edge.objects.filter(source__space=target, edge_type="causal", weight=0.8).count() == 2
    assert target.facts.filter(predicate="nickname", value="老王").exists()


def test_a_vault_is_copied_only_into_another_native_vault(native, mem0):
    vault = MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    with pytest.raises(copies.CopyRefused, match="only into another native vault"):
        copies.preview(vault, mem0)
    with pytest.raises(copies.CopyRefused):
        copies.pair(vault, native)
    other = MemorySpace.objects.create(slug="diary2", name="Diary 2", access="vault")
    assert other in copies.targets(vault) and mem0 not in copies.targets(vault) and native not in copies.targets(vault)
    with pytest.raises(copies.CopyRefused, match="into itself"):
        copies.pair(native, native)


def test_the_copy_runs_as_a_job_and_joins_a_running_one(native, mem0, fake):
    job = copies.start(native, mem0, actor="alice")
    job.refresh_from_db()
    assert job.status == "succeeded" and job.result["accepted"] == 3 and job.kind == "space_copy"
    forget = copies.forget_source(copies.pair(native, mem0), actor="alice")
    forget.refresh_from_db()
    assert forget.status == "succeeded" and forget.result["removed"] == 3


def test_the_command_previews_copies_resumes_and_removes(native, mem0, fake):
    def run(*args):
        out = StringIO()
        call_command("copy_space", *args, stdout=out)
        return json.loads(out.getvalue())

    assert run("notes", "m0", "--preview")["to_send"] == 3 and not fake.memories
    assert run("notes", "m0")["accepted"] == 3
    assert run("notes", "m0")["already"] == 3
    assert run("notes", "m0", "--remove-from-source")["removed"] == 3
    assert not Entry.objects.live().filter(space=native).exists()
