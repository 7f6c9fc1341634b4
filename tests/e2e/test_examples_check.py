"""Every shipped example bot passes `cardarena check` (the real CLI, the real bot program): ready
for the ladder, exit 0, which includes coming back after the check cuts its stream. So does the
"whole bot" of clients/README.md's Go section (tests/e2e/test_languages.py builds it as the guide says).

Each check is the smallest that still cuts a stream: one game, two matches (the cut is in the
second). The Node.js, TypeScript, C++, Go and Java bots need their builds (`make examples`) and
the bridge's bash bot needs jq: without them a test skips with one line saying what to run,
except under CI (the variable CI set), where it fails.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from e2ekit import ROOT, check_ready, example, require

EX = ROOT / "examples"


def node_missing(*built: Path) -> str | None:
    if shutil.which("node") is None:
        return "node (apt-get install nodejs npm)"
    missing = [str(p.relative_to(ROOT)) for p in built if not p.exists()]
    return ", ".join(missing) or None


def built(program: Path) -> str | None:
    return None if os.access(program, os.X_OK) else str(program.relative_to(ROOT))


def bash_and_jq() -> str | None:
    return None if shutil.which("bash") and shutil.which("jq") else "bash and jq (apt-get install jq)"


EXAMPLES = {
    "python-random": (example("random_bot.py"), lambda: None),
    "python-heuristic": (example("heuristic_bot.py"), lambda: None),
    "node": (f"node {EX / 'node' / 'random_bot.js'}",
             lambda: node_missing(ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js")),
    "ts": (f"node {EX / 'ts' / 'dist' / 'random_bot.js'}", lambda: node_missing(EX / "ts" / "dist" / "random_bot.js")),
    "cpp": (str(EX / "cpp" / "build" / "random_bot"), lambda: built(EX / "cpp" / "build" / "random_bot")),
    "go": (str(EX / "go" / "build" / "random_bot"), lambda: built(EX / "go" / "build" / "random_bot")),
    "java": (str(EX / "java" / "build" / "random_bot"), lambda: built(EX / "java" / "build" / "random_bot")),
    "bridge": (f"python -m cardarena.server.cli bridge -- bash {EX / 'bridge' / 'random_bot.sh'}", bash_and_jq),
}


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_example_bot_is_ready(name, workdir):
    command, missing = EXAMPLES[name]
    found = missing()
    require([found] if found else [])
    check_ready(command, workdir)
