"""Fixtures shared by the tests: a ledger of the test's own (SQLite, or PostgreSQL under the switch),
the CLI in-process, and a throwaway PostgreSQL server.

The switch: ``CARDARENA_TEST_LEDGER=postgresql`` (default ``sqlite``) makes every ledger the tests
make a fresh database on the throwaway cluster (tests/pgserver.py) instead of a SQLite file; a test
asks for one with ``ledger_url()`` (or ``new_ledger(folder)`` in a session fixture, or ``db`` for the
CLI) and says nothing about the backend. ``make test-postgres`` runs, under the switch, the tests
marked ``ledger`` (every test whose fixtures make a ledger, marked here from their use of
``new_ledger``, unless marked ``sqlite``, a variant about SQLite itself, or ``any_ledger``, a test
whose subject is not the ledger: bots in other languages, the referee's conduct) and ``postgres`` (those
that ask for the cluster itself: ``pg_cluster``, ``postgres_url``); ``make test-sqlite`` runs all
but the ``postgres`` ones.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from cardarena.server.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pgserver  # noqa: E402

BACKEND = os.environ.get("CARDARENA_TEST_LEDGER", "sqlite")
if BACKEND not in ("sqlite", "postgresql"):
    raise pytest.UsageError(f"CARDARENA_TEST_LEDGER must be sqlite or postgresql, not {BACKEND!r}")


def _stopped(signum, frame):
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def pytest_configure(config):
    # A SIGTERM (a timeout, CI stopping the run) ends the run as Ctrl-C does, so every fixture's
    # teardown still runs: the throwaway PostgreSQL server, servers and bot processes are stopped.
    signal.signal(signal.SIGTERM, _stopped)
    # A run started in the background (`make test &`, nohup) inherits SIGINT ignored, and so would
    # every CLI it starts: the tests that Ctrl-C one would see it ignore the signal. A handler
    # here gives every child the default again (exec resets handlers, never an ignored signal).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line("markers", "ledger: the test makes a ledger (run again on PostgreSQL by make test-postgres)")
    config.addinivalue_line("markers", "postgres: the test asks for the PostgreSQL cluster itself")
    config.addinivalue_line("markers", "sqlite: a variant about SQLite itself (not marked ledger though it has one)")
    config.addinivalue_line("markers", "any_ledger: the ledger is not what is tested (not marked ledger: one pass)")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (its own hook)
def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "new_ledger" in used and not (item.get_closest_marker("sqlite") or item.get_closest_marker("any_ledger")):
            item.add_marker("ledger")
        if used & {"pg_cluster", "postgres_url"}:
            item.add_marker("postgres")
        group = _shared(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def _shared(item) -> str | None:
    """The tests that share costly fixtures run on one worker of pytest-xdist (``--dist
    loadgroup``), so each fixture is made once: tests/web's session ones (a played league, the
    browser), a class's or a module's own (a served arena, a proto image)."""
    path = Path(str(item.path))
    if path.parent.name == "web":
        return "web"
    scopes = {d.scope for defs in getattr(item, "_fixtureinfo").name2fixturedefs.values() for d in defs}
    if "class" in scopes and item.cls is not None:
        return f"{item.nodeid.split('::')[0]}::{item.cls.__name__}"
    if "module" in scopes:
        return item.nodeid.split("::")[0]
    return None


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL server for the run (tests/pgserver.py); skips (fails under CI) without one."""
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


@pytest.fixture(scope="session")
def new_ledger(request):
    """``new_ledger(folder, name="ledger") -> URL``: a new, empty ledger: ``folder/name.db``, or
    under ``CARDARENA_TEST_LEDGER=postgresql`` a new database on :func:`pg_cluster`."""
    cluster = request.getfixturevalue("pg_cluster") if BACKEND == "postgresql" else None

    def make(folder: Path, name: str = "ledger") -> str:
        return cluster.new_database() if cluster else str(Path(folder) / f"{name}.db")
    return make


@pytest.fixture
def ledger_url(new_ledger, tmp_path):
    """``ledger_url(name="ledger") -> URL``: a ledger of this test (:func:`new_ledger` in its
    temporary folder); the same name gives the same ledger, another name another one."""
    made: dict[str, str] = {}

    def url(name: str = "ledger") -> str:
        if name not in made:
            made[name] = new_ledger(tmp_path, name)
        return made[name]
    return url


@pytest.fixture
def db(ledger_url, tmp_path, monkeypatch) -> str:
    """A ledger's URL (:func:`ledger_url`), also in CARDARENA_DB, with the temporary folder as the
    working directory."""
    where = ledger_url("cli")
    monkeypatch.setenv("CARDARENA_DB", where)
    monkeypatch.chdir(tmp_path)
    return where


@pytest.fixture
def cli(capsys):
    """``cli(*argv) -> (exit code, stdout, stderr)``: the `cardarena` command as a user runs it."""
    def run(*argv):
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run
