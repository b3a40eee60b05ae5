# The README's commands. Each creates .venv and installs what it needs on first use.
# Installs are pinned by constraints.txt, so a new release of a dependency (or of the bundled
# model) cannot change results under us; `make lock` re-resolves it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONSTRAINTS := constraints.txt

.PHONY: demo test lint eval bench lock clean

$(STAMP): pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade -c $(CONSTRAINTS) pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## selections for English, Arabic and Turkish messages on the 44-tool demo roster
	$(BIN)/toolret demo

test: $(STAMP)  ## the whole suite: real Postgres+pgvector, real Redis, the bundled model
	$(BIN)/pytest -q

lint: $(STAMP)  ## ruff and mypy --strict on the library and the worker
	$(BIN)/ruff check toolret workers tests evals
	$(BIN)/ruff format --check toolret workers tests evals
	$(BIN)/mypy

eval: $(STAMP)  ## recall and narrowing per language and mode, cache stability, learning replay; report in evals/out/
	$(BIN)/toolret eval
	$(BIN)/python -m evals.studies.cache_stability
	$(BIN)/python -m evals.studies.learning_replay

bench: $(STAMP)  ## request-path latency and throughput against in-process baselines (BENCH=--million: a 1,000,000-vector level)
	$(BIN)/python -m evals.perf $(BENCH)

lock:  ## re-resolve constraints.txt: the newest versions pyproject.toml allows, in a fresh venv
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet --upgrade pip
	.lock-venv/bin/pip install --quiet '.[dev]'
	( echo "# Pinned versions for make test/demo/eval; regenerate with make lock."; \
	  .lock-venv/bin/pip freeze --all --exclude-editable | grep -v -i '^toolret==' \
	  | grep -v -E '^(setuptools|wheel)==' ) > $(CONSTRAINTS)
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) evals/out .pytest_cache .mypy_cache .ruff_cache
