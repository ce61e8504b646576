"""The form matrix (#30): a dashboard form of an action agents also have holds its fields to that operation's rules.

Generated from the registries: every operation (operations/registry.OPERATIONS) has a row here, bound to the
dashboard forms that take its rules or saying why none does; every form that takes rules (dashboard/forms/rules
.RuleForm) has a row saying where it posts; every field of those forms takes an operation's rule unless this file
names it as the dashboard's own. Then, for every rule field, each bad value its schema implies (one character
over the cap, an option it does not list, one item too many, only spaces where text is needed) is sent through
the dashboard and through the API: the person reads the sentence the agent reads, nothing is written, no 500.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from django.utils.html import escape

from memoryhub.access.call import PersonCall
from memoryhub.access.people import Person
from memoryhub.core.errors import ApiError
from memoryhub.dashboard.forms import graph, memories, notebooks  # noqa: F401 (every RuleForm is declared)
from memoryhub.dashboard.forms.rules import Rule, RuleForm, argument_schema
from memoryhub.memories.models import Edge, Entry, Fact, Notebook, OpLog, Persona
from memoryhub.memories.write import gateway
from memoryhub.operations import registry
from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import provider_for
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.django_db

# operation -> the forms bound to its rules, or why the dashboard has none
OPERATIONS = {
    "memory_save": ("NoteForm", "EntryForm"),
    "memory_note": ("NoteForm",),
    "memory_note_batch": "a person notes one thing at a time (NoteForm, memory_note's rule)",
    "memory_search": "the memories tab's search is a filter of one space (MemoryFilterForm), not an agent's recall",
    "memory_recall": "a person opens an entry's page; there is nothing to type",
    "memory_forget": ("RecordForm",),
    "memory_profile": ("ProfileForm",),
    "memory_facts": ("FactForm",),
    "memory_link": ("LinkForm",),
    "memory_feedback": ("FeedbackForm",),
    "memory_request": "people decide on vault requests; they file none",
    "memory_status": "people see every request on the vault page",
    "memory_read": "people with vault.read open the vault space itself",
    "memory": ("NotebookChangeForm",),
    "memory_turn": "turns come from agents' conversations; a person notes (NoteForm) or imports history",
    "memory_context": "the recall preview shows what /context injects (h-loop's RecallForm)",
    "spaces_list": "the spaces page lists every space",
    "space_create": "SpaceForm: its provider's config fields are declared by the provider, not by an input model",
    "providers_list": "the providers page",
    "session_end": "people hold no agent sessions",
}
# form -> the fields that are the dashboard's own (no agent has them), and why
OWN_FIELDS = {"FactForm": {"negative": "a person's \"don't\" corrects what the hub heard; agents cannot assert one"}}
# (form, field) a person may leave out though the operation requires it (each form's docstring says why)
OPTIONAL_FOR_PEOPLE = {("NoteForm", "title"), ("NoteForm", "category"), ("EntryForm", "title")}
# required or not by the action the page's URL names (the notebook template marks the textareas each action needs)
BY_THE_URL = {("NotebookChangeForm", "content"), ("NotebookChangeForm", "old_text")}


def rule_forms() -> dict[str, type[RuleForm]]:
    found, todo = {}, list(RuleForm.__subclasses__())
    while todo:
        form = todo.pop()
        found[form.__name__] = form
        todo += form.__subclasses__()
    return found


FORMS = rule_forms()


def test_every_operation_has_a_row_and_every_rule_form_one_operation_row():
    assert set(OPERATIONS) == set(registry.OPERATIONS), "say which dashboard form takes the new operation's rules"
    bound = {form for forms in OPERATIONS.values() if isinstance(forms, tuple) for form in forms}
    assert bound == set(FORMS), "a RuleForm without an operation row, or a row naming no form"
    assert set(DASHBOARD) == set(FORMS), "say where the new form posts (DASHBOARD below)"


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_field_takes_its_operations_rule(name):
    form_class = FORMS[name]
    form = form_class()
    own = set(OWN_FIELDS.get(name, {}))
    assert set(form.fields) - set(form_class.rules) == own, "a new field: bind it to a Rule or name it in OWN_FIELDS"
    for field_name, field in form.fields.items():
        if field_name in own:
            continue
        operation, argument = form_class.bound_to(field_name)
        assert operation in OPERATIONS and name in OPERATIONS[operation], f"{name}.{field_name}: no row binds it"
        schema = argument_schema(operation, argument)
        attrs = field.widget.attrs
        if "enum" in schema:
            assert [v for v, _label in field.choices if v != ""] == schema["enum"], f"{name}.{field_name}"
        elif schema.get("type") == "string":
            assert attrs["maxlength"] == schema["maxLength"], f"{name}.{field_name}"
        required = requires(form_class, field_name)
        if (name, field_name) in BY_THE_URL:
            continue
        if (name, field_name) in OPTIONAL_FOR_PEOPLE:
            assert required and not attrs.get("required"), f"{name}.{field_name} is optional only for people"
        else:
            assert bool(attrs.get("required")) == required, f"{name}.{field_name}: required differs from the agents'"
        assert not field.validators, f"{name}.{field_name}: the operation's model checks it, not a Django validator"


def refuses(operation: str, argument: str, value) -> bool:
    """Does the operation refuse an agent's otherwise good arguments with this value, naming the argument?"""
    try:
        registry.get(operation).read({**API_BASE[operation], argument: value})
    except ApiError as exc:
        return exc.field == argument
    return False


