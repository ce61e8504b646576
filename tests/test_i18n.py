"""The 中文 UI is complete: makemessages over the source finds nothing untranslated or fuzzy, and the compiled
catalogue (django.mo) says what the .po says.

After changing UI text: `python manage.py makemessages -l zh_Hans --no-location --no-obsolete`, translate
what it added, then `python manage.py compilemessages -l zh_Hans`.
"""

from __future__ import annotations

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = Path("locale/zh_Hans/LC_MESSAGES")
SOURCES = ("memoryhub", "templates", "providers", "locale")


def msgids(po: Path, *flags: str) -> list[str]:
    """The msgids msgattrib selects with these flags (the header excluded)."""
    out = subprocess.run(["msgattrib", "--no-wrap", *flags, str(po)], capture_output=True, text=True, check=True).stdout
    return [line[len('msgid "'):-1] for line in out.splitlines() if line.startswith('msgid "') and line != 'msgid ""']


def catalogue(mo: Path) -> dict:
    with mo.open("rb") as handle:
        messages = dict(gettext.GNUTranslations(handle)._catalog)
    messages.pop("", None)  # the header: its dates change with every run
    return messages


@pytest.fixture
def fresh_po(tmp_path, settings, monkeypatch) -> Path:
    """The .po as makemessages leaves it after reading today's source (run on a copy, so the tree is untouched)."""
    if not shutil.which("xgettext"):
        pytest.fail("GNU gettext is needed (apt-get install gettext)")
    copy = tmp_path / "src"
    for name in SOURCES:
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    settings.LOCALE_PATHS = [copy / "locale"]
    monkeypatch.chdir(copy)
    call_command("makemessages", locale=["zh_Hans"], no_location=True, no_obsolete=True, verbosity=0)
    return copy / CATALOGUE / "django.po"


def test_every_msgid_in_the_source_has_a_chinese_translation(fresh_po):
    assert msgids(fresh_po, "--untranslated") == []
    assert msgids(fresh_po, "--only-fuzzy") == []


def test_the_compiled_catalogue_matches_the_translations(fresh_po, tmp_path):
    compiled = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(compiled), str(fresh_po)], check=True)
    assert catalogue(compiled) == catalogue(ROOT / CATALOGUE / "django.mo"), "run compilemessages -l zh_Hans"
