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


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL server for the run (tests/pgserver.py); skips (fails under CI) without one."""
    import os
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import pgserver
    why = pgserver.missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests: {why}")
        pytest.skip(why)
    cluster = pgserver.Cluster()
    yield cluster
    cluster.close()


@pytest.fixture
def postgres_url(pg_cluster) -> str:
    """The URL of a new, empty PostgreSQL database on :func:`pg_cluster`."""
    return pg_cluster.new_database()
