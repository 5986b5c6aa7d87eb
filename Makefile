# kgmem — the two commands of the README are `make demo` and `make test`.
# Everything they need (venv, Python packages, model weights, Neo4j jars) is installed on first use.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
KGMEM  := $(BIN)/kgmem
PYTEST_ARGS ?=
# Optional: a PyTorch wheel index to take torch from before everything else, e.g. the CPU-only
# one (docs/install.md, "Install weight"). Empty (the default, and CI's route): torch comes from PyPI.
TORCH_INDEX ?=

.PHONY: setup demo test test-fast test-slow test-unit conformance neo4j-start neo4j-stop bench-locomo bench-mab figures lint typecheck clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(if $(TORCH_INDEX),$(BIN)/pip install --quiet torch --index-url $(TORCH_INDEX))
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

neo4j-start: setup
	$(KGMEM) neo4j start

neo4j-stop:
	$(KGMEM) neo4j stop

## main job: ingest the shipped sample conversation and answer questions with evidence
demo: neo4j-start
	$(KGMEM) ingest chat examples/sample_chat.json -q
	$(KGMEM) search "Where does Ana live now?" --conversation sample-ana --k 3 --explain
	$(KGMEM) search "What did Ana do the weekend before she moved?" --conversation sample-ana --k 3 --explain
	$(KGMEM) current Ana residence --conversation sample-ana
	$(KGMEM) history Ana residence --conversation sample-ana

## the whole suite: unit tests (no server) + integration tests against the real Neo4j, in two
## steps: everything not marked `slow`, then the slow set (crash matrix, server restart, ...)
test: test-fast test-slow

test-fast: neo4j-start
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

# pytest exits 5 when it collects no test (e.g. PYTEST_ARGS names files without slow tests):
# nothing to run is not a failure here; any failing test still is
test-slow: neo4j-start
	$(BIN)/python -m pytest -m slow $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-unit: setup
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

## the frameworks' own published test suites against the adapters (scripts/conformance.py);
## not part of `make test` (it takes about 15 min). Starts and stops its own empty Neo4j.
conformance: setup
	$(BIN)/python scripts/conformance.py $(CONFORMANCE_ARGS)

bench-locomo: neo4j-start
	$(KGMEM) bench locomo ../shared/data/locomo/locomo-dev.json --k 5,10,20 --ablate --json bench-results/locomo-dev.json

bench-mab: neo4j-start
	$(KGMEM) bench mab ../shared/data/mab/factconsolidation_6k.json --json bench-results/mab-6k.json

## every picture in docs/img/ from the current code (docs/audit.md; Browser screenshots excepted)
figures: neo4j-start
	$(BIN)/python -m kgmem.audit.figures

lint: setup
	$(BIN)/ruff check kgmem tests

typecheck: setup
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
