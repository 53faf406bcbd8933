# The two commands of the README: `make demo` and `make test`. Both bootstrap from nothing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint docs bootstrap chromium bench

bootstrap: $(STAMP) chromium

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) is required"; exit 2; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

# Chromium comes from Debian's package; Playwright drives it through executable_path.
chromium:
	@if [ -n "$$TASKPLATE_CHROMIUM" ] && [ -x "$$TASKPLATE_CHROMIUM" ]; then exit 0; fi; \
	if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	echo "Chromium is missing: installing Debian's chromium package"; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null

demo: bootstrap
	$(BIN)/dsl validate templates
	$(BIN)/python bench/demo.py

test: bootstrap
	$(BIN)/python -m pytest -q -p no:cacheprovider

lint: bootstrap
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

docs: bootstrap
	$(BIN)/python -m taskplate.cli.docgen --write

bench: bootstrap
	$(BIN)/python bench/validate.py

# bench/mcp.py measures Microsoft's Playwright MCP server beside taskplate: pinned in bench/.
bootstrap: bench/node_modules/.package-lock.json

bench/node_modules/.package-lock.json: bench/package.json bench/package-lock.json
	@command -v npm >/dev/null 2>&1 || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; }
	cd bench && npm ci --no-audit --no-fund
