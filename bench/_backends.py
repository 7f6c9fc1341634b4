"""The ledgers that bench/ledger.py and bench/league.py measure side by side, one column each.

``--db`` (repeatable, or a comma list; default ``sqlite,postgresql``) names them:

- ``sqlite``: SQLite files in a temporary folder (the ledger's own settings: WAL, synchronous
  NORMAL, a 30 s busy timeout);
- a SQLite file or ``sqlite:///…`` URL: SQLite files made in that file's folder (its disk is
  what is measured), removed afterwards;
- ``postgresql``: a throwaway PostgreSQL server for this run, tests/pgserver.py's ``Cluster``
  (Debian's ``initdb``/``pg_ctl``, on 127.0.0.1 on a free port; as root it runs as the
  ``postgres`` user), removed afterwards. Its settings are the tests': ``fsync``,
  ``synchronous_commit`` and ``full_page_writes`` off, so a commit waits for no disk (as
  SQLite's synchronous NORMAL in WAL mode waits for none); a server of yours pays a WAL flush
  per commit;
- ``postgresql://USER@HOST/DB``: a server of yours; every ledger is a new schema of that
  database (``CREATE SCHEMA``, chosen by the URL's ``search_path``; the user needs CREATE on
  the database), dropped afterwards.

Every measurement takes a fresh, empty ledger (:meth:`Backend.new`), so the backends are
measured alike. :func:`side_by_side` prints the figures, one column a backend, with the ratio
of every column to the first. The machine may be shared: :func:`load` says how busy it was.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = "sqlite,postgresql"
#: the CLI as a user runs it, in a new process (``cardarena …``)
CLI = [sys.executable, "-m", "cardarena.server.cli"]
#: how a figure of each unit is printed
FORMATS = {"ms": "{:.2f} ms", "s": "{:.1f} s", "/s": "{:.2f}/s", "MB": "{:.1f} MB", "": "{:,.0f}", "load": "{:.2f}"}


def parser(doc: str) -> argparse.ArgumentParser:
    """The bench script's argument parser: its description (the docstring's first line), ``--db``
    and ``--quick``; the script adds its own sizes."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--db", action="append", metavar="URL",
                   help=f"a ledger to measure: sqlite, postgresql (a throwaway server), a SQLite file or a "
                        f"postgresql:// URL; repeat, or a comma list (default {DEFAULT})")
    p.add_argument("--quick", action="store_true", help="small sizes: the whole run in about a minute")
    return p


@dataclass
class Backend:
    """One column: a database and how to make a fresh ledger on it."""
    name: str
    new: Callable[[], str]  # a fresh, empty ledger's --db (a file path or an SQLAlchemy URL)
    kind: str = "sqlite"  # or "postgresql"
    made: list[str] = field(default_factory=list)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def column() -> dict:
    """A backend's figures, label → (value, unit), opened with the load average as it starts."""
    return {"load average (1 min) before": (os.getloadavg()[0], "load")}


def _files(folder: Path, backend: Backend, stack: contextlib.ExitStack) -> Callable[[], str]:
    """New SQLite files in ``folder``, each a ledger; removed (with their WAL) when the stack closes."""
    numbers = itertools.count(1)

    def new() -> str:
        path = folder / f"bench-{os.getpid()}-{next(numbers)}.db"
        backend.made.append(str(path))
        return str(path)

    def remove() -> None:
        for path in backend.made:
            for suffix in ("", "-wal", "-shm"):
                Path(path + suffix).unlink(missing_ok=True)
    stack.callback(remove)
    return new


