"""Model endpoints (seed 003's summarizeProvider): a hub may name several; a space picks the one that summarises."""

from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from memoryhub import settings as hub_settings
from memoryhub.core import llm
from memoryhub.jobs.models import Job
from memoryhub.memories.maintenance import consolidate
from memoryhub.memories.models import Entry
from memoryhub.memories.write import gateway
from memoryhub.spaces import space_settings
from memoryhub.spaces.workspaces import default_space
from tests.fakes_llm import FakeLLM, chat_answer

TURN = ("So yesterday I finally went to that support group I told you about", "How was it?")


def use(settings, default: FakeLLM | None, **named: FakeLLM) -> None:
    settings.MEMORYHUB = {
        **settings.MEMORYHUB, "LLM_BASE_URL": default.base_url if default else "", "LLM_MODEL": "default-model",
        "LLM_ENDPOINTS": {name: {"BASE_URL": fake.base_url, "MODEL": f"{name}-model", "API_KEY": "", "TIMEOUT": 5}
                          for name, fake in named.items()}}


def set_space(**values):
    space = default_space()
    space.settings = {**space.settings, "autoPersona": False, **values}
    space.save()


def test_summarize_provider_picks_the_named_endpoint_and_summary_model_its_model(api, settings):
    with FakeLLM([chat_answer("from the default")]) as default, FakeLLM([chat_answer("Went to the group.")]) as fast:
        use(settings, default, fast=fast)
        set_space(summarizeProvider="fast", summaryModel="tiny")
        api.turn(*TURN)
    assert Entry.objects.get().summary == "Went to the group."
    assert default.requests == [] and fast.requests[0]["body"]["model"] == "tiny"


def test_blank_summarize_provider_is_the_default_endpoint(api, settings):
    with FakeLLM([chat_answer("By default.")]) as default, FakeLLM([chat_answer("never")]) as fast:
        use(settings, default, fast=fast)
        set_space(summarizeProvider="")
        api.turn(*TURN)
    assert Entry.objects.get().summary == "By default." and fast.requests == []
    assert default.requests[0]["body"]["model"] == "default-model"


def test_a_named_endpoint_summarises_even_without_a_default_one(api, settings):
    with FakeLLM([chat_answer("Only the named one.")]) as local:
        use(settings, None, local=local)
        set_space(summarizeProvider="local")
        api.turn(*TURN)
    assert Entry.objects.get().summary == "Only the named one."


def test_an_endpoint_that_is_gone_leaves_the_rule_summary_and_says_why(api, settings):
    use(settings, None)
    set_space(summarizeProvider="fast")  # saved while `fast` existed
    api.turn(*TURN)
    entry = Entry.objects.get()
    assert entry.summary.startswith("So yesterday I finally went")
    job = Job.objects.get(kind="summarize")
    assert job.result == {"summarized": False, "error": "no model endpoint named 'fast'; configured: none "
                                                         "(MEMORYHUB_LLM_ENDPOINTS is empty)"}


def test_the_setting_must_name_a_configured_endpoint(settings):
    use(settings, None)
    assert space_settings.validate({"summarizeProvider": "fast"})[1] == {
        "summarizeProvider": "must be blank: no other model endpoint is configured (MEMORYHUB_LLM_ENDPOINTS)"}
    with FakeLLM([chat_answer("x")]) as fast:
        use(settings, None, fast=fast, local=fast)
        assert space_settings.validate({"summarizeProvider": "slow"})[1] == {
            "summarizeProvider": "must be blank (the default model endpoint) or one of: fast, local"}
        assert space_settings.validate({"summarizeProvider": "fast"}) == ({"summarizeProvider": "fast"}, {})
        assert space_settings.validate({"summarizeProvider": ""})[1] == {}


def test_consolidation_digests_come_from_the_summarize_endpoint(db, settings):
    space = default_space()
    start = timezone.now() - timedelta(days=10)
    for i in range(5):
        gateway.write(space, gateway.Draft(kind="turn", user=f"step {i} of the nginx migration", assistant="ok",
                                           session_id="s", at=start + timedelta(minutes=i)))
    with FakeLLM([chat_answer("never")]) as default, FakeLLM([chat_answer("- nginx moved")]) as fast:
        use(settings, default, fast=fast)
        set_space(summarizeProvider="fast")
        run = consolidate.apply(default_space(), now=timezone.now())
    assert run.method == "llm" and default.requests == [] and len(fast.requests) == 1
    assert "- nginx moved" in Entry.objects.get(kind="digest").body


def test_endpoints_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("MEMORYHUB_LLM_ENDPOINTS", "Fast, local-box")
    monkeypatch.setenv("MEMORYHUB_LLM_FAST_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMORYHUB_LLM_FAST_MODEL", "small")
    monkeypatch.setenv("MEMORYHUB_LLM_LOCAL_BOX_BASE_URL", "http://127.0.0.1:10/v1")
    monkeypatch.setenv("MEMORYHUB_LLM_LOCAL_BOX_TIMEOUT", "60")
    monkeypatch.setenv("MEMORYHUB_LLM_LOCAL_BOX_API_KEY", "sk-local")
    assert hub_settings.llm_endpoints() == {
        "fast": {"BASE_URL": "http://127.0.0.1:9/v1", "MODEL": "small", "API_KEY": "", "TIMEOUT": 25.0},
        "local-box": {"BASE_URL": "http://127.0.0.1:10/v1", "MODEL": "", "API_KEY": "sk-local", "TIMEOUT": 60.0}}
    monkeypatch.setenv("MEMORYHUB_LLM_ENDPOINTS", "fast,slow")
    with pytest.raises(ImproperlyConfigured, match="MEMORYHUB_LLM_SLOW_BASE_URL is not set"):
        hub_settings.llm_endpoints()
    monkeypatch.setenv("MEMORYHUB_LLM_ENDPOINTS", "fa st")
    with pytest.raises(ImproperlyConfigured, match="not a name"):
        hub_settings.llm_endpoints()


def test_get_client_of_a_name_the_hub_does_not_have_says_which_it_has(settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_ENDPOINTS": {"fast": {"BASE_URL": "http://127.0.0.1:9/v1"}}}
    with pytest.raises(llm.LLMError, match="no model endpoint named 'slow'; configured: fast"):
        llm.get_client("slow")
    client = llm.get_client("fast", model="tiny")
    assert (client.url, client.model) == ("http://127.0.0.1:9/v1/chat/completions", "tiny")
    client.close()
