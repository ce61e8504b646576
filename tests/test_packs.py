"""Packs: export a native space, import it as a new one with identical search results; no secrets inside."""

import io
import tarfile
from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.audit.models import AuditEvent
from memoryhub.memories.growth import facts
from memoryhub.memories.maintenance import consolidate, packs
from memoryhub.memories.search import fulltext as search, recall
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Edge, Entry, Fact, OpLog, Persona, Topic
from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db
QUERIES = ["nginx reload", "postgres backups", "日志 轮转", "tea"]


def fill(space):
    start = timezone.now() - timedelta(days=10)
    for i, (u, a) in enumerate([("how do I reload nginx?", "nginx -s reload"),
                                ("and test the nginx config first?", "nginx -t checks it"),
                                ("postgres backups at night?", "pg_dump at 3am to the NAS"),
                                ("日志轮转怎么配？", "用 logrotate 每天轮转"),
                                ("叫我老王，我喜欢喝tea", "好的老王")]):
        draft = gateway.Draft(kind="turn", user=u, assistant=a, session_id="s", at=start + timedelta(minutes=i))
        gateway.write(space, draft)
    note = gateway.write(space, gateway.Draft(body="postgres backups are verified weekly", category="decision")).entry
    Entry.objects.filter(pk=note.pk).update(hits=4)
    Persona.objects.update_or_create(space=space, defaults={"profile": "Wang, drinks tea"})
    facts.assert_fact(space, "user", "nickname", "王哥")


def results(space):
    return [[Entry.objects.get(pk=c.id).title or Entry.objects.get(pk=c.id).body[:40]
             for c in recall.search([space], q, limit=10)] for q in QUERIES]


def test_round_trip_gives_identical_search_results():
    space = MemorySpace.objects.create(slug="src", name="Source")
    fill(space)
    consolidate.apply(space, now=timezone.now() + timedelta(days=40))
    before, counts = results(space), _counts(space)
    data = packs.export(space)
    search.unindex(Entry.objects.filter(space=space).values_list("pk", flat=True))
    space.delete()
    copy = packs.import_pack(data)
    assert copy.slug == "src" and copy.is_native
    assert results(copy) == before and _counts(copy) == counts
    assert any(r for r in before)


def _counts(space):
    return {"entries": Entry.objects.filter(space=space).count(),
            "archived": Entry.objects.filter(space=space, archived=True).count(),
            "digested": Entry.objects.filter(space=space, digest__isnull=False).count(),
            "topics": Topic.objects.filter(space=space).count(),
            "facts": sorted(Fact.objects.filter(space=space).values_list("predicate", "value", "status")),
            "invalidated_by": Fact.objects.filter(space=space, invalidated_by__isnull=False).count(),
            "edges": Edge.objects.filter(source__space=space).count(),
            "oplog": OpLog.objects.filter(space=space).count(),
            "persona": Persona.objects.get(space=space).profile}


def test_import_into_a_hub_that_has_the_space_makes_a_new_one():
    space = MemorySpace.objects.create(slug="src", name="Source")
    fill(space)
    copy = packs.import_pack(packs.export(space))
    assert copy.slug == "src-2" and Entry.objects.filter(space=copy).count() == Entry.objects.filter(space=space).count()
    assert not set(Entry.objects.filter(space=copy).values_list("pk", flat=True)) & set(
        Entry.objects.filter(space=space).values_list("pk", flat=True))


def test_pack_has_a_manifest_with_checksums_and_no_secrets():
    space = MemorySpace.objects.create(slug="src", name="Source", config={"note": "provider config stays home"})
    fill(space)
    secrets.save("mem0", {"apiKey": "m0-very-secret-key-123"})
    data = packs.export(space)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        raw = b"".join(tar.extractfile(m).read() for m in tar.getmembers())
        names = tar.getnames()
    assert b"m0-very-secret-key-123" not in raw and b"m0-very-secret-key-123" not in data
    assert b"provider config stays home" not in raw
    assert names[0] == "manifest.json" and "entries.json" in names
    manifest, _ = packs.read(data)
    assert manifest["schema_version"] == packs.SCHEMA_VERSION and set(manifest["files"]) >= {"entries.json", "facts.json"}


def test_a_tampered_pack_is_refused():
    space = MemorySpace.objects.create(slug="src", name="Source")
    fill(space)
    data = packs.export(space)
    with pytest.raises(packs.PackError, match="checksum"):
        packs.import_pack(repacked(data, "entries.json", lambda blob: blob.replace(b"nginx", b"NGINX")))
    with pytest.raises(packs.PackError):
        packs.import_pack(b"not a tarball")


def repacked(data: bytes, member: str, change) -> bytes:
    """The pack again with one member's bytes passed through `change` (no checksum updated)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        blobs = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    blobs[member] = change(blobs[member])
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, blob in blobs.items():
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    return out.getvalue()


def test_a_pack_import_makes_its_space_through_the_space_service():
    """Audited like any new space; a slug or access the service refuses is a PackError and leaves nothing."""
    data = packs.export(MemorySpace.objects.create(slug="src", name="Source"))
    copy = packs.import_pack(data, slug="copy")
    assert AuditEvent.objects.filter(action="space.create", target=copy.slug, actor="hub").exists()
    before = MemorySpace.objects.count()
    with pytest.raises(packs.PackError, match="slug must be lower-case"):
        packs.import_pack(data, slug="Bad Slug!")
    public = repacked(data, "manifest.json", lambda blob: blob.replace(b'"access": "open"', b'"access": "public"'))
    with pytest.raises(packs.PackError, match="access must be one of"):
        packs.import_pack(public)
    assert MemorySpace.objects.count() == before
