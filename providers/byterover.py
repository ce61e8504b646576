"""ByteRover adapter: the `brv` CLI's status, query and curate only (no browse, no delete exist to offer).

Each call is one subprocess with an argument list (never a shell), a timeout that kills the whole
process group, a cap on captured output and a minimal environment, in the space's working directory:
the space's workingDirectory, else a folder of its own the hub made (config["_store_dir"]) under the
service's defaultDirectory or the hub's data directory.
Every call asks for `--format json`: brv 3.x exits 0 even when a command fails and says so only in
its output (`"success": false`), which its text format does not mark.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from typing import Any

from memoryhub.core.redaction import mask_near
from providers.base import (
    Capabilities, Field, Keeps, Provider, ProviderError, Receipt, Record, SpaceConfigError, gettext_noop,
)

QUERY_CHARS = 5000
CURATE_TIMEOUT = 120.0  # curation runs the CLI's own LLM; the brv docs and Hermes allow it two minutes
DEFAULT_OUTPUT_CAP = 1024 * 1024
PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
NOT_FOUND = "**Summary**: No matching knowledge found"  # brv's own answer when nothing in the tree matches
FOOTER = "\n\n---\nSource: ByteRover Knowledge Base"
TREE = ".brv/context-tree/"


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
    keeps = Keeps(text="extracted")
    write_seconds = CURATE_TIMEOUT
    service_fields = (
        Field('cliPath', gettext_noop('brv CLI path'), input='path'),
        Field('apiKey', gettext_noop('API key'), input='secret', secret=True),
        Field('defaultDirectory', gettext_noop("Folder for the spaces' knowledge trees (blank: the hub's data "
                                               "directory); each space works in a folder of its own"), input='path'),
    )
    space_fields = (
        Field('workingDirectory', gettext_noop("Working directory (blank: a folder of the space's own); two spaces "
                                               "naming one directory share its knowledge tree"), input='path'),
    )
    store_root_field = "defaultDirectory"
    store_dir_field = "workingDirectory"
    description = gettext_noop(
        "ByteRover's local `brv` CLI and a knowledge tree per space: agentic query and "
        "asynchronous curate; no browsing or deleting.")

    @classmethod
    def space_rules(cls, config: dict[str, Any]) -> dict[str, str]:
        own = str(config.get("workingDirectory") or "").strip()
        if own and not os.path.isdir(os.path.abspath(os.path.expanduser(own))):
            return {"workingDirectory": "must be an existing directory on the hub's machine"}
        return {}

    def _cli(self) -> str:
        configured = str(self.config.get("cliPath") or "").strip()
        path = shutil.which(configured or "brv")
        if not path:
            raise ProviderError(f"brv CLI not found ({configured or 'brv on PATH'})", permanent=True)
        return path

    def working_directory(self) -> str:
        """The space's store directory as the hub chose it (it made its own folders; a named one must exist)."""
        path = str(self.config.get("_store_dir") or "").strip()
        if not path:
            raise ProviderError("ByteRover works in one directory per space: it needs the space's directory",
                                permanent=True)
        if not os.path.isdir(path):  # a directory the space named and someone removed since: the space's problem
            raise SpaceConfigError(f"ByteRover directory {path} does not exist", key="workingDirectory")
        return path

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in PASSED_ENV or k.startswith("BRV_")}
        env.pop("BRV_API_KEY", None)
        if self.config.get("apiKey"):
            env["BRV_API_KEY"] = str(self.config["apiKey"])
        return env

    def _clean(self, text: str) -> str:
        """The CLI's output without the API key, even echoed upper-cased or cut."""
        key = str(self.config.get("apiKey") or "")
        return mask_near(text.replace(key, "[redacted]"), self.secret_values()) if key else text

    def _run(self, args: list[str], timeout: float) -> tuple[int, str, str, bool]:
        """Run `brv <args>`; return (exit code, stdout, stderr, truncated). Timeouts kill and raise."""
        cap = self._cap()
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

    def _call(self, command: str, args: list[str], timeout: float) -> dict[str, Any]:
        """Run `brv <command> --format json <args>` and return the data of its final JSON line.

        brv writes one JSON object a line (progress events, then the outcome). A failure is a line
        with `"success": false`, usually under exit status 0; one with `"event": "error"` comes from a
        task that had started, so it may have written something. Such a failure, output over the cap
        and output without any JSON raise with `unknown_outcome` set.
        """
        code, out, err, truncated = self._run([command, "--format", "json", *args], timeout)
        if truncated:
            raise ProviderError(f"brv {command} answered more than the {self._cap()}-byte output cap",
                                unknown_outcome=True)
        if code != 0:
            raise ProviderError(f"brv {command} exited {code}: {(err or out)[:300]}")
        lines = []
        for line in out.splitlines():
            try:
                parsed = json.loads(line)
            except ValueError:
                continue  # a notice printed around the JSON lines
            if isinstance(parsed, dict) and isinstance(parsed.get("data"), dict):
                lines.append(parsed)
        failed = next((line for line in lines if line.get("success") is not True), None)
        if failed is not None:
            detail = failed["data"].get("error") or failed["data"].get("message") or "no detail"
            raise ProviderError(f"brv {command} failed: {str(detail)[:300]}",
                                unknown_outcome=failed["data"].get("event") == "error")
        if not lines:
            raise ProviderError(f"brv {command} answered no JSON: {(out or err)[:300]}", unknown_outcome=True)
        return lines[-1]["data"]

    def _cap(self) -> int:
        return int(self.config.get("_max_bytes") or DEFAULT_OUTPUT_CAP)

    def status(self) -> dict[str, Any]:
        data = self._call("status", [], self._timeout())
        return {"healthy": True, "version": str(data.get("cliVersion", "")),
                "project": str(data.get("projectRoot", "")), "context_tree": str(data.get("contextTreeStatus", "")),
                "directory": self.working_directory()}

    def check(self) -> dict[str, Any]:
        """Service only: the CLI's version (in a scratch directory), and the defaultDirectory folder, if set."""
        root = str(self.config.get("defaultDirectory") or "").strip()
        if root and not os.path.isdir(self.store_root(root)):
            raise ProviderError(f"ByteRover folder {self.store_root(root)} does not exist", permanent=True)
        with tempfile.TemporaryDirectory(prefix="brv-check-") as scratch:
            self.config["_store_dir"] = scratch
            code, out, err, _ = self._run(["--version"], self._timeout())
        if code != 0:
            raise ProviderError(f"brv --version exited {code}: {(err or out)[:300]}")
        return {"healthy": True, "version": out.splitlines()[0][:100] if out else ""}

    def search(self, query: str, limit: int = 10, **filters: Any) -> list[Record]:
        """One answer from `brv query`, as a single unscored record (the CLI answers in prose, citing files)."""
        data = self._call("query", ["--", query[:QUERY_CHARS]], self._timeout())
        answer = str(data.get("result") or "").removesuffix(FOOTER).strip()
        if not answer or answer.startswith(NOT_FOUND):
            return []
        docs = [d for d in data.get("matchedDocs") or [] if isinstance(d, dict) and d.get("path")]
        digest = hashlib.sha256(query.encode()).hexdigest()[:16]
        return [Record(id=f"brv-query:{digest}", text=answer, title="ByteRover answer", category="context",
                       extra={"sources": [TREE + str(d["path"]) for d in docs], "tier": data.get("tier")})][:limit]

    def remember(self, text: str, *, title: str = "", category: str = "general",
                 tags: list[str] | None = None, at: str = "", **extra: Any) -> Receipt:
        """`brv curate` hands the text to ByteRover's curator; the tree it writes is its own, so only `accepted`."""
        content = f"[{title}] {text}" if title else text
        timeout = float(self.config.get("_curate_timeout") or CURATE_TIMEOUT)
        try:
            data = self._call("curate", ["--", content], timeout)
        except ProviderError as exc:
            if exc.permanent:
                raise
            if exc.timeout or exc.unknown_outcome:
                return Receipt("unknown", error=f"{exc.message}; curation may still have been applied")
            return Receipt("failed", error=exc.message)
        changes = data.get("changes") if isinstance(data.get("changes"), dict) else {}
        files = [str(f) for key in ("created", "updated") for f in changes.get(key) or []]
        review = data.get("pendingReview") if isinstance(data.get("pendingReview"), dict) else {}
        return Receipt("accepted", detail={"files": files, "pending_review": review.get("count", 0),
                                           "task": str(data.get("taskId", ""))})
