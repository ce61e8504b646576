"""Split the stores local providers' spaces used to share (before #31) into one store per space.

Until #31 a Holographic space without a workspace kept its facts in `<data dir>/providers/global/holographic.json`
(a workspace's in `<its path>/.memoryhub/`, or in the service's dataPath), and so did every other such space; a
ByteRover space ran `brv` there too. Each space now has its own store (spaces/provider_services.py). This moves
every record to the space that wrote it, as the hub's own bookkeeping knows: a Holographic fact by the ids its
writes got (RemoteRecord, RemoteWrite), a ByteRover file by the files its curations created or updated. A record
no space claims (written around the hub, or before it kept origins) goes to the group's oldest open space, or
its oldest space when all are vaults; one two spaces claim (Holographic answered a copy with the first one's
id) goes to both. Nothing is lost and no store gets a record twice; a fact keeps its id, so every id the hub
handed out still reads back. The old store is renamed `<name>.before-per-space` (a ByteRover directory a person
named is left as it is). Run again, it finds nothing left to split.

It takes a migration's `apps`, so the data migration and its test run the same code.
"""

from __future__ import annotations

import os
import shutil
from collections import defaultdict
from datetime import datetime

from memoryhub.spaces.provider_services import store_name
from providers.holographic import FILE_NAME as HOLOGRAPHIC_FILE
from providers.holographic.store import FactStore
from providers.registry import get_provider_class

RETIRED = ".before-per-space"
BRV_TREE = ".brv"


def split_shared_stores(apps, data_dir) -> dict[str, int]:
    """Split every store spaces shared; returns how many records each kind moved."""
    space_model = apps.get_model("spaces", "MemorySpace")
    service_model = apps.get_model("spaces", "ProviderService")
    moved = {}
    for kind, split in (("holographic", _split_holographic), ("byterover", _split_byterover)):
        spaces = list(space_model.objects.filter(provider=kind).select_related("workspace").order_by("created_at", "pk"))
        service = service_model.objects.filter(kind=kind).first()
        config = dict(service.config) if service else {}
        groups: dict[str, list] = defaultdict(list)
        for space in spaces:
            old = _old_location(kind, space, config, data_dir)
            if old is not None:
                groups[old].append(space)
        moved[kind] = sum(split(apps, old, group, config, data_dir) for old, group in groups.items())
    return moved


def _old_location(kind: str, space, config: dict, data_dir) -> str | None:
    """Where the code before #31 kept this space's store (None where it still is: a named working directory)."""
    if space.workspace_id and space.workspace.path and os.path.isdir(space.workspace.path):
        beside = os.path.join(space.workspace.path, ".memoryhub")
    else:
        beside = os.path.join(str(data_dir), "providers", space.workspace.slug if space.workspace_id else "global")
    if kind == "holographic":
        base = os.path.abspath(os.path.expanduser(str(config.get("dataPath") or "").strip() or beside))
        return base if base.endswith(".json") else os.path.join(base, HOLOGRAPHIC_FILE)
    if str((space.config or {}).get("workingDirectory") or "").strip():
        return None
    return os.path.abspath(os.path.expanduser(str(config.get("defaultDirectory") or "").strip() or beside))


def _new_location(kind: str, space, config: dict, data_dir) -> str:
    """The space's own store directory, as provider_services.store_of places it."""
    cls = get_provider_class(kind)
    root = str(config.get(cls.store_root_field) or "").strip()
    root = cls.store_root(root) if root else os.path.join(str(data_dir), "providers", kind)
    return os.path.join(root, store_name(space.slug, space.pk, space.created_at))


def _heir(group: list):
    """Who gets the records no space claims: the oldest open space, else the oldest."""
    return next((s for s in group if s.access != "vault"), group[0])


def _split_holographic(apps, old: str, group: list, config: dict, data_dir) -> int:
    if os.path.islink(old) or not os.path.isfile(old):
        return 0
    shared = FactStore(old).read()
    claims = _holographic_claims(apps, group)
    heir = _heir(group)
    moved = 0
    for space in group:
        mine = {fid: fact for fid, fact in shared["facts"].items()
                if space.pk in claims.get(fid, ()) or (fid not in claims and space.pk == heir.pk)}
        store = FactStore(os.path.join(_new_location("holographic", space, config, data_dir), HOLOGRAPHIC_FILE))
        with store.change() as data:
            data["next_id"] = max(data["next_id"], shared["next_id"])  # an id is never handed out twice
            for fid, fact in mine.items():
                if fid not in data["facts"]:
                    data["facts"][fid] = fact
                    moved += 1
    _retire(old)
    if os.path.isfile(old + ".lock") and not os.path.islink(old + ".lock"):
        os.unlink(old + ".lock")  # the store's own empty lock file: nothing of the old store stays in use
    return moved


def _holographic_claims(apps, group: list) -> dict[str, set[int]]:
    """Fact id -> the spaces whose writes got that id (the hub's record of origins, and its writes)."""
    claims: dict[str, set[int]] = defaultdict(set)
    pks = [s.pk for s in group]
    for space_id, record_id in apps.get_model("memories", "RemoteRecord").objects.filter(
            space_id__in=pks).values_list("space_id", "record_id"):
        claims[str(record_id)].add(space_id)
    for space_id, provider_id in apps.get_model("memories", "RemoteWrite").objects.filter(
            space_id__in=pks).exclude(provider_id="").values_list("space_id", "provider_id"):
        claims[str(provider_id)].add(space_id)
    return claims


def _split_byterover(apps, old: str, group: list, config: dict, data_dir) -> int:
    tree = os.path.join(old, BRV_TREE)
    if os.path.islink(tree) or not os.path.isdir(tree):
        return 0
    claims: dict[str, set[int]] = defaultdict(set)
    for space_id, detail in apps.get_model("memories", "RemoteWrite").objects.filter(
            space_id__in=[s.pk for s in group]).values_list("space_id", "detail"):
        for path in (detail or {}).get("files") or []:
            claims[os.path.relpath(os.path.abspath(os.path.join(old, str(path))), old)].add(space_id)
    heir = _heir(group)
    moved = 0
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            source = os.path.join(folder, name)
            if os.path.islink(source):
                continue
            relative = os.path.relpath(source, old)
            record = relative.startswith(os.path.join(BRV_TREE, "context-tree") + os.sep)
            # A curated file goes to whoever wrote it; brv's own settings beside the tree go to every space.
            owners = (claims.get(relative) or {heir.pk}) if record else {s.pk for s in group}
            for space in group:
                if space.pk in owners:
                    target = os.path.join(_new_location("byterover", space, config, data_dir), relative)
                    if not os.path.exists(target):
                        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
                        shutil.copy2(source, target)
                        moved += record
    if _hub_chose(old, data_dir):  # a directory a person named keeps its tree: it may be their project's own
        _retire(tree)
    return moved


def _hub_chose(path: str, data_dir) -> bool:
    return path.startswith(os.path.join(str(data_dir), "providers") + os.sep) or os.path.basename(path) == ".memoryhub"


def _retire(path: str) -> None:
    """Rename what was split, so it stays as a copy and is never split again."""
    target = path + RETIRED
    if os.path.exists(target):
        target = f"{target}-{datetime.now():%Y%m%d%H%M%S}"
    os.rename(path, target)

