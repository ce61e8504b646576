# memoryhub: `make run` serves the hub, `make test` runs the suite. Both set themselves up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test bench test-integration backup restore clean

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

bench: $(VENV)/.dev
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache
