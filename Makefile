# The two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# `make run` works on the embedded default store in this checkout unless told otherwise.
SALIENCE_HOME ?= $(CURDIR)/.salience
export SALIENCE_HOME

.PHONY: run demo test test-fast test-real lint format bench fuzz clean docs

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Serve the HTTP API on the embedded store (Ctrl-C stops it); HOST and PORT may be given.
HOST ?= 127.0.0.1
PORT ?= 8377
run: $(STAMP)
	$(VENV)/bin/salience serve --host $(HOST) --port $(PORT)

# A short, real CLI session on the same store.
demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash scripts/demo.sh

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Everything, in two runs on both cores (-n 2): the tests that start processes or a browser
# apart from the rest (their servers and browsers are not shared with the in-process tests).
# No test decides by a timer, so two at a time is as sure as one.
test: lint
	$(VENV)/bin/pytest -q -n 2 -m "not (process or browser or real)"
	$(VENV)/bin/pytest -q -n 2 -m "process or browser"

# Importers against stores the real programs write (mem0, basic-memory), each installed from
# PyPI into a venv of its own: minutes, so apart from `make test` (CI runs both).
test-real: $(STAMP)
	$(VENV)/bin/pytest -q -m real

# The edit loop (under a minute): no PostgreSQL, browser, subprocess, fuzz or slow tests.
# `make test` runs all of them.
FAST := not (postgres or browser or process or fuzz or slow or real)
test-fast: $(STAMP)
	$(VENV)/bin/pytest -q -x -n 2 -m "$(FAST)"

# A longer, random schemathesis run against the HTTP API than the one in `make test`, and
# 20,000 random texts through the write gates.
fuzz: $(STAMP)
	FUZZ_EXAMPLES=200 FUZZ_RANDOM=1 $(VENV)/bin/pytest -q tests/server/test_fuzz.py
	GATES_FUZZ_EXAMPLES=20000 $(VENV)/bin/pytest -q tests/write/gates/test_pipeline.py

bench: $(STAMP)
	$(PY) bench/bench_store.py

docs: $(STAMP)
	$(PY) scripts/gen_docs.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
