"""Optional embeddings: the worker embeds entries, search blends nearest neighbours with word matches.

A real HTTP server on 127.0.0.1 speaks the OpenAI embeddings API (tests/fakes_embeddings.py); its
vectors put synonyms on one axis, so a match by meaning has no word in common with the query.
"""

import pytest
from django.db import connection

from memoryhub.memories.recall import cards as recall
from memoryhub.memories.search import fulltext as search, vectors
from memoryhub.memories.write import gateway
from memoryhub.memories.models import Entry, EntryVector
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space
from tests.fakes_embeddings import DIMS, FakeEmbeddings


@pytest.fixture
def service(db, settings):
    with FakeEmbeddings() as fake:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": fake.base_url,
                              "EMBEDDINGS_MODEL": "fake-synonyms", "EMBEDDINGS_API_KEY": "sk-embed-secret"}
        yield fake


@pytest.fixture
def space(db):
    return MemorySpace.objects.create(slug="cars", name="Cars")


def note(space, text):
    entry = gateway.write(space, gateway.Draft(body=text)).entry
    return entry


def found(space, query, **kw):
    return [Entry.objects.get(pk=h.entry_id).body for h in search.query([space.pk], query, recallable_only=False, **kw)]


def test_search_finds_what_was_said_in_other_words(service, space, settings):
    note(space, "Bought a used sedan from the dealer on Friday")
    note(space, "The garden needs watering twice a week")
    vectors.embed_pending(space.pk)
    assert found(space, "automobile") == ["Bought a used sedan from the dealer on Friday"]
    # nine words, one of them on the query's axis: cosine 1/3
    assert search.query([space.pk], "automobile")[0].similarity == pytest.approx(1 / 3, abs=1e-3)

    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}
    assert found(space, "automobile") == []  # words alone know no synonyms


def test_word_matches_keep_their_place_and_unrelated_neighbours_stay_out(service, space):
    exact = note(space, "Invoice 42 from the printer company is due")
    similar = note(space, "The bill for toner arrived")
    note(space, "The puppy chewed a shoe")
    vectors.embed_pending(space.pk)
    hits = search.query([space.pk], "invoice", recallable_only=False)
    assert [h.entry_id for h in hits] == [exact.pk, similar.pk]
    assert hits[0].bm25 > 0 and hits[1].bm25 == 0  # the second came by meaning alone


def test_the_enrichment_run_embeds_new_writes_but_never_a_vault(service, api):
    r = api.tool("memory_note", text="Our family physician moved to the north side")
    assert r.status_code == 200, r.content
    vector = EntryVector.objects.get()
    assert (vector.model, vector.dims, vector.space_id) == ("fake-synonyms", DIMS, default_space().pk)
    assert service.requests[0]["auth"] == "Bearer sk-embed-secret"
    assert service.requests[0]["path"] == "/v1/embeddings"

    vault = MemorySpace.objects.create(slug="secrets", name="Secrets", access="vault")
    note(vault, "The physician's door code is 4711")
    vectors.embed_pending(vault.pk)
    assert EntryVector.objects.count() == 1
    assert not any("4711" in text for text in service.embedded_texts())


def test_an_agent_finds_by_meaning_through_the_api(service, api):
    api.turn("My doctor said to walk every morning", "Good advice.")
    results = api.tool("memory_search", query="physician").json()["result"]["results"]
    assert len(results) == 1 and "walk every morning" in results[0]["summary"]
    context = api.post("context", {"session_id": "s2", "query": "physician"}).json()
    assert "walk every morning" in context["text"]


def test_a_match_by_meaning_counts_toward_relevance(service, space):
    note(space, "Physician visit booked")
    card = recall.search([space], "doctor", limit=5)[0]
    # Half the rank (the only hit: 1.0), half the closeness: cosine 1/√3 lies 0.40 of the way above the 0.3 floor.
    assert card.score == pytest.approx(0.5 + 0.5 * (3 ** -0.5 - 0.3) / 0.7, abs=1e-3)


def test_an_edit_is_embedded_again_by_the_run_it_queues(service, space):
    entry = note(space, "Parked the car on level three")
    assert found(space, "automobile") == ["Parked the car on level three"]
    gateway.edit(entry, body="Left the dog with the neighbours")
    assert found(space, "hound") == ["Left the dog with the neighbours"]
    assert found(space, "automobile") == []
    assert vectors.sweep() == 0  # nothing left for the sweep


