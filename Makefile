# The README's commands. Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint eval bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## selections for English, Arabic and Turkish messages on the 44-tool demo roster
	$(BIN)/toolret demo

test: $(STAMP)  ## the whole suite: real Postgres+pgvector, real Redis, the bundled model
	$(BIN)/pytest -q

lint: $(STAMP)  ## ruff and mypy --strict on the library and the worker
	$(BIN)/ruff check toolret workers tests evals
	$(BIN)/ruff format --check toolret workers tests evals
	$(BIN)/mypy

eval: $(STAMP)  ## recall and narrowing per language and mode; report in evals/out/
	$(BIN)/toolret eval

bench: $(STAMP)  ## request-path latency and throughput against in-process baselines
	$(BIN)/python -m evals.bench

clean:
	rm -rf $(VENV) evals/out .pytest_cache .mypy_cache .ruff_cache
