"""ByteRover adapter: the `brv` CLI's status, query and curate only (no browse, no delete exist to offer).

Each call is one subprocess with an argument list (never a shell), a timeout that kills the whole
process group, a cap on captured output and a minimal environment, in the space's working directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import threading
from typing import Any

from providers.base import Capabilities, Field, Provider, ProviderError, Receipt, Record

QUERY_CHARS = 5000
CURATE_TIMEOUT = 120.0  # curation runs the CLI's own LLM; the brv docs and Hermes allow it two minutes
DEFAULT_OUTPUT_CAP = 1024 * 1024
PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")


def _drain(stream: Any, cap: int, sink: list[bytes], over: list[bool]) -> None:
    """Read a pipe to the end (so the child never blocks) but keep only the first `cap` bytes."""
    kept = 0
    for chunk in iter(lambda: stream.read(65536), b""):
        if kept < cap:
            sink.append(chunk[: cap - kept])
        if kept + len(chunk) > cap:
            over[0] = True
        kept += len(chunk)
    stream.close()


class ByteRoverProvider(Provider):
    kind = "byterover"
    label = "ByteRover"
    locality = "local"
    workspace_binding = "optional-override"
    score_semantics = "none"
    capabilities = Capabilities(search=True, remember=True, write_mode="async", deletion_mode="none")
    service_fields = (
        Field('cliPath', 'brv CLI path', input='path'),
        Field('apiKey', 'API key', input='secret', secret=True),
        Field('defaultDirectory', 'Default directory (blank: follows the workspace)', input='path'),
    )
    space_fields = (
        Field('workingDirectory', 'Working directory', input='path'),
    )
    description = ("ByteRover's local `brv` CLI and its knowledge tree beside the workspace: agentic query and "
                   "asynchronous curate; no browsing or deleting.")

    def _cli(self) -> str:
        configured = str(self.config.get("cliPath") or "").strip()
        path = shutil.which(configured or "brv")
        if not path:
            raise ProviderError(f"brv CLI not found ({configured or 'brv on PATH'})", permanent=True)
        return path

    def working_directory(self) -> str:
        """workingDirectory (space) > defaultDirectory (service) > the hub's workspace directory."""
        override = str(self.config.get("workingDirectory") or self.config.get("defaultDirectory") or "").strip()
        if override:
            path = os.path.abspath(os.path.expanduser(override))
            if not os.path.isdir(path):
                raise ProviderError(f"ByteRover directory {path} does not exist", permanent=True)
            return path
        workspace = str(self.config.get("_workspace_dir") or "").strip()
        if not workspace:
            raise ProviderError("ByteRover needs a workingDirectory or a workspace directory", permanent=True)
        os.makedirs(workspace, exist_ok=True)
        return os.path.abspath(workspace)

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in PASSED_ENV or k.startswith("BRV_")}
        env.pop("BRV_API_KEY", None)
        if self.config.get("apiKey"):
            env["BRV_API_KEY"] = str(self.config["apiKey"])
        return env

    def _clean(self, text: str) -> str:
        key = str(self.config.get("apiKey") or "")
        return text.replace(key, "[redacted]") if key else text

    def _run(self, args: list[str], timeout: float) -> tuple[int, str, str, bool]:
        """Run `brv <args>`; return (exit code, stdout, stderr, truncated). Timeouts kill and raise."""
        cap = int(self.config.get("_max_bytes") or DEFAULT_OUTPUT_CAP)
        try:
            proc = subprocess.Popen([self._cli(), *args], cwd=self.working_directory(), env=self._env(),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
        except OSError as exc:
            raise ProviderError(f"brv {args[0]} could not start: {exc.strerror}", permanent=True) from exc
        out: list[bytes] = []
        err: list[bytes] = []
        over = [False]
        readers = [threading.Thread(target=_drain, args=(proc.stdout, cap, out, over), daemon=True),
                   threading.Thread(target=_drain, args=(proc.stderr, cap, err, [False]), daemon=True)]
        for reader in readers:
            reader.start()
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise ProviderError(f"brv {args[0]} timed out after {timeout:g} s and was killed", timeout=True) from None
        finally:
            for reader in readers:
                reader.join(timeout=2)
        return code, self._decode(out), self._decode(err), over[0]

    def _decode(self, chunks: list[bytes]) -> str:
        return self._clean(b"".join(chunks).decode("utf-8", errors="replace")).strip()

    def _timeout(self) -> float:
        return float(self.config.get("_timeout") or 10.0)

    def status(self) -> dict[str, Any]:
        code, out, err, _ = self._run(["status"], self._timeout())
        if code != 0:
            raise ProviderError(f"brv status exited {code}: {(err or out)[:300]}")
        return {"healthy": True, "output": out[:2000], "directory": self.working_directory()}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        """One agentic answer from `brv query`, as a single unscored record (the CLI returns prose, not hits)."""
        code, out, err, truncated = self._run(["query", "--", query[:QUERY_CHARS]], self._timeout())
        if code != 0:
            raise ProviderError(f"brv query exited {code}: {(err or out)[:300]}")
        if len(out) < 20 or out.startswith("No relevant"):
            return []
        sources = []
        for line in out.splitlines():
            if line.startswith("**Sources**:"):
                sources = [s.strip() for s in line.split(":", 1)[1].split(",") if s.strip()]
        digest = hashlib.sha256(query.encode()).hexdigest()[:16]
        return [Record(id=f"brv-query:{digest}", text=out, title="ByteRover answer", category="context",
                       extra={"sources": sources, "truncated": truncated})][:limit]

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        """`brv curate` hands the text to ByteRover's curator; the tree it writes is its own, so only `accepted`."""
        content = f"[{title}] {text}" if title else text
        timeout = float(self.config.get("_curate_timeout") or CURATE_TIMEOUT)
        try:
            code, out, err, _ = self._run(["curate", "--", content], timeout)
        except ProviderError as exc:
            if exc.permanent:
                raise
            return Receipt("unknown", error=f"{exc.message}; curation may still have been applied")
        if code != 0:
            return Receipt("failed", error=f"brv curate exited {code}: {(err or out)[:300]}")
        return Receipt("accepted", detail={"output": out[:500]})
