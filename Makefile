# kgmem — the two commands of the README are `make demo` and `make test`.
# Everything they need (venv, Python packages, model weights, Neo4j jars) is installed on first use.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
KGMEM  := $(BIN)/kgmem
PYTEST_ARGS ?=
# Optional: a PyTorch wheel index to take torch from before everything else, e.g. the CPU-only
# one (README "Install weight"). Empty (the default, and CI's route): torch comes from PyPI.
TORCH_INDEX ?=

.PHONY: setup demo test test-unit conformance neo4j-start neo4j-stop bench-locomo bench-mab lint typecheck clean

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

## the whole suite: unit tests (no server) + integration tests against the real Neo4j
test: neo4j-start
	$(BIN)/python -m pytest $(PYTEST_ARGS)

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

lint: setup
	$(BIN)/ruff check kgmem tests

typecheck: setup
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
