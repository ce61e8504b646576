"""Regenerate docs/screenshots/*.png (1280×800) by running the browser suite's screenshot test.

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
    sys.exit(pytest.main(["-q", "tests/browser/test_dashboard_browser.py", "-k", "screenshots"]))
