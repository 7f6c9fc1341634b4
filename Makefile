# cardarena — the two commands of the README: `make demo` (the main job) and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin


.PHONY: setup research proto proto-publish test test-sqlite test-postgres demo bench clean

$(BIN)/cardarena: pyproject.toml setup.py $(wildcard proto/cardarena/v1/*.proto)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

setup: $(BIN)/cardarena $(VENV)/melds-compiled

# Three Thirteen's meld solver compiled with mypyc (server/games/compile_melds.py; mypy is a
# build tool only, and a C compiler is needed): built again whenever melds.py changes, and taken
# only if built from melds.py as it is. Where it cannot be built, the solver runs as Python
# (about 3.5 times the CPU on its slowest hands) and this says why each time.
$(VENV)/melds-compiled: server/games/melds.py server/games/compile_melds.py | $(BIN)/cardarena
	@$(BIN)/pip install -q 'mypy>=1.11' && $(BIN)/python server/games/compile_melds.py && touch $@ \
		|| echo "the meld solver runs as Python (see above)"

# The researchers' extra (cardarena.research: numpy, gymnasium, pettingzoo, open_spiel); without
# it `make test` skips tests/research with one line. Then the codecs compiled (below).
research: setup
	$(BIN)/pip install -q -e '.[test,research]'
	@$(MAKE) -s --no-print-directory $(VENV)/codecs-compiled

# The research codecs (server/research/spaces.py and codec_*.py) compiled together with mypyc into
# server/research/_fast/ (server/research/compile_codecs.py; some 15 s of CPU): built again whenever
# one of them changes, and taken only if built from them as they are. Where they cannot be built,
# the codecs run as Python (some 1.2–1.6 times the CPU to encode a view) and this says why each time.
CODEC_SOURCES := server/research/spaces.py $(wildcard server/research/codec_*.py)
$(VENV)/codecs-compiled: $(CODEC_SOURCES) server/research/compile_codecs.py server/research/compiled.py | $(BIN)/cardarena
	@$(BIN)/pip install -q 'mypy>=1.11' && $(BIN)/python server/research/compile_codecs.py && touch $@ \
		|| echo "the research codecs run as Python (see above)"

# Regenerate cardarena.v1 from proto/ (the install does it too).
proto: setup
	$(BIN)/python proto/generate.py

# Another language's code from proto/, into proto/gen/LANG (ignored by git): proto/buf.gen.yaml's
# plugins for LANG, run by buf (managed mode; which package gives each plugin is said there).
.PHONY: proto-go proto-java proto-csharp proto-rust proto-ts
proto-go proto-java proto-csharp proto-rust: proto-%: $(BIN)/buf
	$(BIN)/python proto/generate.py --lang $*

proto-ts: $(BIN)/buf proto/gen/ts-plugin/node_modules/.bin/protoc-gen-ts_proto
	$(BIN)/python proto/generate.py --lang ts

proto/gen/ts-plugin/node_modules/.bin/protoc-gen-ts_proto:
	npm install --prefix proto/gen/ts-plugin --no-audit --no-fund --loglevel=error ts-proto@2

$(BIN)/buf: | $(BIN)/cardarena
	$(BIN)/pip install -q buf-bin

# Record proto/ as the published contract (tests/test_proto.py holds every later change to it).
proto-publish: setup
	$(BIN)/pip install -q buf-bin
	$(BIN)/buf build proto --exclude-source-info -o proto/published.json

# `make test` runs both passes: every test on SQLite ledgers, then again on PostgreSQL the tests
# that make a ledger. tests/conftest.py marks them from their fixtures: `ledger` (a test whose
# fixtures make a ledger: ledger_url, db, new_ledger; not a variant marked `sqlite`, about SQLite
# itself, nor one marked `any_ledger`, whose subject is not the ledger: bots in other languages,
# the referee's conduct, the CLI's words) and `postgres` (a test that asks for the PostgreSQL
# cluster itself: the second pass only); the game engines, the proto and conduct run once.
# Without PostgreSQL here the second pass is skipped with one line saying what to install (under
# CI, CI set, it fails instead).
# `make test` runs the second pass even when the first fails, then prints both passes' last lines
# and the time taken, and fails if either failed (tests/passes.sh).
test: setup
	@bash tests/passes.sh "$(MAKE)"

# Both passes run their tests on 4 workers (pytest-xdist; most tests wait on bot processes,
# sockets and timers); tests that share a costly fixture stay on one (tests/conftest.py).
# PYTEST_ARGS="-n 0" runs them one by one.
PYTEST_ARGS ?= -n 4 --dist loadgroup

test-sqlite: setup
	$(BIN)/python -m pytest -q $(PYTEST_ARGS) -m "not postgres"

test-postgres: setup
	@why="$$($(BIN)/python tests/pgserver.py)"; \
	if [ -z "$$why" ]; then CARDARENA_TEST_LEDGER=postgresql $(BIN)/python -m pytest -q $(PYTEST_ARGS) -m "ledger or postgres"; \
	elif [ -n "$$CI" ]; then echo "CI must run the PostgreSQL tests: $$why" >&2; exit 1; \
	else echo "skipped the PostgreSQL pass: $$why"; fi

demo: setup
	$(BIN)/cardarena demo

bench: setup
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) proto/gen build *.egg-info server/games/_melds_fast* server/research/_fast

# The example bots in other languages: the Node.js helper's packages (clients/node, from its
# package-lock.json), the TypeScript bot (examples/ts/dist/random_bot.js: `make proto-ts`'s code,
# npm ci and tsc; needs node and npm), the C++ bot (examples/cpp/build/random_bot; needs Debian's
# libgrpc++-dev, protobuf-compiler-grpc and pkg-config) and the Go bot (examples/go/build/random_bot;
# needs Debian's golang-go golang-google-grpc-dev golang-google-protobuf-dev
# golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler) and the
# Java bot (examples/java/build/random_bot; Debian's packages are listed in examples/java/Makefile).
# The Node.js helper comes first; each bot is built even where another cannot be, then the rule
# fails naming those not built.
.PHONY: examples
examples: clients/node/node_modules/.package-lock.json
	@failed=; \
	$(MAKE) -s -C examples/ts || failed="$$failed ts"; \
	$(MAKE) -s -j2 -C examples/cpp || failed="$$failed cpp"; \
	$(MAKE) -s -C examples/go || failed="$$failed go"; \
	$(MAKE) -s -C examples/java || failed="$$failed java"; \
	if [ -n "$$failed" ]; then echo "make examples: not built:$$failed (examples/LANG/Makefile says what each needs)" >&2; exit 1; fi

clients/node/node_modules/.package-lock.json: clients/node/package.json clients/node/package-lock.json
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error
