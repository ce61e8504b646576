"""A fact's predicate as a person reads it: every predicate the registry declares has a label in
dashboard/labels.py and a Chinese translation (a predicate added to memories/facts/slots.py fails here until it
is named), the 中文 pages show the labels where they show a predicate (facts, a slot's history, the persona frame,
a memory's page, the recall preview), and agents still read the machine names."""

import re

import pytest
from django.utils import translation

from memoryhub.dashboard import labels
from memoryhub.memories.facts.slots import PREDICATES
from memoryhub.memories.models import Entry

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("predicate", PREDICATES)
def test_every_declared_predicate_has_a_label_and_a_chinese_one(predicate):
    assert predicate in labels.PREDICATE
    with translation.override("zh-hans"):
        assert CJK.search(labels.label("predicate", predicate)), predicate
    with translation.override("en"):
        assert not CJK.search(labels.label("predicate", predicate))


def test_a_predicate_a_person_made_up_is_shown_as_itself():
    with translation.override("zh-hans"):
        assert labels.label("predicate", "favourite_tea") == "favourite_tea"


@pytest.fixture
def chat(transactional_db, client, django_user_model, api):
    for n, text in enumerate(["我住在无锡，我对芒果过敏。", "我爱人叫周晴。", "I keep a bonsai called Kiko."]):
        assert api.turn(text, idempotency_key=f"k{n}").status_code in (200, 201)
    client.force_login(django_user_model.objects.create_user("reader", password="pw", is_staff=True))
    return api, client


def zh(client, path):
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 200
    return page.content.decode()


def test_the_chinese_pages_name_each_predicate_in_chinese_and_agents_keep_the_names(chat):
    api, client = chat
    facts = zh(client, "/spaces/default/facts/")
    for predicate, shown in (("location", "居住地"), ("allergy", "过敏"), ("spouse", "配偶")):
        assert f'data-predicate="{predicate}" title="智能体读到的名称是 {predicate}">{shown}</span>' in facts
        assert f"<code>{predicate}</code>" not in facts
    history = zh(client, "/spaces/default/facts/history/?subject=user&predicate=location")
    assert ">居住地</span>" in history
    persona = zh(client, "/spaces/default/persona/")
    assert ">配偶</span></dt><dd translate=\"no\">周晴</dd>" in persona
    assert "Spouse: 周晴" in persona  # what agents read, kept as they read it
    entry = Entry.objects.filter(body__contains="无锡").get()
    memory = zh(client, f"/spaces/default/entries/{entry.pk}/")
    assert ">居住地</span> = <span translate=\"no\">无锡</span>" in memory and ">过敏</span>" in memory
    person = zh(client, "/spaces/default/entities/?entity=周晴")  # the person entity and how she is the user's
    assert '用户 · <span class="predicate" data-predicate="spouse" title="智能体读到的名称是 spouse">配偶</span> = ' \
        '<span translate="no">周晴' \
        in person
    listed = api.tool("memory_facts", action="list").json()["result"]["facts"]
    assert {f["predicate"] for f in listed} == {"location", "allergy", "spouse"}


def test_the_facts_page_lists_the_users_facts_first_in_the_frames_order(chat):
    api, client = chat
    api.tool("memory_facts", action="assert", subject="Ana", predicate="job", value="pilot")
    api.tool("memory_facts", action="assert", predicate="zodiac", value="Leo")  # one a person made up comes last
    facts = zh(client, "/spaces/default/facts/")
    order = [facts.index(f'data-predicate="{p}"') for p in ("spouse", "allergy", "zodiac")]
    assert order == sorted(order) and facts.index('data-predicate="zodiac"') < facts.index(">Ana<")
