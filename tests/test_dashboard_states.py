"""States the dashboard must never make up (#36): a job whose work failed never reads "succeeded", the hub never
calls a vendor's cloud the person did not type or save, facts say when they were said, a negation reads as one,
the recall preview does not claim meaning without embeddings, settings save with a message, repeated vault
requests are one card."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memoryhub.jobs.models import Job
from memoryhub.memories.facts import slots
from memoryhub.memories.models import Entry, Fact
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace, ProviderService, Workspace
from memoryhub.spaces.workspaces import default_space
from memoryhub.vault.models import AccessRequest, Grant

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


# --- jobs ---------------------------------------------------------------------------------------------------------

def test_a_memory_md_export_into_a_missing_directory_fails_its_job_and_says_so_where_it_was_switched_on(
        client, staff, tmp_path):
    missing = tmp_path / "gone"
    workspace = Workspace.objects.create(slug="gone", name="gone", path=str(missing))
    r = client.post(reverse("dashboard:workspace_export", args=["gone"]), {"export": "1"}, follow=True)
    job = Job.objects.get(kind="memory_md")
    assert job.status == Job.Status.FAILED and job.error == f"{missing} does not exist on this machine"
    page = r.content.decode()
    assert "is not a directory on this machine" in page  # the switch's own message
    assert 'data-state="failed"' in page and "last write failed" in page and reverse("dashboard:job", args=[job.pk]) in page
    detail = client.get(reverse("dashboard:job", args=[job.pk])).content.decode()
    assert 'data-state="failed"' in detail and "does not exist on this machine" in detail and "succeeded" not in detail
    zh = client.get(reverse("dashboard:job", args=[job.pk]), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert f"{missing} 在这台机器上不存在" in zh  # the reason in the reader's language

    missing.mkdir()
    client.post(reverse("dashboard:workspace_export", args=["gone"]), {"export": "1"})
    assert Job.objects.filter(kind="memory_md").first().status == Job.Status.SUCCEEDED
    assert (missing / "MEMORY.md").exists()
    assert 'data-state="written"' in client.get(reverse("dashboard:workspaces")).content.decode()
    assert workspace.pk


def test_a_job_that_finished_with_problems_never_reads_succeeded(client, staff):
    now = timezone.now()
    rebuilt = Job.objects.create(kind="persona_rebuild", label="Persona rebuild", space=default_space(),
                                 status=Job.Status.SUCCEEDED, progress=100, started_at=now, finished_at=now,
                                 result={"method": "rules", "error": "the model answered 503"})
    imported = Job.objects.create(kind="import_history", label="History import", space=default_space(),
                                  status=Job.Status.SUCCEEDED, progress=100, started_at=now, finished_at=now,
                                  result={"added": 3, "errors": ["line 7: not JSON"], "error_count": 1})
    clean = Job.objects.create(kind="selftest", label="Self test", status=Job.Status.SUCCEEDED, progress=100,
                               started_at=now, finished_at=now, result={"steps": 5})
    listing = client.get(reverse("dashboard:jobs")).content.decode()
    for job, state in ((rebuilt, "problems"), (imported, "problems"), (clean, "succeeded")):
        row = listing.split(f'id="job-{job.pk}"', 1)[1].split("</tr>", 1)[0]
        assert f'data-state="{state}"' in row, (job.kind, row)
    page = client.get(reverse("dashboard:job", args=[imported.pk])).content.decode()
    assert "finished with problems" in page and "line 7: not JSON" in page and 'id="job-problems"' in page


# --- providers: no call to an address nobody typed ----------------------------------------------------------------

def test_an_unconfigured_card_offers_the_vendors_cloud_only_as_a_placeholder_and_tests_nothing(client, staff):
    page = client.get(reverse("dashboard:providers")).content.decode()
    card = page.split('id="provider-honcho"', 1)[1].split("</section>", 1)[0]
    endpoint = re.search(r'<input[^>]*name="endpoint"[^>]*>', card).group()
    assert 'placeholder="e.g. https://api.honcho.dev"' in endpoint and "value=" not in endpoint
    form = dict(re.findall(r'<input type="(?:text|url|password)" name="(\w+)"[^>]*?(?:value="([^"]*)")?', card))
    r = client.post(reverse("dashboard:provider_test", args=["honcho"]), form, headers=HX)
    assert "This field is required" in r.content.decode()
    assert not ProviderService.objects.filter(kind="honcho", last_checked__isnull=False).exists()  # nothing called


def test_mem0s_mode_starts_unchosen_so_a_local_url_is_never_taken_for_the_platform(client, staff):
    card = client.get(reverse("dashboard:providers")).content.decode().split('id="provider-mem0"', 1)[1]
    select = card.split('name="mode"', 1)[1].split("</select>", 1)[0]
    assert '<option value="" selected>' in select and 'value="self-hosted"' in select
    r = client.post(reverse("dashboard:provider_test", args=["mem0"]), {"endpoint": "http://127.0.0.1:9"}, headers=HX)
    html = r.content.decode()
    assert "needs an API key" not in html and "This field is required" in html


# --- facts --------------------------------------------------------------------------------------------------------

def test_facts_say_when_they_were_said_not_when_the_hub_stored_them(client, staff):
    space = default_space()
    said = timezone.now() - timedelta(days=400)
    turn = gateway.write(space, gateway.Draft(kind="turn", user="Call me Wang", assistant="ok", at=said)).entry
    fact = Fact.objects.get(space=space, predicate="nickname")
    assert fact.source_entry_id == turn.pk
    page = client.get(reverse("dashboard:facts", args=["default"])).content.decode()
    row = page.split(f'id="fact-{fact.pk}"', 1)[1].split("</tr>", 1)[0]
    assert timezone.localtime(said).strftime("%Y-%m-%d %H:%M") in row
    assert timezone.localtime(fact.created_at).strftime("%Y-%m-%d") not in row.split("title=", 1)[0]


def test_a_fact_a_negation_ended_reads_as_not_that_value(client, staff):
    space = default_space()
    slots.assert_fact(space, "user", "nickname", "老王")
    slots.assert_fact(space, "user", "nickname", "老王", negative=True)
    url = reverse("dashboard:fact_history", args=["default"]) + "?subject=user&predicate=nickname"
    page = client.get(url).content.decode()
    assert "by “not 老王”" in page and "by “老王”" not in page
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "被“非 老王”取代" in zh


# --- recall preview -----------------------------------------------------------------------------------------------

def test_the_recall_preview_never_calls_a_hit_close_in_meaning_without_embeddings(client, staff, api):
    api.tool("memory_save", category="decision", title="Deploys", body="Everything goes out with make release.",
             tags=["deploys"])
    r = client.get(reverse("dashboard:recall", args=["default"]) + "?q=deploys")
    reasons = [item["why"] for item in r.context["items"] if item["kind"] == "entry"]
    assert reasons and all("close in meaning" not in why for why in reasons)


# --- settings -----------------------------------------------------------------------------------------------------

def test_settings_show_names_with_keys_beside_them_and_saving_says_what_it_did(client, staff):
    url = reverse("dashboard:space_settings", args=["default"])
    page = client.get(url).content.decode()
    assert "Cards per injection" in page and "<code>maxRecall</code>" in page
    assert re.search(r'<label for="id_maxRecall">Cards per injection</label>', page)
    rows = client.get(url).context["rows"]
    form = {row["key"]: ("on" if row["value"] is True else str(row["value"])) for row in rows
            if row["value"] is not False}
    r = client.post(url, {**form, "maxRecall": "3"}, headers=HX)
    html = r.content.decode()
    assert r.status_code == 200 and 'id="settings-saved"' in html and "Saved 1 change" in html
    assert MemorySpace.objects.get(slug="default").settings["maxRecall"] == 3
    again = client.post(url, {**form, "maxRecall": "3"}, headers=HX).content.decode()
    assert "Nothing changed" in again
    plain = client.post(url, {**form, "maxRecall": "4"}, follow=True).content.decode()
    assert "Saved 1 change" in plain  # without htmx, as the page's message


# --- vault requests -----------------------------------------------------------------------------------------------

def test_identical_vault_requests_are_one_card_and_one_decision_answers_every_copy(client, staff, api):
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    api.tool("memory_save", title="Evening walk", body="Walked by the river.", space="diary")
    ids = [api.tool("memory_request", space="diary", query="walk").json()["result"]["request_id"] for _ in range(3)]
    other = api.tool("memory_request", space="diary", query="river", session_id="s2").json()["result"]["request_id"]
    page = client.get(reverse("dashboard:vault_requests")).content.decode()
    assert page.count('class="card request"') == 2 and "Asked 3 times in this session" in page
    first = min(AccessRequest.objects.filter(pk__in=ids), key=lambda r: (r.created_at, r.pk)).pk
    copies = [i for i in ids if i != first]
    assert all(f'name="same" value="{copy}"' in page for copy in copies)

    client.post(reverse("dashboard:vault_approve", args=[first]), {"all": "1", "same": [*copies, other]})
    assert set(AccessRequest.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"approved"}
    assert Grant.objects.filter(request_id__in=ids).count() == 3
    assert AccessRequest.objects.get(pk=other).status == "pending"  # not the same question: not decided with them


def test_an_entry_list_search_marks_the_words_it_found_and_escapes_the_rest(client, staff, api):
    api.tool("memory_save", category="decision", title="<b>Deploys</b> go out on Fridays", body="x")
    page = client.get(reverse("dashboard:space", args=["default"]) + "?q=deploy").content.decode()
    assert "&lt;b&gt;<mark>Deploys</mark>&lt;/b&gt; go out on Fridays" in page and "<b>Deploys" not in page
    assert Entry.objects.count() == 1
