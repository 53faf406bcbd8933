# The two commands of the README: `make demo` and `make test`. Both bootstrap from nothing.
# PYTHON: the newest python3.X (X >= 11) that runs here, unless given (`make test PYTHON=python3.12`).
PYTHON ?= $(shell for v in 14 13 12 11; do p=$$(command -v python3.$$v) && $$p -c '' 2>/dev/null && { echo $$p; exit 0; }; done; echo python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz lint docs cases bootstrap chromium headless-shell xvfb tinyproxy bench interop postgres haproxy

bootstrap: $(STAMP) chromium headless-shell xvfb tinyproxy interop postgres haproxy

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "taskplate needs Python 3.11 or newer; '$(PYTHON)' is missing or older."; \
	  echo "Install one (apt-get install python3, or pyenv) or name it: make test PYTHON=/path/to/python3.12"; exit 2; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(STAMP)

# Chromium comes from Debian's package; Playwright drives it through executable_path. Where there
# is no apt-get (other distributions, macOS), Playwright's own Chromium serves, if installed.
chromium: $(STAMP)
	@if [ -n "$$TASKPLATE_CHROMIUM" ] && [ -x "$$TASKPLATE_CHROMIUM" ]; then exit 0; fi; \
	if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if $(BIN)/python -c "$$PLAYWRIGHT_HAS_CHROMIUM" 2>/dev/null; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "No Chromium found, and no apt-get to install Debian's chromium package. Get a browser with"; \
	  echo "  $(BIN)/python -m playwright install chromium"; \
	  echo "or point TASKPLATE_CHROMIUM at a Chromium or Chrome executable."; exit 2; fi; \
	echo "Chromium is missing: installing Debian's chromium package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null

# Debian's old headless shell reads a page with about a third less CPU than the full browser
# (browser/_runtime.py find_chromium prefers it for headless work). Optional: where it cannot be
# installed, the full chromium serves.
headless-shell: chromium
	@if [ -n "$$TASKPLATE_CHROMIUM" ] || command -v chromium-headless-shell >/dev/null 2>&1 \
	  || ! command -v apt-get >/dev/null 2>&1; then exit 0; fi; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	echo "installing Debian's chromium-headless-shell package"; \
	{ $$SUDO apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 \
	  || { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	       $$SUDO apt-get install -y -qq chromium-headless-shell >/dev/null; }; } \
	  || echo "chromium-headless-shell could not be installed; the full chromium serves"

# An X server for the tests of hand_over's headed window (a real Chromium window, no screen):
# Debian's xvfb package when missing; elsewhere those tests fail and say how to get it.
xvfb:
	@command -v Xvfb >/dev/null 2>&1 && exit 0; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "Xvfb is missing and there is no apt-get to install Debian's xvfb package."; \
	  echo "Install your system's Xvfb (the hand-over window tests need it)."; exit 2; fi; \
	echo "Xvfb is missing: installing Debian's xvfb package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq xvfb >/dev/null

# A real proxy with BasicAuth for the proxy tests (tests/browser/test_network.py): Debian's
# tinyproxy package when missing; elsewhere those tests fail and say how to get it.
tinyproxy:
	@command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] && exit 0; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "tinyproxy is missing and there is no apt-get to install Debian's tinyproxy package."; \
	  echo "Install your system's tinyproxy (the proxy tests need it)."; exit 2; fi; \
	echo "tinyproxy is missing: installing Debian's tinyproxy package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq tinyproxy >/dev/null

export PLAYWRIGHT_HAS_CHROMIUM := import os, sys; from playwright.sync_api import sync_playwright; \
  p = sync_playwright().start(); found = os.path.exists(p.chromium.executable_path); p.stop(); \
  sys.exit(not found)

# PostgreSQL's server programs (initdb, pg_ctl) for the tests of the PostgreSQL store, which start
# a cluster of their own in a temporary folder: Debian's postgresql package when missing.
postgres:
	@if [ -n "$$TASKPLATE_PG_BIN" ] && [ -x "$$TASKPLATE_PG_BIN/initdb" ]; then exit 0; fi; \
	if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "PostgreSQL's initdb and pg_ctl are missing, and there is no apt-get to install them."; \
	  echo "Install PostgreSQL's server package, or point TASKPLATE_PG_BIN at the folder of initdb."; exit 2; fi; \
	echo "PostgreSQL is missing: installing Debian's postgresql package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null

# HAProxy for the tests of servers behind a load balancer (tests/fixtures/haproxy.py starts one in
# front of two `dsl serve` on one PostgreSQL): Debian's haproxy package when missing.
haproxy:
	@if [ -n "$$TASKPLATE_HAPROXY" ] && [ -x "$$TASKPLATE_HAPROXY" ]; then exit 0; fi; \
	if command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "HAProxy is missing, and there is no apt-get to install Debian's haproxy package."; \
	  echo "Install your system's haproxy, or point TASKPLATE_HAPROXY at its executable."; exit 2; fi; \
	echo "HAProxy is missing: installing Debian's haproxy package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq haproxy >/dev/null

# Real MCP clients for the tests (TypeScript SDK, Inspector CLI, conformance suite; Node 22 from
# the pinned npm package `node`): npm from Debian's nodejs and npm packages when missing.
INTEROP := tests/interop
interop: $(INTEROP)/node_modules/.installed

$(INTEROP)/node_modules/.installed: $(INTEROP)/package.json $(INTEROP)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	echo "Node is missing: installing Debian's nodejs and npm packages"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; }
	cd $(INTEROP) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

demo: bootstrap
	$(BIN)/dsl validate templates
	$(BIN)/python bench/demo.py

# Test files spread over TEST_WORKERS processes (pytest-xdist), a file's tests in one of them so
# its module fixtures (a Chromium, a server) start once: the suite runs in about a third of the
# time of one process on 2 cores. `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= 4
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

# The sources compiled to bytecode first, as pip compiles an installed package: the editable
# install has none, and where PYTHONDONTWRITEBYTECODE is set (CI's environment) each process the
# suite starts (every `dsl run`, `dsl serve`, conversion worker, test worker) compiled them again,
# a third of a second of CPU each, hundreds of times.
COMPILED := contract dsl interpreter stdlib browser providers server cli taskplate tests

test: bootstrap
	$(BIN)/python -m compileall -q -j 0 -x node_modules $(COMPILED)
	$(PYTEST)

# The fuzz and generated tests alone, twenty times as long as in `make test`, with random seeds.
fuzz: bootstrap
	TASKPLATE_FUZZ=long $(PYTEST) --timeout 3600 -m fuzz

# The checks need only the Python install (ruff, mypy, lint-imports), not the browser or services.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

docs: bootstrap
	$(BIN)/dsl docs --write

# Record the shipped templates' test cases again from the fixture site (templates/*.test.yaml).
cases: bootstrap
	$(BIN)/python -m tests.fixtures.shipped_cases

bench: bootstrap
	$(BIN)/python bench/validate.py

# bench/mcp.py measures Microsoft's Playwright MCP server beside taskplate: pinned in bench/.
bootstrap: bench/node_modules/.package-lock.json

bench/node_modules/.package-lock.json: bench/package.json bench/package-lock.json
	@command -v npm >/dev/null 2>&1 || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; }
	cd bench && npm ci --no-audit --no-fund