def test_an_edit_the_service_missed_is_embedded_by_the_sweep(service, space, settings):
    entry = note(space, "Parked the car on level three")
    url = settings.MEMORYHUB["EMBEDDINGS_BASE_URL"]
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": "http://127.0.0.1:9/v1"}  # nothing listens
    gateway.edit(entry, body="Left the dog with the neighbours")
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": url}
    assert not EntryVector.objects.filter(entry=entry).exists()
    assert found(space, "hound") == []

    assert vectors.sweep() == 1
    assert found(space, "hound") == ["Left the dog with the neighbours"]


def test_forgetting_removes_the_vector(service, space):
    entry = note(space, "Sold the old sedan")
    vectors.embed_pending(space.pk)
    gateway.forget(entry)
    assert not EntryVector.objects.exists()
    assert found(space, "vehicle") == []


def test_a_failing_service_loses_nothing_and_the_sweep_catches_up(service, api):
    service.mode = "down"
    r = api.turn("Booked the car service for Tuesday", "Noted.")
    assert r.status_code == 201
    space = default_space()
    assert Entry.objects.filter(space=space).count() == 1 and not EntryVector.objects.exists()
    space.refresh_from_db()
    assert space.last_error.startswith("embeddings: POST http://127.0.0.1") and "500" in space.last_error
    assert "sk-embed-secret" not in space.last_error
    # Search by words still works while the service is down.
    assert [r["summary"] for r in api.tool("memory_search", query="car service").json()["result"]["results"]]

    service.mode = "ok"
    assert vectors.sweep() == 1
    space.refresh_from_db()
    assert space.last_error == ""
    assert api.tool("memory_search", query="automobile").json()["result"]["results"]


@pytest.mark.parametrize("mode", ["short", "nan"])
def test_a_malformed_answer_stores_nothing(service, space, mode):
    service.mode = mode
    note(space, "Washed the car")
    assert vectors.embed_pending(space.pk) == 0
    assert not EntryVector.objects.exists()
    space.refresh_from_db()
    assert space.last_error.startswith("embeddings: POST") and "answered" in space.last_error


def test_a_text_the_service_refuses_does_not_hold_up_the_others(service, space):
    first = note(space, "Washed the car on Sunday")
    refused = note(space, "TOO-LONG log dump of the car computer")
    last = note(space, "Took the puppy to the vet")
    assert dict(EntryVector.objects.values_list("entry_id", "dims")) == {first.pk: DIMS, refused.pk: 0, last.pk: DIMS}
    status = vectors.status(space)
    assert (status["missing"], status["refused"], status["error"]) == (0, 1, "")
    assert found(space, "automobile") == ["Washed the car on Sunday"]
    assert vectors.embed_pending(space.pk) == 0  # not asked for again

    gateway.edit(refused, body="Car computer log, summarised")
    assert EntryVector.objects.get(entry=refused).dims == DIMS


def test_a_slow_service_only_costs_a_search_its_query_timeout(service, space, settings):
    note(space, "Car keys are in the blue bowl")
    vectors.embed_pending(space.pk)
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_QUERY_TIMEOUT": 0.3}
    service.mode = "slow"  # answers after 3 s
    assert found(space, "car keys") == ["Car keys are in the blue bowl"]
    assert "car keys" in service.embedded_texts() and service.slow_answers == 0  # asked, and not waited for


def test_a_run_stops_at_its_time_budget_and_the_next_one_goes_on(service, space, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}
    for i in range(40):
        note(space, f"Service log {i}: the car needed oil")
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": service.base_url}
    assert vectors.embed_pending(space.pk, seconds=0) == 0
    assert vectors.embed_pending(space.pk) == 40
    assert vectors.status(space)["missing"] == 0


def test_another_model_embeds_everything_again(service, space, settings):
    note(space, "Vet appointment for the hound")
    vectors.embed_pending(space.pk)
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_MODEL": "fake-synonyms-v2"}
    assert vectors.embed_pending(space.pk) == 1
    assert list(EntryVector.objects.values_list("model", flat=True)) == ["fake-synonyms-v2"]
    assert found(space, "puppy") == ["Vet appointment for the hound"]


