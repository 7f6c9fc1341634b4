"""The protocol's own checks: `buf lint` with proto/buf.yaml, and `buf breaking` so that a bot
written today keeps working (fields are only ever added).

The breaking check compares proto/ as it is with proto/published.json, the published contract
(a buf image, committed; `make proto-publish` refreshes it after fields are added). buf comes from
PyPI's buf-bin (.ci/run installs it into the venv); without it these tests skip, except under CI.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "proto"


def buf_path() -> str | None:
    local = Path(sys.executable).parent / "buf"
    if local.exists():
        return str(local)
    return shutil.which("buf")


@pytest.fixture(scope="module")
def buf() -> str:
    path = buf_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have the buf CLI (pip install buf-bin; .ci/run does)")
        pytest.skip("the buf CLI is not installed (pip install buf-bin)")
    return path


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=120)


def test_buf_lint(buf):
    r = run(buf, "lint", cwd=PROTO)
    assert r.returncode == 0, r.stdout + r.stderr


def test_no_breaking_change_against_the_published_protocol(buf):
    """proto/published.json is the contract bots are written against (a buf image of every
    message and field). proto/ as it is may only add to it: `make proto-publish` records the
    additions once they are part of the protocol."""
    r = run(buf, "breaking", "proto", "--against", "proto/published.json")
    assert r.returncode == 0, f"breaking change against proto/published.json:\n{r.stdout}{r.stderr}"


def test_no_generated_accessor_clashes():
    """A repeated field ``x`` gets accessors ``x_size()`` / ``x_count`` in C++ and other
    generators; a field with such a name beside it would not compile there."""
    import re
    for path in (PROTO / "cardarena" / "v1").glob("*.proto"):
        for block in re.findall(r"message\s+\w+\s*\{(.*?)\n\}", path.read_text(encoding="utf-8"), re.S):
            names = set(re.findall(r"^\s*(?:repeated\s+|optional\s+)?[\w.]+\s+(\w+)\s*=", block, re.M))
            repeated = set(re.findall(r"^\s*repeated\s+[\w.]+\s+(\w+)\s*=", block, re.M))
            for field in repeated:
                assert f"{field}_size" not in names and f"{field}_count" not in names, (path.name, field)


def test_breaking_check_catches_a_removed_and_a_renamed_field(buf, tmp_path):
    """The check can fail: a copy of proto/ without SixthCardView.decks and with
    Answer.choice renamed is rejected against proto/ as it is."""
    copy = tmp_path / "proto"
    shutil.copytree(PROTO / "cardarena", copy / "cardarena")
    shutil.copy(PROTO / "buf.yaml", copy / "buf.yaml")
    sixth = copy / "cardarena" / "v1" / "sixth_card.proto"
    text = sixth.read_text(encoding="utf-8")
    assert "int32 decks = 3;" in text
    sixth.write_text(text.replace("int32 decks = 3;", ""), encoding="utf-8")
    referee = copy / "cardarena" / "v1" / "referee.proto"
    text = referee.read_text(encoding="utf-8")
    assert "int32 choice = 4;" in text
    referee.write_text(text.replace("int32 choice = 4;", "int32 pick = 4;"), encoding="utf-8")
    r = run(buf, "breaking", str(copy), "--against", str(PROTO))
    assert r.returncode != 0
    assert "decks" in r.stdout and "choice" in r.stdout, r.stdout + r.stderr
