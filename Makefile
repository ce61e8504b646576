# memoryhub: `make run` serves the hub, `make test` runs the suite. Both set themselves up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test test-postgres bench load test-integration backup clean

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

test: $(VENV)/.dev
	$(PY) -m pytest

# The storage, search, API, job and fault tests again on PostgreSQL and Redis (DATABASE_URL, REDIS_URL set).
test-postgres: $(VENV)/.dev
	@test -n "$$DATABASE_URL" -a -n "$$REDIS_URL" || { echo "set DATABASE_URL and REDIS_URL (.ci/services start DIR)"; exit 2; }
	$(PY) -m pytest -m "not browser" tests/test_api_*.py tests/test_native_store.py tests/test_jobs.py \
		tests/test_facts.py tests/test_topics.py tests/test_memory_growth_api.py tests/test_security.py \
		tests/test_faults.py tests/test_postgres_redis.py tests/test_postgres_search.py

backup: $(VENV)/.runtime
	$(PY) manage.py backup

# 8 clients writing and searching for 60 s against a real server; not part of `make test`.
load: $(VENV)/.runtime
	$(PY) -m bench.load

bench: $(VENV)/.dev
	$(PY) -m bench

# The adapters against real provider servers on loopback (OpenViking today; about 7 minutes and
# 1.3 GB the first time, for its own virtualenv). Not part of `make test`.
OV_VENV ?= /tmp/ov-venv
test-integration: $(VENV)/.dev
	@test -x $(OV_VENV)/bin/python || ($(PYTHON) -m venv $(OV_VENV) && $(OV_VENV)/bin/pip install --quiet openviking==0.5.2)
	OV_VENV=$(OV_VENV) bash scripts/start-real-providers.sh /tmp/memoryhub-real
	set -a && . /tmp/memoryhub-real/env && set +a && $(PY) -m pytest -m integration tests/integration; \
	  status=$$?; kill $$(cat /tmp/memoryhub-real/*.pid) 2>/dev/null; exit $$status

clean:
	rm -rf $(VENV) .pytest_cache
