"""Regenerate docs/screenshots/*.png by running the browser suite's screenshot tests (every test named
*screenshots*): the main pages at 1280×800, the connect page, a chart, the graph, and at phone width (390 px)
the spaces page and, in English and in 中文, memories, facts, activity, the audit log, jobs and the open menu
(phone-<page>-en.png, phone-<page>-zh.png).

Usage: .venv/bin/python scripts/screenshots.py   (needs Debian's chromium, and fonts-noto-cjk for the Chinese text)
"""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    os.chdir(ROOT)
    os.environ["MEMORYHUB_SCREENSHOTS"] = str(ROOT / "docs" / "screenshots")
    sys.exit(pytest.main(["-q", "-m", "browser", "tests/browser/", "-k", "screenshots"]))
