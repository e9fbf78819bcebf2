PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(sort $(wildcard plugins/*))
STAMP := $(VENV)/.installed

.PHONY: install run test bench lint format clean

install: $(STAMP)

$(STAMP): core/pyproject.toml $(wildcard plugins/*/pyproject.toml) requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt -e core $(addprefix -e ,$(PLUGINS))
	touch $@

run: install
	$(BIN)/steward serve

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	$(BIN)/python bench/executor_overhead.py
	$(BIN)/python bench/http_throughput.py
	$(BIN)/python bench/turn_overhead.py
	$(BIN)/python bench/extraction.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
