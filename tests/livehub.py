"""The real hub as `make run` serves it, on a free port with a temp data dir; stoppable and restartable in a test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.migrated import migrate

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_web(env: dict, out) -> subprocess.Popen:
    """`manage.py serve --no-worker` with one web process, its output to `out` (a file or PIPE)."""
    return subprocess.Popen([sys.executable, "manage.py", "serve", "--web-workers", "1", "--no-worker"], cwd=ROOT,
                            env=env, stdout=out, stderr=subprocess.STDOUT, text=True)


def answers(url: str, proc: subprocess.Popen, seconds: float) -> bool:
    """Wait until the hub at `url` answers /api/v1/health; False once it has died or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/v1/health", timeout=2).close()
            return True
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                return False
            time.sleep(0.2)


def stop(proc: subprocess.Popen, seconds: float = 40) -> None:
    """Stop `serve` the way a service manager would (SIGTERM: it stops gunicorn and waits), killing it after
    `seconds`; a hard kill of `serve` alone would orphan gunicorn, which runs in its own session."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class LiveHub:
    """`manage.py serve --no-worker` (one web worker) on 127.0.0.1; the data dir survives restarts."""

    def __init__(self, data_dir: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "MEMORYHUB_DATA_DIR": str(data_dir), "MEMORYHUB_BIND": f"127.0.0.1:{self.port}",
                    "MEMORYHUB_Q_SYNC": "false", "MEMORYHUB_ADMIN_PASSWORD": "pw-for-tests"}
        for key in ("DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"):
            self.env.pop(key, None)
        self.proc: subprocess.Popen | None = None
        migrate(self.env)
        self.manage("ensure_admin")

    def manage(self, *args: str) -> str:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                              capture_output=True, text=True, timeout=120).stdout

    def token(self, *args: str, name: str = "test-agent") -> str:
        return self.manage("issue_token", "--name", name, *args).strip().splitlines()[-1]

    def start(self) -> None:
        self.proc = serve_web(self.env, subprocess.PIPE)
        if not answers(self.url, self.proc, 30):
            self.close()
            raise AssertionError(self.proc.stdout.read())

    def ensure_running(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()

    def stop(self) -> str:
        """Ctrl-C, as a person would; returns what the server printed."""
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=30)
        output = self.proc.stdout.read()
        assert code == 0, output
        return output

    def close(self) -> None:
        """Stop it the way a service manager would (stop())."""
        if self.proc is not None:
            stop(self.proc)
