"""The ledger's schema version and its migrations (Alembic, ``ratings/migrations/``).

Every ledger carries its schema version in Alembic's ``alembic_version`` table. A ledger made by
the first release (0.1.0) has no such table: it is at revision ``0001``. :data:`HEAD` is the
version this cardarena writes; :data:`RELEASES` gives the versions by release.

* A new, empty database is made at :data:`HEAD` directly, in one transaction.
* A ledger at another version is refused by every command with one line that says to run
  ``cardarena ledger upgrade`` (:class:`LedgerVersionError`), which runs the migrations from its
  version to :data:`HEAD` (:func:`upgrade`), on SQLite and PostgreSQL alike. A ledger of a newer
  cardarena is refused the same way, and cannot be upgraded here.

Writing a migration: add ``versions/NNNN_what.py`` with ``revision = "NNNN"`` and
``down_revision`` the previous one, make :data:`HEAD` that revision and ``models.py`` match it,
and add a ledger of the release before it under tests/fixtures to the upgrade test.

Design notes and measurements: docs/ledger.md (schema).
"""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

# SQLAlchemy is imported where it is used: the light read of the rating table (table.py) needs
# HEAD and version_of without it.

HEAD = "0007"
FIRST = "0001"
#: Which cardarena wrote each schema version (for the messages; module docstring).
RELEASES = {"0001": "cardarena 0.1.0", "0002": "a development build of cardarena 0.2.0", "0003": "cardarena 0.2.0",
            "0004": "a development build after cardarena 0.2.0",
            "0005": "a development build after cardarena 0.2.0",
            "0006": "a development build after cardarena 0.2.0",
            "0007": "a development build after cardarena 0.2.0"}
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "alembic_version"


@cache
def _version():
    from sqlalchemy import Column, MetaData, String, Table
    return Table(VERSION_TABLE, MetaData(), Column("version_num", String(32), primary_key=True))


def _named(version: str) -> str:
    release = RELEASES.get(version)
    return f"{version} ({release})" if release else version


def current(conn: Connection) -> str | None:
    """The schema version of the database, ``None`` if it holds no ledger at all."""
    from sqlalchemy import inspect, select
    tables = set(inspect(conn).get_table_names())
    rows = [r[0] for r in conn.execute(select(_version().c.version_num))] if VERSION_TABLE in tables else []
    return version_of(tables, rows)


def version_of(tables: set[str], rows: list[str]) -> str | None:
    """The schema version of a database with these ``tables`` and these rows of its version table."""
    if "bot" not in tables:
        return None
    if VERSION_TABLE not in tables:
        return FIRST
    return rows[0] if len(rows) == 1 else FIRST if not rows else ",".join(sorted(rows))


def stamp_head(conn: Connection) -> None:
    """Write :data:`HEAD` as the version of a ledger just made from ``models.py``."""
    from sqlalchemy.exc import IntegrityError
    _version().create(conn, checkfirst=True)
    try:
        with conn.begin_nested():
            conn.execute(_version().insert().values(version_num=HEAD))
    except IntegrityError:  # made at the same moment by another process, which stamped it
        pass


def refusal(where: str, version: str) -> str:
    """The one line for a ledger at another version than :data:`HEAD`."""
    if version in RELEASES and list(RELEASES).index(version) < list(RELEASES).index(HEAD):
        return (f"the ledger {where} is at schema version {_named(version)}; this cardarena needs {_named(HEAD)}: "
                f"back it up, then run `cardarena ledger upgrade --db {where}`")
    return (f"the ledger {where} is at schema version {version}, which this cardarena (schema {_named(HEAD)}) "
            "does not know: it was made by a newer cardarena; use that one")


def _config(conn: Connection):
    from alembic.config import Config
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    return config


def upgrade(engine: Engine) -> tuple[str, str]:
    """Migrate the ledger to :data:`HEAD`; returns (the version it was at, HEAD).

    ValueError if it holds no ledger or is of a version this cardarena does not know."""
    from alembic import command
    from sqlalchemy import inspect
    with engine.connect() as conn:
        was = current(conn)
    if was is None:
        raise ValueError("there is no ledger here to upgrade (a new ledger is made at the current version)")
    if was not in RELEASES:
        raise ValueError(f"schema version {was} is not one this cardarena knows: it was made by a newer cardarena")
    if was == HEAD:
        return was, HEAD
    with engine.begin() as conn:
        if VERSION_TABLE not in inspect(conn).get_table_names():
            command.stamp(_config(conn), FIRST)  # a ledger of the first release
        command.upgrade(_config(conn), "head")
    return was, HEAD


def version_text(conn: Connection) -> str:
    """The version, for `ledger upgrade` and messages."""
    v = current(conn)
    return "none" if v is None else _named(v)