def requires(form_class: type[RuleForm], field_name: str) -> bool:
    """A form always sends its fields, so "required" is: the operation refuses it blank (or, for a list, empty)."""
    operation, argument = form_class.bound_to(field_name)
    return refuses(operation, argument, [] if argument_schema(operation, argument).get("type") == "array" else "")


# --- the same refusal through both faces -------------------------------------------------------
# form -> (dashboard URL from the world, a valid POST); API_BASE: an agent's good arguments, per operation
DASHBOARD = {
    "NoteForm": (lambda w: reverse("dashboard:note", args=["default"]), {"text": "a note", "tags": "a"}),
    "EntryForm": (lambda w: reverse("dashboard:entry_edit", args=["default", w["a"].pk]),
                  {"title": "t", "body": "b", "category": "general", "tags": "a"}),
    "FactForm": (lambda w: reverse("dashboard:facts", args=["default"]),
                 {"subject": "user", "predicate": "name", "value": "Zed"}),
    "LinkForm": (lambda w: reverse("dashboard:memory_link", args=["default"]),
                 {"from": "{a}", "to": "{b}", "kind": "causal"}),
    "FeedbackForm": (lambda w: reverse("dashboard:memory_feedback", args=["holo"]),
                     {"id": "{remote}", "verdict": "wrong"}),
    "RecordForm": (lambda w: reverse("dashboard:record_forget", args=["holo"]), {"id": "{remote}"}),
    "NotebookChangeForm": (lambda w: reverse("dashboard:notebook_change", args=["global", "memory", "replace"]),
                           {"content": "new", "old_text": "old"}),
    "ProfileForm": (lambda w: reverse("dashboard:persona", args=["default"]), {"profile": "a profile"}),
}
# the rest of an agent's call, per operation, around the one bad argument
API_BASE = {
    "memory_note": {"text": "a note"},
    "memory_save": {"category": "general", "title": "t", "body": "b", "tags": ["a"]},
    "memory_facts": {"action": "assert", "subject": "user", "predicate": "name", "value": "Zed"},
    "memory_link": {"from": "{a}", "to": "{b}", "kind": "causal"},
    "memory_feedback": {"id": "holo:{remote}", "verdict": "wrong"},
    "memory_forget": {"id": "holo:{remote}"},
    "memory": {"action": "replace", "target": "memory", "content": "new", "old_text": "old"},
    "memory_profile": {"action": "set", "profile": "a profile", "space": "default"},
}