def _schemas(url: str, backend: Backend, stack: contextlib.ExitStack) -> Callable[[], str]:
    """New schemas of the database of ``url``, each a ledger; dropped when the stack closes."""
    import psycopg
    from sqlalchemy.engine import make_url

    from cardarena.ratings.ledger import database_url
    base = make_url(database_url(url))
    connect = dict(host=base.host, port=base.port, user=base.username, password=base.password, dbname=base.database)
    numbers = itertools.count(1)

    def new() -> str:
        name = f"bench_{os.getpid()}_{next(numbers)}"
        with psycopg.connect(**connect, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        backend.made.append(name)
        options = " ".join(filter(None, [base.query.get("options"), f"-csearch_path={name}"]))
        return base.update_query_dict({"options": options}).render_as_string(hide_password=False)

    def drop() -> None:
        with psycopg.connect(**connect, autocommit=True) as conn:
            for name in backend.made:
                conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    stack.callback(drop)
    return new


@contextlib.contextmanager
def backends(args: argparse.Namespace) -> Iterator[list[Backend]]:
    """The backends ``--db`` names, ready; a throwaway server is stopped and every ledger made
    is removed on leaving."""
    names = [n.strip() for value in (args.db or [DEFAULT]) for n in value.split(",") if n.strip()]
    with contextlib.ExitStack() as stack:
        found = []
        for name in names:
            if name.split("://")[0].split("+")[0] in ("postgresql", "postgres"):
                b = Backend("PostgreSQL", lambda: "", "postgresql")
                if "://" in name:
                    b.new = _schemas(name, b, stack)
                else:
                    sys.path.insert(0, str(ROOT / "tests"))
                    import pgserver
                    why = pgserver.missing()
                    if why:
                        raise SystemExit(f"--db postgresql: no throwaway server here ({why}); "
                                         "give --db sqlite, or --db postgresql://… of a server")
                    cluster = pgserver.Cluster()
                    stack.callback(cluster.close)
                    b.new = cluster.new_database
            else:
                b = Backend("SQLite", lambda: "")
                if name == "sqlite":
                    folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
                else:
                    folder = Path(name.removeprefix("sqlite:///") if name.startswith("sqlite:") else name)
                    folder = folder.expanduser().resolve().parent
                b.new = _files(folder, b, stack)
            same = sum(x.kind == b.kind for x in found)
            if same:
                b.name += f" #{same + 1}"
            found.append(b)
        yield found


def size_mb(ledger) -> float:
    """The ledger's size on disk: the SQLite file and its WAL, or the PostgreSQL schema's tables
    with their indexes and TOAST."""
    from sqlalchemy import text
    if ledger.engine.dialect.name == "sqlite":
        path = Path(ledger.engine.url.database)
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()) / 1e6
    with ledger.engine.connect() as c:
        return float(c.execute(text("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                                    "WHERE n.nspname = current_schema() AND c.relkind = 'r'")).scalar()) / 1e6


def side_by_side(title: str, backends: list[Backend], columns: list[dict[str, tuple]]) -> None:
    """Print the figures: ``columns[i]`` is backend i's, label → (value, unit) (a unit of
    :data:`FORMATS`; a text value is printed as it is). With two or more backends, the ratio of
    each to the first follows (``PostgreSQL / SQLite``), for the times, speeds and sizes."""
    labels = list(dict.fromkeys(label for col in columns for label in col))
    head = [b.name for b in backends]
    ratios = [f"{b.name} / {backends[0].name}" for b in backends[1:]]

    def cell(col: dict, label: str) -> str:
        if label not in col:
            return "—"
        value, unit = col[label]
        return value if isinstance(value, str) else FORMATS[unit].format(value)

    def ratio(col: dict, label: str) -> str:
        first = columns[0].get(label)
        if label not in col or first is None or isinstance(first[0], str) or isinstance(col[label][0], str) \
                or not first[0] or first[1] in ("", "load"):
            return ""
        return f"{col[label][0] / first[0]:.2f}×"

    rows = [[label, *(cell(c, label) for c in columns), *(ratio(c, label) for c in columns[1:])] for label in labels]
    widths = [max(len(r[i]) for r in [["", *head, *ratios], *rows]) for i in range(len(rows[0]) if rows else 1)]
    print(f"\n{title}")
    for r in [["", *head, *ratios], *rows]:
        print("  " + r[0].ljust(widths[0]) + "".join("  " + v.rjust(w) for v, w in zip(r[1:], widths[1:])))
