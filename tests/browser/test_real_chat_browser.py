"""The Facts page of the bilingual user of tests/fixtures/real_chat.json, read in 中文 on a phone (390 px):
every fact they stated is on screen, what they rejected is marked so, and nothing is wider than the phone."""

import pytest

from tests.browser.conftest import log_in
from tests.conftest import make_api
from tests.test_real_chat import TURNS

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_the_facts_page_of_a_real_chat_reads_in_chinese_on_a_phone(chromium_browser, live_server, transactional_db,
                                                                    staff_user, client):
    api = make_api(client)
    for turn in TURNS:
        assert api.post("turns", turn).status_code in (200, 201)
    context = chromium_browser.new_context(base_url=live_server.url, viewport=PHONE, locale="zh-CN")
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        log_in(page)
        page.goto("/spaces/default/facts/")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.lang") == "zh-hans"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shown = page.inner_text("main")
        for value in ("Chen Siyuan", "阿远", "Lin Yue", "Siqi", "Sesame (tabby)", "cashews", "苏州工业园区"):
            assert value in shown, value
        for predicate in ("居住地", "配偶", "子女", "过敏"):  # predicates by their Chinese names, not lives_in/allergy
            assert predicate in shown, predicate
        rejected = page.locator("td", has=page.locator("span[translate=no]", has_text="吃辣"))
        assert "非" in rejected.first.inner_text()
    finally:
        context.close()
