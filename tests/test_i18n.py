"""The 中文 UI is complete: makemessages over the source finds nothing untranslated or fuzzy, the compiled
catalogue (django.mo) says what the .po says, every translation function is imported under a name makemessages
extracts, and every translation uses the glossary's one term (locale/glossary.tsv). What a page shows in the
browser is walked in tests/browser/test_layout_browser.py (no English on a 中文 page).

After changing UI text: `python manage.py makemessages -l zh_Hans --no-location --no-obsolete`, translate
what it added, then `python manage.py compilemessages -l zh_Hans`.
"""

from __future__ import annotations

import ast
import gettext
import re
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


# --- every gettext alias is one makemessages extracts ------------------------------------------------------------

# The names xgettext looks for in Python (its own defaults and the keywords Django's makemessages adds), per
# translation function: a call through any other name (`gettext_lazy as _lazy`) is never extracted, so its text
# stays English on a 中文 page while this file's first test passes.
EXTRACTED = {
    "gettext": {"_", "gettext"}, "gettext_lazy": {"_", "gettext_lazy"}, "gettext_noop": {"gettext_noop"},
    "ngettext": {"ngettext"}, "ngettext_lazy": {"ngettext_lazy"}, "pgettext": {"pgettext"},
    "pgettext_lazy": {"pgettext_lazy"}, "npgettext": {"npgettext"}, "npgettext_lazy": {"npgettext_lazy"},
}
TRANSLATION_MODULES = {"django.utils.translation", "providers.base"}


def aliases() -> list[tuple[str, str, str]]:
    """(file, function, the name it is bound to) for every import of a translation function in our source."""
    found = []
    for source in ROOT.glob("**/*.py"):
        if any(part in {".venv", "node_modules", "tests"} or part.startswith(".") for part in
               source.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in TRANSLATION_MODULES:
                found += [(str(source.relative_to(ROOT)), a.name, a.asname or a.name) for a in node.names
                          if a.name in EXTRACTED]
            module = getattr(node, "module", None) or ""
            if isinstance(node, (ast.Import, ast.ImportFrom)):  # `translation.gettext(...)` is never extracted
                found += [(str(source.relative_to(ROOT)), "the module", a.asname or a.name) for a in node.names
                          if f"{module}.{a.name}".lstrip(".") == "django.utils.translation"]
    return found


def test_every_translation_function_is_imported_under_a_name_makemessages_extracts():
    wrong = [f"{file}: {function} as {name}" for file, function, name in aliases()
             if function == "the module" or name not in EXTRACTED[function]]
    assert wrong == [], "makemessages never sees text passed through these names"
    assert len(aliases()) > 40  # the walk found the imports (the test is not blind)


# --- one translation per term (locale/glossary.tsv) -------------------------------------------------------------

GLOSSARY = ROOT / "locale" / "glossary.tsv"
CODE = re.compile(
    r"%\([a-z_]+\)[sd]|%[sd]|<[^>]+>|`[^`]*`|https?://\S+|[\w.-]*/[\w./<>*+-]*"   # placeholders, markup, URLs, paths
    r"|\b[\w-]+\.(?:md|json|jsonl|db|zst|gz|py|sh|txt)\b"                          # file names
    r"|\b[A-Za-z]+[_0-9][\w]*\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z]\w*[a-z][A-Z]\w*\b")     # identifiers, camelCase


def glossary() -> list[tuple[re.Pattern, re.Pattern, list[str], str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            english, chinese, *never = line.split("\t")
            rows.append((re.compile(rf"\b(?:{english})\b", re.I), re.compile(chinese),
                         [w.strip() for w in (never[0].split(",") if never else []) if w.strip()], english))
    return rows


def pairs(messages: dict) -> list[tuple[str, str]]:
    """(msgid, msgstr) of every entry, a plural's msgid with both its forms, context dropped."""
    out = []
    for key, value in messages.items():
        msgid = key[0] if isinstance(key, tuple) else key
        out.append((msgid.split("\x04")[-1], value))
    return out


def never_used(word: str, text: str) -> bool:
    if word.isascii():
        return re.search(rf"\b{re.escape(word)}\b", CODE.sub(" ", text), re.I) is None
    return word not in text


def test_every_translation_uses_the_glossary_term(fresh_po, tmp_path):
    compiled = tmp_path / "glossary.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(fresh_po)], check=True)
    messages = pairs(catalogue(compiled))
    rows = glossary()
    assert len(rows) >= 20 and len(messages) > 500
    off = [f"{term}: {msgid[:70]!r} → {msgstr[:50]!r}" for english, chinese, _never, term in rows
           for msgid, msgstr in messages if english.search(CODE.sub(" ", msgid)) and not chinese.search(msgstr)]
    banned = [f"{word} ({term}): {msgid[:60]!r} → {msgstr[:50]!r}" for _e, _c, never, term in rows
              for word in never for msgid, msgstr in messages if not never_used(word, msgstr)]
    assert off == [], "these translations do not use the glossary's term:\n" + "\n".join(off)
    assert banned == [], "these translations use a word the glossary replaced:\n" + "\n".join(banned)
