"""Fixtures shared by the CLI tests: a ledger file in a temporary folder, and the CLI in-process."""
from __future__ import annotations

import pytest

from cardarena.server.cli import main


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A ledger path, also in CARDARENA_DB, with the temporary folder as the working directory."""
    path = tmp_path / "cli.db"
    monkeypatch.setenv("CARDARENA_DB", str(path))
    monkeypatch.chdir(tmp_path)
    return path


@pytest.fixture
def cli(capsys):
    """``cli(*argv) -> (exit code, stdout, stderr)``: the `cardarena` command as a user runs it."""
    def run(*argv):
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run