def bad_values(operation: str, argument: str) -> dict[str, tuple[object, object]]:
    """What the argument's schema refuses, and only spaces where the operation's model does: {kind: (as a person
    types it, as an agent sends it)}."""
    schema = argument_schema(operation, argument)
    bad = {}
    if "enum" in schema:
        bad["an option it does not list"] = ("nope", "nope")
    elif schema.get("type") == "array":
        many = [f"t{n}" for n in range(schema["maxItems"] + 1)]
        bad["one item too many"] = (",".join(many), many)
        long = "x" * (schema["items"]["maxLength"] + 1)
        bad["an item over its cap"] = (long, [long])
    elif schema.get("type") == "string":
        bad["one character over the cap"] = ("x" * (schema["maxLength"] + 1),) * 2
        if refuses(operation, argument, "   "):
            bad["only spaces"] = ("   ", "   ")
    return bad


CASES = [(form, field, kind) for form, form_class in sorted(FORMS.items()) for field in form_class.rules
         for kind in bad_values(*form_class.bound_to(field))]


@pytest.fixture
def world(tmp_path, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}
    space = default_space()
    a, b = (gateway.write(space, gateway.Draft(body=f"memory {n}")).entry for n in "ab")
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path / "facts.json")})
    holo = MemorySpace.objects.create(slug="holo", name="holo", provider="holographic")
    remote = provider_for(holo).remember("The kettle is in the kitchen").provider_id
    return {"a": a, "b": b, "remote": remote}


def filled(values: dict, world: dict) -> dict:
    ids = {"a": world["a"].pk, "b": world["b"].pk, "remote": world["remote"]}
    return {k: v.format(**ids) if isinstance(v, str) else v for k, v in values.items()}


def written() -> tuple:
    return (tuple(Entry.objects.live().values_list("pk", "title", "body", "category", "tags")),
            tuple(Fact.objects.values_list("pk", "status")), Edge.objects.count(),
            tuple(Notebook.objects.values_list()))


@pytest.mark.parametrize("form_name, field, kind", CASES)
def test_a_bad_value_gets_the_agents_refusal_on_the_dashboard_and_changes_nothing(
        form_name, field, kind, world, client, staff, api):
    form_class = FORMS[form_name]
    operation, argument = form_class.bound_to(field)
    typed, sent = bad_values(operation, argument)[kind]

    agent = api.tool(operation, **{**filled(API_BASE[operation], world), argument: sent})
    assert agent.status_code == 400, agent.content
    refused = agent.json()["error"]
    label = str(form_class().fields[field].label)  # the page names the field as its label does
    said = refused["message"].replace(refused["field"], label, 1) if refused.get("field") else refused["message"]

    url, post = DASHBOARD[form_name]
    before = written()
    person = client.post(url(world), {**filled(post, world), field: typed}, HTTP_HX_REQUEST="true")
    assert person.status_code < 500 and person.status_code != 302
    assert escape(said) in person.content.decode(), f"the dashboard did not say {said!r}"
    assert written() == before


