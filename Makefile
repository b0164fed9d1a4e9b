# Flightdeck: `make run` sets everything up and serves on 127.0.0.1:8000; `make test` checks everything.
# Another Python: `make pytest PYTHON=python3.13 VENV=.venv-3.13` (3.11, 3.12 and 3.13 are supported).
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP_PYTHON := $(VENV)/.stamp-python
LOCK := requirements.lock
# clients/python's code generator (ariadne-codegen) needs graphql-core < 3.3 and an older ruff than the
# server's, so it has a venv and a lock of its own (docs/decisions/0021-workers.md).
CODEGEN_VENV := .venv-codegen
CODEGEN_LOCK := clients/python/codegen.lock
CODEGEN_STAMP := $(CODEGEN_VENV)/.stamp
INSTALLER_LOCK := .ci/installer.lock
# --compile-bytecode as pip does: where PYTHONDONTWRITEBYTECODE is set (as on CI) nothing else writes
# the .pyc files, and every process the tests start compiled its libraries again (~1.2 s each).
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install frontend lint typecheck jstest codegen client-codegen pytest schema docs docs-site bench soak lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

# Everything comes from the lock, every file checked against its hash; the project itself is installed
# editable without its dependencies (they are all in the lock) and built by the locked setuptools.
# pip installs uv from its own hashed lock, and uv the rest: pip took 30 s for the lock, uv 6 s.
$(STAMP_PYTHON): pyproject.toml $(LOCK) $(INSTALLER_LOCK) clients/python/pyproject.toml | $(BIN)/python
	$(BIN)/python .ci/lockfile.py check
	$(BIN)/pip install --quiet --require-hashes -r $(INSTALLER_LOCK)
	$(UV_INSTALL) $(BIN)/python --require-hashes -r $(LOCK)
	$(UV_INSTALL) $(BIN)/python --no-deps --no-build-isolation -e . -e clients/python
	touch $@

$(CODEGEN_STAMP): $(CODEGEN_LOCK) | $(STAMP_PYTHON)
	$(PYTHON) -m venv $(CODEGEN_VENV) || python3 -m venv $(CODEGEN_VENV)
	$(UV_INSTALL) $(CODEGEN_VENV)/bin/python --require-hashes -r $(CODEGEN_LOCK)
	touch $@

# Re-resolve requirements.lock after changing dependencies in pyproject.toml: one universal resolution
# for Python 3.11 to 3.13 on every platform, every extra, the build backend, with hashes. Versions
# already in the lock are kept where they still fit; `make lock UPGRADE=1` takes the newest allowed.
lock: | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r $(INSTALLER_LOCK)
	$(BIN)/python .ci/lockfile.py build-requires | $(BIN)/uv pip compile pyproject.toml - \
	    --all-extras --universal --python-version 3.11 --generate-hashes $(if $(UPGRADE),--upgrade) \
	    --custom-compile-command 'make lock' --quiet --output-file $(LOCK)
	$(BIN)/python .ci/lockfile.py stamp
	cd clients/python && ../../$(BIN)/uv pip compile codegen.in --universal --python-version 3.11 \
	    --generate-hashes $(if $(UPGRADE),--upgrade) --custom-compile-command 'make lock' --quiet \
	    --output-file codegen.lock

.stamp-frontend: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

# The official TypeScript MCP client the tests drive (tests/mcp/official_clients.py), from its lock.
MCP_TS := tests/mcp/ts
$(MCP_TS)/node_modules/.stamp: $(MCP_TS)/package.json $(MCP_TS)/package-lock.json
	cd $(MCP_TS) && npm ci --no-audit --no-fund
	touch $@

install: $(STAMP_PYTHON) .stamp-frontend $(CODEGEN_STAMP) $(MCP_TS)/node_modules/.stamp

# Type-checks the TypeScript (tsc), then builds the dashboard and GraphiQL with Vite.
frontend: .stamp-frontend
	cd frontend && npm run build

run: install frontend
	$(BIN)/flightdeck serve --host $(HOST) --port $(PORT)

lint: $(STAMP_PYTHON)
	$(BIN)/ruff check server tests $(wildcard bench) examples .ci clients/python
	$(BIN)/ruff format --check server tests $(wildcard bench) examples .ci clients/python

typecheck: $(STAMP_PYTHON)
	$(BIN)/mypy

# The dashboard's client logic (Vitest), after checking that the operation types generated from
# schema.graphql (frontend/src/core/graphql.generated.ts) are current; the browser tests run under pytest.
jstest: .stamp-frontend
	cd frontend && npm run codegen:check && npm test

# Regenerates the dashboard's operation types after schema.graphql or an operation changed.
codegen: .stamp-frontend client-codegen
	cd frontend && npm run codegen

# Regenerates clients/python/flightdeck_client/generated from schema.graphql and its .graphql operations.
client-codegen: $(CODEGEN_STAMP)
	cd clients/python && ../../$(CODEGEN_VENV)/bin/ariadne-codegen

# Three workers, whole files each (pytest-xdist): the suite waits on databases, servers and the browser
# more than on the CPU (about one core busy of two at -n 2). Measured on a 2-core machine: -n 2
# 9 min 34 s, -n 3 8 min 39 s and 8 min 56 s, -n 4 8 min 58 s with a timing failure; about 1,550 s of
# work either way, most of it fixtures starting and stopping servers. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 3
pytest: install frontend
	$(BIN)/pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile) --durations=15 $(PYTEST_ARGS)

test: lint typecheck jstest pytest docs-site

schema: $(STAMP_PYTHON)
	$(BIN)/flightdeck export-schema > schema.graphql

# Regenerates the pages written from the code (the state machines; settings, command line, schema, event
# kinds and error codes under docs/reference/), then builds the site. Tests fail while a page is stale.
docs: $(STAMP_PYTHON)
	$(BIN)/flightdeck export-machines > docs/state-machines.md
	$(BIN)/python -m server.reference_docs docs/reference
	$(MAKE) docs-site

# The documentation site (MkDocs, Material theme) into site/, git-ignored. --strict: a link to a missing
# page or anchor, or a page left out of the navigation, fails the build.
docs-site: $(STAMP_PYTHON)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

bench: install frontend
	$(BIN)/python -m bench

# Minutes of steady load on a real server, sampling its memory, descriptors and threads (docs/guides/performance.md).
SOAK_MINUTES ?= 8
soak: install frontend
	$(BIN)/python -m bench soak --minutes $(SOAK_MINUTES)

clean:
	rm -rf $(VENV) .venv-* .stamp-* frontend/node_modules frontend/dist $(MCP_TS)/node_modules site
