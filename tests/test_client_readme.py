"""The Python client's README examples run as written against the real served hub."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.client_helpers import archived, make_space
from tests.livehub import ROOT

README = ROOT / "clients" / "python" / "README.md"


def run_example(code: str, hub, token: str, home) -> str:
    env = {"MEMORYHUB_URL": hub.url, "MEMORYHUB_TOKEN": token, "HERMES_HOME": str(home), "HOME": str(home),
           "PYTHONPATH": str(ROOT / "clients" / "python"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_examples_run(hub, tmp_path):
    examples = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(examples) == 3
    plain, provider, several = examples

    token = hub.token(name="readme")
    out = run_example(plain, hub, token, tmp_path / "one")
    assert "Fridays" in out and "Deploys happen on Fridays only." in out
    out = run_example(provider, hub, token, tmp_path / "two")
    assert "'held': []" in out and "'available': True" in out

    make_space(hub, "work-notes")
    make_space(hub, "home-notes")
    laptop = hub.token("--space", "work-notes", "--space", "home-notes", name="laptop")
    out = run_example(several, hub, laptop, tmp_path / "three")
    assert out.splitlines()[:2] == [
        "False", "this token may use several spaces and MEMORYHUB_SPACE is not set: set MEMORYHUB_SPACE to one "
                 "of: home-notes, work-notes"]
    assert archived(hub, "readme-3") == [{"title": "Kept until a space is set", "space": "work-notes"}]
