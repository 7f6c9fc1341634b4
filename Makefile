# cardarena — the two commands of the README: `make demo` (the main job) and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup proto proto-publish test test-sqlite test-postgres demo bench clean

$(BIN)/cardarena: pyproject.toml setup.py $(wildcard proto/cardarena/v1/*.proto)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

setup: $(BIN)/cardarena

# Regenerate cardarena.v1 from proto/ (the install does it too).
proto: setup
	$(BIN)/python proto/generate.py

# Record proto/ as the published contract (tests/test_proto.py holds every later change to it).
proto-publish: setup
	$(BIN)/pip install -q buf-bin
	$(BIN)/buf build proto --exclude-source-info -o proto/published.json

# `make test` runs both passes: every test on SQLite ledgers, then again on PostgreSQL the tests
# that make a ledger. tests/conftest.py marks them: `ledger` (a test whose fixtures make a ledger:
# ledger_url, db, new_ledger) and `postgres` (a test that asks for the PostgreSQL cluster itself,
# run in the second pass only); the game engines, the proto and conduct without a ledger run once.
# Without PostgreSQL here the second pass is skipped with one line saying what to install (under
# CI, CI set, it fails instead).
test: test-sqlite test-postgres

test-sqlite: setup
	$(BIN)/python -m pytest -q -m "not postgres"

test-postgres: setup
	@why="$$($(BIN)/python tests/pgserver.py)"; \
	if [ -z "$$why" ]; then CARDARENA_TEST_LEDGER=postgresql $(BIN)/python -m pytest -q -m "ledger or postgres"; \
	elif [ -n "$$CI" ]; then echo "CI must run the PostgreSQL tests: $$why" >&2; exit 1; \
	else echo "skipped the PostgreSQL pass: $$why"; fi

demo: setup
	$(BIN)/cardarena demo

bench: setup
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) proto/gen build *.egg-info

# The example bots in other languages: the Node.js helper's packages (clients/node, from its
# package-lock.json) and the C++ bot (examples/cpp/build/random_bot; needs Debian's
# libgrpc++-dev, protobuf-compiler-grpc and pkg-config).
.PHONY: examples
examples: clients/node/node_modules/.package-lock.json
	@$(MAKE) -s -j2 -C examples/cpp

clients/node/node_modules/.package-lock.json: clients/node/package.json clients/node/package-lock.json
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error