def test_a_person_who_links_is_named_in_the_op_log_as_an_agent_is(world, client, staff):
    """Before, the dashboard's link went through the provider without an actor: the op log said nobody."""
    r = client.post(reverse("dashboard:memory_link", args=["default"]),
                    {"from": world["a"].pk, "to": world["b"].pk, "kind": "causal"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert OpLog.objects.filter(operation="link", actor=staff.username).exists()
    assert Edge.objects.filter(source=world["a"], target=world["b"], metadata__created_by=staff.username).exists()


def test_a_bad_verdict_is_refused_not_taken_for_wrong(world, client, staff):
    """Before, any verdict but "helpful" lowered the memory's trust."""
    trust = provider_for(MemorySpace.objects.get(slug="holo")).get(world["remote"]).extra["trust"]
    r = client.post(reverse("dashboard:memory_feedback", args=["holo"]), {"id": world["remote"], "verdict": "meh"},
                    HTTP_HX_REQUEST="true")
    assert r.status_code == 400 and "Verdict must be one of" in r.content.decode()
    assert provider_for(MemorySpace.objects.get(slug="holo")).get(world["remote"]).extra["trust"] == trust


def test_a_link_to_a_memory_of_another_space_is_refused_in_the_agents_words(world, client, staff):
    other = MemorySpace.objects.create(slug="other", name="other")
    far = gateway.write(other, gateway.Draft(body="far away")).entry
    r = client.post(reverse("dashboard:memory_link", args=["default"]),
                    {"from": world["a"].pk, "to": far.pk}, HTTP_HX_REQUEST="true")
    assert r.status_code == 422 and "a link joins two memories of one space" in r.content.decode()
    assert not Edge.objects.filter(source=world["a"], target=far).exists()


# --- a person as the caller of an operation (access/call.PersonCall) -----------------------------
def test_staff_forget_a_vault_entry_and_one_of_a_switched_off_space_through_memory_forget(client, staff):
    """The policy answers for a person as access/people says (staff open vaults and switched-off spaces), where an
    agent's token is told there is no such memory."""
    for slug, extra in (("safe", {"access": MemorySpace.Access.VAULT}), ("off", {"active": False})):
        space = MemorySpace.objects.create(slug=slug, name=slug, **extra)
        entry = gateway.write(space, gateway.Draft(body=f"kept in {slug}")).entry
        r = client.post(reverse("dashboard:entry_forget", args=[slug, entry.pk]), HTTP_HX_REQUEST="true")
        assert r.status_code == 200
        entry.refresh_from_db()
        assert entry.deleted_at is not None
        assert OpLog.objects.filter(space=space, operation="forget", actor=staff.username).exists()


def test_a_vault_memory_stays_hidden_from_an_agent_token(api):
    space = MemorySpace.objects.create(slug="safe", name="safe", access=MemorySpace.Access.VAULT)
    entry = gateway.write(space, gateway.Draft(body="secret")).entry
    answer = api.tool("memory_forget", id=str(entry.pk))
    assert answer.status_code == 404 and answer.json()["error"]["message"] == f"no memory '{entry.pk}'"


def test_only_a_signed_in_person_becomes_a_caller(django_user_model):
    with pytest.raises(ValueError):
        PersonCall(who=Person(AnonymousUser()))
    who = Person(django_user_model.objects.create_user("bea", password="x", is_staff=True))
    call = PersonCall(who=who)
    assert (call.actor, call.origin, call.is_local, call.restricted_to, call.person) == ("bea", "local", True, [], who)


def test_a_persons_profile_is_redacted_and_logged_as_an_agents_is(client, staff):
    """Before, the persona tab stored what was typed as it was (a key in it went into every context block)."""
    space = default_space()
    r = client.post(reverse("dashboard:persona", args=["default"]), {"profile": "Bob. token: hunter22secret"})
    assert r.status_code == 302
    profile = Persona.objects.get(space=space, origin="local").profile
    assert profile.startswith("Bob.") and "hunter22" not in profile
    assert OpLog.objects.filter(space=space, operation="profile", actor=staff.username).exists()


def test_a_numeric_argument_carries_its_bounds_and_the_model_refuses_past_them():
    """memory_search's limit (1–50) as a form field: the bounds in the page, the refusal in the agents' words."""
    class Limit(RuleForm):
        rules = {"limit": Rule("Limit", "memory_search")}

    form = Limit({"limit": "51"})
    assert form.fields["limit"].widget.attrs == {"min": 1, "max": 50}
    assert not form.is_valid() and form.errors["limit"] == ["Limit must be between 1 and 50"]  # named by its label
    assert Limit({"limit": "7"}).is_valid()


def test_a_refusal_reads_in_the_persons_language_with_the_field_named_by_its_label(world, client, staff):
    """The agent reads English ("title is 301 characters; the limit is 300"); a person on the 中文 page reads the
    same refusal in Chinese, the field named as the form labels it, and nothing changes."""
    client.cookies.load({"django_language": "zh-hans"})
    url, post = DASHBOARD["EntryForm"]
    before = written()
    page = client.post(url(world), {**filled(post, world), "title": "x" * 301}, HTTP_HX_REQUEST="true")
    assert "标题有 301 个字符，上限是 300" in page.content.decode()
    assert written() == before
