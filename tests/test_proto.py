"""The protocol's own checks: `buf lint` with proto/buf.yaml, and `buf breaking` so that a bot
written today keeps working (fields are only ever added).

The breaking check compares proto/ as it is (a working tree included) with proto/ on the branch
main, and, where the history has one, with the commit before HEAD (in CI the clone is main
itself, so the parent commit is what the last change is held against). buf comes from PyPI's
buf-bin (.ci/run installs it into the venv); without it these tests skip, except under CI.
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


def git_has(ref: str) -> bool:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return False
    r = run("git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if r.returncode != 0:
        return False
    tree = run("git", "ls-tree", "--name-only", f"{ref}:proto/cardarena/v1")
    return tree.returncode == 0 and ".proto" in tree.stdout


def test_buf_lint(buf):
    r = run(buf, "lint", cwd=PROTO)
    assert r.returncode == 0, r.stdout + r.stderr


def test_no_breaking_change_against_main(buf):
    against = []
    if git_has("refs/heads/main"):
        against.append("branch=main")
    elif git_has("refs/remotes/origin/main"):
        against.append("ref=refs/remotes/origin/main")
    if git_has("HEAD~1"):
        against.append("ref=HEAD~1")
    if not against and git_has("HEAD"):  # a lone commit (a shallow clone of main): itself
        against.append("ref=HEAD")
    if not against:
        if os.environ.get("CI"):
            pytest.fail("CI runs in a git clone of main, but git finds no commit with proto/ in it")
        pytest.skip("not a git checkout with a main branch")
    for ref in against:
        r = run(buf, "breaking", "proto", "--against", f".git#{ref},subdir=proto")
        assert r.returncode == 0, f"breaking change against {ref}:\n{r.stdout}{r.stderr}"


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
