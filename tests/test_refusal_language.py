"""Text the hub cannot keep (NUL, a lone surrogate, a non-character: core/jsonin) is refused to a person in their
language, as every other refusal of a dashboard form is, while an agent keeps reading the same English."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.html import escape

from memoryhub.dashboard.forms.memories import EntryForm, NoteForm
from memoryhub.dashboard.forms.rules import argument_schema
from memoryhub.core import jsonin
from memoryhub.core.errors import ApiError
from tests.test_form_rules import API_BASE, DASHBOARD, FORMS, filled, world, written  # noqa: F401 (world: a fixture)

pytestmark = pytest.mark.django_db

AGENT = "contains U+{code}, which is not allowed in text (NUL, a lone surrogate or a non-character)"
PERSON = "含有 U+{code}，文本里不允许出现这个字符（NUL、孤立的代理码位或非字符）"
TEXT_FIELDS = [(form, field) for form, form_class in sorted(FORMS.items()) for field in form_class.rules
               if "enum" not in argument_schema(*form_class.bound_to(field))]


@pytest.mark.parametrize("form_name, field", TEXT_FIELDS)
@pytest.mark.parametrize("character", ["\x00", "\ufffe"])
def test_a_person_on_the_chinese_page_reads_the_refusal_of_a_character_in_chinese_and_nothing_is_written(
        form_name, field, character, world, client, staff, api):  # noqa: F811 (world)
    operation, argument = FORMS[form_name].bound_to(field)
    schema = argument_schema(operation, argument)
    code = f"{ord(character):04X}"
    sent = [f"a{character}b"] if schema.get("type") == "array" else f"a{character}b"
    agent = api.tool(operation, **{**filled(API_BASE[operation], world), argument: sent})
    assert agent.status_code == 400
    assert agent.json()["error"]["message"] == AGENT.format(code=code)  # the agents' English, as before

    client.cookies.load({"django_language": "zh-hans"})
    url, post = DASHBOARD[form_name]
    before = written()
    page = client.post(url(world), {**filled(post, world), field: f"a{character}b"}, HTTP_HX_REQUEST="true")
    assert page.status_code < 500 and page.status_code != 302
    text = page.content.decode()
    assert escape(PERSON.format(code=code)) in text and "not allowed in text" not in text
    assert written() == before


@pytest.mark.parametrize("form_class, data, field", [
    (NoteForm, {"text": "a\ud800b", "tags": "a"}, "text"),
    (EntryForm, {"title": "t", "body": "b", "category": "general", "tags": "x,\udfffy"}, "tags"),
])
def test_a_lone_surrogate_is_refused_in_the_persons_language(form_class, data, field):
    """No browser can send one (a form's bytes are UTF-8, and Django decodes a bad sequence to U+FFFD), so the
    form is given it as Python holds it: the refusal is jsonin's, in the active language."""
    code = f"{ord(next(c for c in data[field] if 0xD800 <= ord(c) <= 0xDFFF)):04X}"
    with translation.override("zh-hans"):
        form = form_class(data)
        assert not form.is_valid() and form.errors[field] == [PERSON.format(code=code)]
    with translation.override("en"):
        form = form_class(data)
        assert not form.is_valid() and form.errors[field] == [AGENT.format(code=code)]


@pytest.mark.parametrize("value, english, chinese", [
    ({"a": "\x00"}, AGENT.format(code="0000"), PERSON.format(code="0000")),
    ({"a\x00": 1}, "a field name contains NUL, a lone surrogate or a non-character", "有个字段名含有 NUL、孤立的代理码位或非字符"),
    ({"a": [[[["x"]]]]}, "nested deeper than 3 levels", "嵌套超过 3 层"),
])
def test_each_refusal_of_jsonin_carries_its_words_for_a_person(value, english, chinese):
    with pytest.raises(ApiError) as refused:
        jsonin.check(value, max_depth=3)
    assert refused.value.message == english and refused.value.told is not None
    with translation.override("zh-hans"):
        assert refused.value.told.said() == chinese
    with pytest.raises(ApiError) as refused:
        jsonin.loads(b"{", what="the line")
    assert refused.value.message == "the line is not valid JSON"
