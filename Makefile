PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(sort $(wildcard plugins/*))
STAMP := $(VENV)/.installed
# hermes-agent pins versions that clash with ours; its contract tests run it from a venv of its own
HERMES_VENV := .venv-hermes
HERMES_STAMP := $(HERMES_VENV)/.installed

.PHONY: install run test bench lint format clean

install: $(STAMP)

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml) requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt -e core $(addprefix -e ,$(PLUGINS))
	touch $@

$(HERMES_STAMP): requirements-hermes.txt
	test -x $(HERMES_VENV)/bin/python || $(PYTHON) -m venv $(HERMES_VENV)
	$(HERMES_VENV)/bin/python -m pip install --quiet -r requirements-hermes.txt
	touch $@

run: install
	$(BIN)/steward serve

test: install $(HERMES_STAMP)
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	$(BIN)/python bench/executor_overhead.py
	$(BIN)/python bench/http_throughput.py
	$(BIN)/python bench/turn_overhead.py
	$(BIN)/python bench/extraction.py
	$(BIN)/python bench/fetch_service.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) $(HERMES_VENV) .pytest_cache .ruff_cache
