"""#31: every space owns its data underneath. A local provider (Holographic, ByteRover) keeps one store per space;
two spaces share one only when a person names one directory for both (the dashboard then says so), and a vault
never shares; binding a workspace writes nothing into it, and no store is reached through a symbolic link."""

from __future__ import annotations

import os

import pytest

from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.provider_services import provider_for, save_service, store_of
from tests.answers import refused, result

pytestmark = pytest.mark.django_db
BRV = os.path.join(os.path.dirname(__file__), "providers", "fakes", "brv")


@pytest.fixture(autouse=True)
def own_data_dir(settings, tmp_path):
    """A data directory of the test's own: stores the hub makes there start empty."""
    settings.DATA_DIR = tmp_path / "data"
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "data" / "state" / "secrets.json"}


def space(slug, provider="holographic", **fields):
    return MemorySpace.objects.create(slug=slug, name=slug, provider=provider, **fields)


def files_under(path) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), path) for d, _, names in os.walk(path) for f in names)


def test_two_holographic_spaces_without_a_workspace_never_read_or_delete_each_others_records(api):
    space("notes-a"), space("notes-b")
    mine = result(api.tool("memory_note", text="the zeppelin hangar code", space="notes-a"))["id"]
    assert result(api.tool("memory_search", query="zeppelin", space="notes-b"))["results"] == []
    twin = "notes-b:" + mine.split(":", 1)[1]  # the same engine id through the other space
    refused(api.tool("memory_recall", id=twin), 404)
    refused(api.tool("memory_forget", id=twin), 404)
    assert result(api.tool("memory_recall", id=mine))["body"] == "the zeppelin hangar code"
    assert store_of(MemorySpace.objects.get(slug="notes-a")).where != store_of(
        MemorySpace.objects.get(slug="notes-b")).where


@pytest.mark.parametrize("kind", ["holographic", "byterover"])
def test_text_saved_into_a_local_vault_never_comes_back_through_an_open_space(api, kind):
    if kind == "byterover":
        save_service("byterover", {"cliPath": BRV})
    space("open-side", kind), space("vault-side", kind, access="vault")
    result(api.tool("memory_note", text="the lighthouse keeper's safe holds 4711", space="vault-side"))
    assert result(api.tool("memory_search", query="lighthouse keeper safe", space="open-side"))["results"] == []
    assert result(api.tool("memory_search", query="lighthouse keeper safe"))["results"] == []
    block = result(api.post("context", {"session_id": "s1", "query": "lighthouse keeper safe"}))["text"]
    assert "4711" not in block


