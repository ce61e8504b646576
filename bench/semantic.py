"""`make bench-embeddings`: LoCoMo with a real local embedding model beside the words-only search.

Starts bench/embedding_server.py (all-MiniLM-L6-v2 from its own venv, scripts/embedding-venv) on a
free loopback port, points the hub at it, runs the LoCoMo benchmark and stops the server.
"""

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv-embed" / "bin" / "python"
MODEL = "all-MiniLM-L6-v2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    if not PYTHON.exists():
        sys.exit("no embedding venv: run scripts/embedding-venv first (make bench-embeddings does)")
    port = free_port()
    server = subprocess.Popen([str(PYTHON), str(ROOT / "bench" / "embedding_server.py"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = server.stdout.readline()
        if "ready" not in ready:
            sys.exit(f"the embedding server did not start: {ready!r}")
        print(ready.strip(), flush=True)
        os.environ["MEMORYHUB_EMBEDDINGS_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
        os.environ["MEMORYHUB_EMBEDDINGS_MODEL"] = MODEL
        from bench.setup import django_on_temp_data

        django_on_temp_data()
        from bench import locomo

        print(locomo.report(locomo.run(int(sys.argv[1]) if len(sys.argv) > 1 else None)), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
