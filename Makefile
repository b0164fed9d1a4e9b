# Flightdeck: `make run` sets everything up and serves on 127.0.0.1:8000; `make test` checks everything.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install frontend lint typecheck jstest pytest schema docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

.stamp-python: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

.stamp-frontend: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

install: .stamp-python .stamp-frontend

# Type-checks the TypeScript (tsc), then builds the dashboard and GraphiQL with Vite.
frontend: .stamp-frontend
	cd frontend && npm run build

run: install frontend
	$(BIN)/flightdeck serve --host $(HOST) --port $(PORT)

lint: .stamp-python
	$(BIN)/ruff check server tests $(wildcard bench)
	$(BIN)/ruff format --check server tests $(wildcard bench)

typecheck: .stamp-python
	$(BIN)/mypy

# The dashboard's client logic (Vitest); the browser tests run under pytest.
jstest: .stamp-frontend
	cd frontend && npm test

# Two workers, whole files each (pytest-xdist): the suite waits on databases, servers and the browser
# more than on the CPU, and this halves its time on two cores. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
pytest: install frontend
	$(BIN)/pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: lint typecheck jstest pytest

schema: .stamp-python
	$(BIN)/flightdeck export-schema > schema.graphql

docs: .stamp-python
	$(BIN)/flightdeck export-machines > docs/state-machines.md

bench: install frontend
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .stamp-* frontend/node_modules frontend/dist