def test_binding_a_workspace_writes_nothing_into_its_directory_even_through_a_planted_link(api, tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir(), elsewhere.mkdir()
    os.symlink(elsewhere, project / ".memoryhub")  # planted where the hub used to put its stores
    result(api.post("spaces", {"slug": "proj-facts", "name": "P", "provider": "holographic",
                               "workspace": str(project)}), 201)
    result(api.tool("memory_note", text="a fact about the project", space="proj-facts"))
    assert files_under(elsewhere) == [] and sorted(os.listdir(project)) == [".memoryhub"]
    assert Workspace.objects.get().path == str(project)
    assert store_of(MemorySpace.objects.get(slug="proj-facts")).where.startswith(str(tmp_path / "data"))


def test_a_service_folder_holds_one_store_per_space(api, tmp_path):
    root = tmp_path / "holo"
    root.mkdir()
    save_service("holographic", {"dataPath": str(root)})
    space("one"), space("two")
    result(api.tool("memory_note", text="first space's fact", space="one"))
    result(api.tool("memory_note", text="second space's fact", space="two"))
    stores = [f for f in files_under(root) if f.endswith("holographic.json")]
    assert len(stores) == 2 and {s.split(os.sep)[0].rsplit("-", 1)[0] for s in stores} == {"one", "two"}


def test_two_spaces_naming_one_directory_share_it_and_the_dashboard_says_so(api, client, staff, tmp_path):
    tree = tmp_path / "repo"
    tree.mkdir()
    save_service("byterover", {"cliPath": BRV})
    space("brv-a", "byterover", config={"workingDirectory": str(tree)})
    space("brv-b", "byterover", config={"workingDirectory": str(tree)})
    result(api.tool("memory_note", text="the build uses pnpm workspaces", space="brv-a"))
    assert result(api.tool("memory_search", query="pnpm workspaces", space="brv-b"))["results"]  # shared, as asked
    page = client.get("/spaces/brv-b/").content.decode()
    assert str(tree) in page and "shared with brv-a" in page


def test_a_vault_never_shares_its_store(api, tmp_path):
    tree = tmp_path / "repo"
    tree.mkdir()
    save_service("byterover", {"cliPath": BRV})
    space("brv-open", "byterover", config={"workingDirectory": str(tree)})
    space("brv-vault", "byterover", access="vault", config={"workingDirectory": str(tree)})
    for slug in ("brv-vault", "brv-open"):  # neither side may use the shared directory
        answer = refused(api.tool("memory_note", text="the vault's secret", space=slug), 502)
        assert "never shares" in answer["message"] and "brv-vault" not in answer["message"].replace(slug, "")
    assert not os.path.exists(tree / ".brv")


def test_a_store_reached_through_a_symbolic_link_is_refused(api, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    save_service("holographic", {"dataPath": str(tmp_path / "link")})
    space("linked")
    answer = refused(api.tool("memory_note", text="anything", space="linked"), 502)
    assert "symbolic link" in answer["message"]
    assert files_under(real) == []


def test_a_remote_vault_with_an_open_spaces_identity_is_refused(api):
    from tests.providers.fakes.supermemory import SupermemoryFake

    fake = SupermemoryFake()
    try:
        save_service("supermemory", {"endpoint": fake.url, "apiKey": fake.api_key})
        space("sm-open", "supermemory", config={"containerTag": "alice"})
        space("sm-vault", "supermemory", access="vault", config={"containerTag": "alice"})
        refused(api.tool("memory_note", text="the vault's secret", space="sm-vault"), 502)
        assert store_of(MemorySpace.objects.get(slug="sm-open")).shared_with == ("sm-vault",)
        MemorySpace.objects.filter(slug="sm-vault").update(config={"containerTag": "alice-private"})
        result(api.tool("memory_note", text="the vault's secret", space="sm-vault"))
        fake.extract_pending()
        assert provider_for(MemorySpace.objects.get(slug="sm-vault")).search("vault secret")  # it is there
        assert provider_for(MemorySpace.objects.get(slug="sm-open")).search("vault secret") == []
    finally:
        fake.stop()


# --- the stores spaces shared before #31 -----------------------------------------------------------------

def legacy_fact(fid: int, text: str) -> dict:
    return {"id": str(fid), "content": text, "title": "", "category": "general", "tags": [], "trust": 0.5, "at": "",
            "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00", "entities": []}


def test_shared_stores_are_split_per_space_without_losing_or_duplicating_a_record(api, settings, tmp_path):
    import json

    from django.apps import apps

    from memoryhub.memories.maintenance.store_split import split_shared_stores
    from memoryhub.memories.models import RemoteRecord, RemoteWrite

    a, b, v = space("a"), space("b"), space("v", access="vault")
    project = tmp_path / "project"
    project.mkdir()
    w = space("w", workspace=Workspace.objects.create(slug="project-1", name="project", path=str(project)))
    texts = {1: "alpha's kettle", 2: "bravo's teapot", 3: "the vault's diary line", 4: "written around the hub",
             5: "said in both alpha and bravo"}
    shared = settings.DATA_DIR / "providers" / "global" / "holographic.json"
    shared.parent.mkdir(parents=True)
    shared.write_text(json.dumps({"format": "memoryhub.holographic", "version": 1, "next_id": 6,
                                  "facts": {str(i): legacy_fact(i, t) for i, t in texts.items()}}))
    beside = project / ".memoryhub" / "holographic.json"
    beside.parent.mkdir()
    beside.write_text(json.dumps({"format": "memoryhub.holographic", "version": 1, "next_id": 2,
                                  "facts": {"1": legacy_fact(1, "the project's own fact")}}))
    for owner, fid in ((a, 1), (a, 5), (v, 3), (w, 1)):
        RemoteRecord.objects.create(space=owner, record_id=str(fid), origin="local")
    for owner, fid in ((b, 2), (b, 5)):
        RemoteWrite.objects.create(space=owner, state="committed", provider_id=str(fid), body=texts[fid])

    assert split_shared_stores(apps, settings.DATA_DIR)["holographic"] == 7  # 5 facts, one claimed twice, + w's

    def held(slug):
        return {fid: f["content"] for fid, f in provider_for(MemorySpace.objects.get(slug=slug)).store.read()["facts"]
                .items()}

    assert held("a") == {"1": texts[1], "4": texts[4], "5": texts[5]}  # the oldest open space takes unclaimed ones
    assert held("b") == {"2": texts[2], "5": texts[5]}
    assert held("v") == {"3": texts[3]}
    assert held("w") == {"1": "the project's own fact"}
    every = [fid for slug in "abv" for fid in held(slug)]
    assert sorted(set(every)) == sorted(str(i) for i in texts)  # nothing lost ...
    assert len(every) == len(texts) + 1  # ... and nothing twice but what two spaces both wrote
    assert provider_for(MemorySpace.objects.get(slug="b")).store.read()["next_id"] == 6  # ids never handed out twice
    assert result(api.tool("memory_recall", id="a:1"))["body"] == texts[1]  # ids the hub handed out still read back
    refused(api.tool("memory_recall", id="b:1"), 404)
    assert result(api.tool("memory_search", query="vault diary line", space="a"))["results"] == []
    assert not shared.exists() and shared.with_name("holographic.json.before-per-space").exists()
    assert not beside.exists() and files_under(project) == [".memoryhub/holographic.json.before-per-space"]
    assert split_shared_stores(apps, settings.DATA_DIR) == {"holographic": 0, "byterover": 0}  # nothing left


def test_a_shared_byterover_tree_is_split_by_the_files_each_space_curated(api, settings):
    from django.apps import apps

    from memoryhub.memories.maintenance.store_split import split_shared_stores
    from memoryhub.memories.models import RemoteWrite

    save_service("byterover", {"cliPath": BRV})
    first, second = space("brv-one", "byterover"), space("brv-two", "byterover", access="vault")
    old = settings.DATA_DIR / "providers" / "global"
    notes = old / ".brv" / "context-tree" / "notes"
    notes.mkdir(parents=True)
    for name, text in (("one.md", "---\ntitle: one\n---\nthe first space uses pnpm\n"),
                       ("two.md", "---\ntitle: two\n---\nthe vault's diary entry\n"),
                       ("loose.md", "---\ntitle: loose\n---\ncurated around the hub\n")):
        (notes / name).write_text(text)
    (old / ".brv" / "config.json").write_text("{}")
    for owner, name in ((first, "one.md"), (second, "two.md")):
        RemoteWrite.objects.create(space=owner, state="accepted", body="x",
                                   detail={"files": [str(notes / name)], "task": "t"})

    assert split_shared_stores(apps, settings.DATA_DIR)["byterover"] == 3

    def tree(slug):
        return files_under(store_of(MemorySpace.objects.get(slug=slug)).where)

    assert tree("brv-one") == [".brv/config.json", ".brv/context-tree/notes/loose.md", ".brv/context-tree/notes/one.md"]
    assert tree("brv-two") == [".brv/config.json", ".brv/context-tree/notes/two.md"]
    assert result(api.tool("memory_search", query="diary entry", space="brv-one"))["results"] == []
    assert result(api.tool("memory_search", query="pnpm", space="brv-one"))["results"]
    assert not (old / ".brv").exists() and (old / ".brv.before-per-space").is_dir()
