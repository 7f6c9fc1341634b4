"""A throwaway PostgreSQL server for the tests: Debian's ``postgresql`` binaries (``initdb``,
``pg_ctl``), one cluster per test run in a temporary folder, listening on 127.0.0.1 on a free
port only, with a fresh, empty ledger database per test (a schema of its own: :meth:`Cluster.new_database`).
A test may :meth:`Cluster.stop` the server and :meth:`Cluster.start` it again on the same port with
its data (a database that goes away for a while); the folder is removed by :meth:`Cluster.close`,
or at the latest when the test run ends.

Without the binaries (or psycopg, the ``postgres`` extra) the PostgreSQL variants of the tests
skip with one line saying what to install; under CI (``CI`` set) they fail instead, so CI always
runs them (``python tests/pgserver.py`` prints that line, or nothing: the Makefile's check). As root (CI machines, containers) the cluster runs as the ``postgres`` user that
Debian's package makes, since PostgreSQL refuses to run as root.
"""
from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

INSTALL = "apt-get install postgresql; pip install 'cardarena[postgres]'"


def _bindir() -> Path | None:
    for found in (shutil.which("pg_ctl"), *sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)):
        if found and Path(found).exists():
            return Path(found).resolve().parent
    return None


def missing() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    if _bindir() is None:
        return f"no PostgreSQL server binaries (initdb, pg_ctl): {INSTALL}"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return f"no psycopg: {INSTALL}"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One running cluster; :meth:`new_database` gives a URL of an empty database on it."""

    def __init__(self):
        bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="cardarena-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._user = None
        if os.geteuid() == 0:
            self._user = "postgres"
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "postgres")
        self._removed = weakref.finalize(self, shutil.rmtree, str(self.root), True)
        self.bindir = bindir
        self._run([str(bindir / "initdb"), "-D", str(self.data), "-U", "cardarena", "--auth=trust",
                   "--encoding=UTF8", "--locale=C", "-N"])
        self.start()
        self._names = itertools.count(1)
        self._shared = False

    def start(self) -> None:
        """Start the server (again, after :meth:`stop`: same port, same databases); returns
        once it accepts connections."""
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                   "-t", "60", "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                                     "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                                     "-c max_connections=200", "start"])

    def _run(self, argv: list[str]) -> None:
        if self._user:
            argv = ["runuser", "-u", self._user, "--", *argv]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip() or r.stdout.strip()}")

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://cardarena@127.0.0.1:{self.port}/postgres"

    def new_database(self) -> str:
        """A new empty ledger database; its SQLAlchemy URL. Each is a schema of one shared database
        (``CREATE SCHEMA`` takes a millisecond, ``CREATE DATABASE`` half a second), chosen by the
        URL's ``search_path``: every connection of that URL sees only its own tables."""
        import psycopg
        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user="cardarena", dbname="postgres",
                             autocommit=True) as conn:
            if not self._shared:
                conn.execute('CREATE DATABASE "cardarena_tests"')
                self._shared = True
        with psycopg.connect(host="127.0.0.1", port=self.port, user="cardarena", dbname="cardarena_tests",
                             autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return f"postgresql+psycopg://cardarena@127.0.0.1:{self.port}/cardarena_tests?options=-csearch_path%3D{name}"

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``: every connection is cut, as a crash or a
        restart cuts them), keeping its data for :meth:`start`."""
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def close(self) -> None:
        """Stop the server if it runs and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            self._removed()


if __name__ == "__main__":  # `python tests/pgserver.py` prints why the PostgreSQL tests cannot run here, if so
    print(missing() or "", end="")