def test_the_dashboard_shows_progress_and_embeds_on_request(service, space, client, staff, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}
    note(space, "Renewed the car insurance")
    note(space, "Booked a physician for Monday")
    page = client.get(f"/spaces/{space.slug}/maintenance/").content.decode()
    assert "Off: search matches words only" in page

    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": service.base_url}
    page = client.get(f"/spaces/{space.slug}/maintenance/").content.decode()
    assert "fake-synonyms" in page and "2 of 2 live entries are not embedded yet" in page
    assert "sk-embed-secret" not in page
    r = client.post(f"/spaces/{space.slug}/maintenance/embed/", HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "Embedding" in r.content.decode()
    assert EntryVector.objects.count() == 2
    page = client.get(f"/spaces/{space.slug}/maintenance/").content.decode()
    assert "0 of 2 live entries" in page and "Embed them now" not in page


def test_embedding_requires_a_login_and_a_post(service, space, client):
    assert client.post(f"/spaces/{space.slug}/maintenance/embed/").status_code == 302
    assert not EntryVector.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pgvector is PostgreSQL's")
def test_postgresql_searches_vectors_with_pgvector_and_an_hnsw_index(service, space):
    """`.ci/run` installs pgvector (`.ci/pgvector`); without it the hub falls back to NumPy, which this test refuses."""
    sedan = note(space, "Bought a used sedan from the dealer")
    note(space, "The garden needs watering")
    assert vectors.status(space)["index"] == "pgvector HNSW"
    with connection.cursor() as cur:
        cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [f"memories_entryvector_hnsw_{DIMS}"])
        assert "hnsw" in cur.fetchone()[0]
        cur.execute("SET enable_seqscan = off")
        cur.execute(f"EXPLAIN SELECT entry_id FROM memories_entryvector WHERE dims = {DIMS} "
                    f"ORDER BY embedding::vector({DIMS}) <=> %s::vector({DIMS}) LIMIT 5", ["[" + ",".join(["0.1"] * DIMS) + "]"])
        assert f"memories_entryvector_hnsw_{DIMS}" in " ".join(row[0] for row in cur.fetchall())
        cur.execute("SET enable_seqscan = on")
    assert found(space, "automobile") == [sedan.body]


def test_the_embed_command_works_off_a_backlog_and_says_why_it_cannot(service, space, settings):
    from io import StringIO

    from django.core.management import CommandError, call_command

    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}
    note(space, "Checked the tyre pressure")
    with pytest.raises(CommandError, match="embeddings are off"):
        call_command("embed", space.slug)
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": service.base_url}
    out = StringIO()
    call_command("embed", space.slug, stdout=out, stderr=StringIO())
    assert '"embedded": 1' in out.getvalue() and '"missing": 0' in out.getvalue()
    vault = MemorySpace.objects.create(slug="locked", name="Locked", access="vault")
    with pytest.raises(CommandError, match="vault"):
        call_command("embed", vault.slug)
    service.mode = "down"
    note(space, "Rotated the tyres")
    with pytest.raises(CommandError, match="answered 500"):
        call_command("embed", space.slug, stdout=StringIO(), stderr=StringIO())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pgvector is PostgreSQL's")
def test_a_big_backfill_on_postgresql_builds_the_hnsw_index_after_loading(service, space, settings, monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    from memoryhub.memories.search import pgvectors

    def index_oid():
        with connection.cursor() as cur:
            cur.execute("SELECT to_regclass(%s)::oid", [f"memories_entryvector_hnsw_{DIMS}"])
            return cur.fetchone()[0]

    note(space, "Bought a used sedan")  # embedded at once: the index exists
    before = index_oid()
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": ""}
    for text in ("Puppy training on Saturday", "Invoice from the garage", "Physician on Monday"):
        note(space, text)
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": service.base_url}
    monkeypatch.setattr(pgvectors, "BULK_FROM", 3)
    call_command("embed", space.slug, stdout=StringIO(), stderr=StringIO())
    assert before and index_oid() and index_oid() != before  # dropped for the load, built again after it
    assert EntryVector.objects.filter(dims=DIMS).count() == 4
    assert found(space, "hound") == ["Puppy training on Saturday"]
