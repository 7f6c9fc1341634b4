# cardarena — the two commands of the README: `make demo` (the main job) and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup proto proto-publish test demo bench clean

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

test: setup
	$(BIN)/python -m pytest -q

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
