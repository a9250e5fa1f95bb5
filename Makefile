# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS ?= dev,web,research,docs,ray

.PHONY: system jstools jslint native compiler run test test-fast test-loaded lint typecheck imports bench bench-web install clean test-long test-research fuzz

$(STAMP): pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c requirements.lock -e ".[$(EXTRAS)]"
	touch $(STAMP)

install: $(STAMP)

# The rules core and the bots' search compiled with mypyc (kardinal/native.py), in one
# group: the same source, about twice the games and 1.5 times the search's iterations a
# second; rebuilt when a source changes (a stale build is never used), in about a minute.
# `make run` plays on with the pure-Python sources if they cannot be compiled; `make test`
# fails then.
NATIVE_SRC := kardinal/rules/chains.py kardinal/rules/scoring.py kardinal/rules/moves.py kardinal/rules/state.py \
	kardinal/bots/determinize.py kardinal/bots/evaluate.py kardinal/bots/ismcts.py kardinal/bots/learned.py \
	kardinal/research/encode.py
NATIVE := kardinal/_native.txt
$(NATIVE): $(NATIVE_SRC) $(STAMP)
	@$(MAKE) --no-print-directory compiler
	$(BIN)/python kardinal/native.py --if-needed

native: $(NATIVE)

# a C compiler and Python's headers for mypyc, installed with apt-get when missing
HEADERS = $(shell $(BIN)/python -c "import os, sysconfig; print(os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>/dev/null)
compiler: $(STAMP)
	@if ! command -v cc >/dev/null 2>&1 || [ "$(HEADERS)" != True ]; then \
	  echo "installing a C compiler and Python's headers to compile the rules core and the bots' search"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q gcc python3-dev; \
	fi

run: $(STAMP)
	-@$(MAKE) --no-print-directory compiler && $(BIN)/python kardinal/native.py --if-needed
	@$(MAKE) --no-print-directory docs >/dev/null 2>&1 && echo "the documentation: http://127.0.0.1:8000/docs/" || echo "the documentation could not be built (make docs says why); the game runs without it"
	$(BIN)/kardinal serve --host 127.0.0.1 --port 8000

lint: $(STAMP)
	$(BIN)/ruff check kardinal tests
	$(BIN)/ruff format --check kardinal tests

typecheck: $(STAMP)
	$(BIN)/mypy

# the layers point one way (pyproject.toml, [tool.importlinter])
imports: $(STAMP)
	$(BIN)/lint-imports

# Debian packages the tests need: Chromium (browser tests), PostgreSQL (a throwaway
# server for the database tests), npm (installs axe-core for the accessibility scan) and
# nginx (the shipped deploy/nginx.conf is run in front of two servers), installed when missing (as root, or with sudo); the tests fail without them rather than skip.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
NEED := $(shell command -v chromium >/dev/null 2>&1 || echo chromium) $(shell ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || echo postgresql) $(shell command -v npm >/dev/null 2>&1 || echo npm) $(shell [ -x /usr/sbin/nginx ] || echo nginx)
system:
	@if [ -n "$(strip $(NEED))" ]; then \
	  echo "installing Debian's $(strip $(NEED)) for the tests"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(NEED); \
	fi

# the JavaScript tools: what the browser tests inject into pages (axe-core) and the checks of
# the browser's code (TypeScript, ESLint), pinned in tests/js/package-lock.json
JSTOOLS := tests/js/node_modules/axe-core/axe.min.js
$(JSTOOLS): tests/js/package.json tests/js/package-lock.json | system
	npm ci --prefix tests/js --no-audit --no-fund
	touch $(JSTOOLS)

jstools: $(JSTOOLS)

# The browser's JavaScript (kardinal/clients/web/static/*.js, loaded as it is, no build
# step): TypeScript's checker over it (kardinal/clients/web/jsconfig.json: checkJs, all of
# strict: a JSDoc type on every parameter, caught errors unknown) and ESLint
# (tests/js/eslint.config.mjs), both pinned in tests/js/package-lock.json. tsc must find
# no error (1,391 at the start with strict; none since 2026-11-28).
JSBIN := tests/js/node_modules/.bin
jslint: jstools
	$(JSBIN)/tsc -p kardinal/clients/web/jsconfig.json
	$(JSBIN)/tsc -p kardinal/clients/web/jsconfig.worker.json
	$(JSBIN)/eslint -c tests/js/eslint.config.mjs kardinal/clients/web/static

# the suite in TEST_WORKERS processes (pytest-xdist); a file's tests stay in one process,
# so that its server, browser and database fixtures are made once.
# The files are handed out longest first, as tests/conftest.py orders them by their last
# measured time (--no-loadscope-reorder: xdist's own order, by the number of tests, left
# the long files of one test each to the end). It prints the 15 slowest tests and the time
# by area (tests/conftest.py; the JUnit XML in build/ keeps each test's, for
# tests/suite_times.py; the testing page says more).
# One more than the cores: the browser tests wait on Chromium and their servers, so two
# processes left a quarter of two cores idle (9.8 -> 9.2 min of pytest on 2 cores, same day).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST = $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
SUITE = $(PYTEST) --durations=15 --junitxml=build/junit.xml kardinal tests

test: $(STAMP) $(NATIVE) system jstools jslint lint typecheck imports
	$(SUITE)

# The suite while every core is kept busy by another process (tests/loaded.py): no test
# may depend on the machine being idle.
test-loaded: $(STAMP) $(NATIVE) system jstools
	$(BIN)/python tests/loaded.py -- $(SUITE)

# What a change to the rules, the bots or the server's API needs, in a few minutes: the
# suite less the browser, PostgreSQL, docs, research, fuzz and heavy tests (3 s or more in
# the last measured run: tests/data/suite_seconds.json; the markers are on the testing page).
FAST = not browser and not postgres and not docs and not research and not fuzz and not heavy
test-fast: $(STAMP) $(NATIVE)
	$(PYTEST) -m "$(FAST)" kardinal tests

test-long: $(STAMP) $(NATIVE)
	KARDINAL_LONG=1 $(BIN)/pytest -q kardinal tests

# OpenSpiel / PettingZoo conformance, long version (the short one runs in `make test`)
test-research: $(STAMP) $(NATIVE)
	KARDINAL_LONG=1 $(BIN)/pytest -q tests/test_research_openspiel.py tests/test_research_pettingzoo.py

# The documentation site (mkdocs.yml, from docs/) into site/; a running server serves it at
# /docs/. `make test` builds it too, strictly (tests/test_docs_site.py).
.PHONY: docs
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The fuzz tests at ten times their `make test` size: random interleavings of what clients do
# (tests/test_web_stateful.py, on SQLite and PostgreSQL) and Schemathesis against the
# OpenAPI document (tests/test_web_schemathesis.py).
fuzz: $(STAMP) system
	KARDINAL_FUZZ=1 $(BIN)/pytest -q tests/test_web_stateful.py tests/test_web_schemathesis.py

bench: $(STAMP) $(NATIVE)
	$(BIN)/kardinal bench

# from "Create game" in the lobby to a playable board, in Chromium (median of 10 runs)
bench-web: $(STAMP) system
	$(BIN)/python -m kardinal.tools.startbench 10

clean:
	rm -rf $(VENV) build *.egg-info kardinal/*.so kardinal/rules/*.so kardinal/bots/*.so kardinal/research/*.so $(NATIVE) kardinal/bots/_native.txt
