"""The rating table's rows, and their light read: ``cardarena ratings`` in a new process.

:class:`RatingRow` is one line of a rating table (:mod:`.models` and the package export it too).
:func:`ratings_query` is the one query of the table, over the ``rating``, ``bot`` and
``bot_summary`` tables (a bot with no rated match has no row; its absent matches are counted
apart), in plain SQL that both the plain ``sqlite3`` driver and SQLAlchemy (:meth:`Ledger.ratings`,
on SQLite and PostgreSQL) run; :func:`ranked` orders and ranks its rows by the rating rules (rule
8 of :mod:`.rating`: μ − 3σ, then μ, then the bot's name; ranks count within each game).

:func:`read_sqlite` reads the table of a SQLite ledger file with the plain driver, read-only:
no SQLAlchemy, SQLModel, pydantic or Alembic (their imports are most of a short command's time).
It answers only for a ledger at this cardarena's schema version (:data:`.schema.HEAD`, read from
the ``alembic_version`` row); for anything else (another version, no ledger, a file the driver
cannot read) it answers None, and the caller opens the :class:`Ledger`, which refuses or says
what failed in its own words. This module imports nothing beyond the standard library at load.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RatingRow:
    """One line of a rating table."""

    rank: int
    bot: str
    game: str
    mu: float
    sigma: float
    conservative: float  # μ − 3σ, the number the table is sorted by
    matches: int
    wins: int
    mean_place: float  # over the rated matches
    absent: int = 0  # the matches of the game it was absent from: not rated, not in ``matches``

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ratings_query(game: str | None) -> tuple[str, dict]:
    """The table's query and its parameters: (game, μ, σ, matches, wins, place sum, bot name,
    the bot's fault kinds in the game) of every bot with rated matches, of one game or of all
    (named ``:game`` parameter: both drivers). The fault kinds (``bot_summary.fault_kinds``, JSON)
    count its absent seats (:func:`absent_count`)."""
    sql = ("SELECT rating.game, rating.mu, rating.sigma, rating.matches, rating.wins, rating.place_sum, bot.name, "
           "bot_summary.fault_kinds FROM rating JOIN bot ON bot.id = rating.bot_id "
           "LEFT JOIN bot_summary ON bot_summary.bot_id = rating.bot_id AND bot_summary.game = rating.game "
           "WHERE rating.matches > 0")
    return (sql, {}) if game is None else (sql + " AND rating.game = :game", {"game": game})


def absent_count(fault_kinds: Any) -> int:
    """The absent seats in a bot's fault kinds (a summary's ``fault_kinds``: a dict, or its JSON
    text as SQLite gives it; None for no summary)."""
    if isinstance(fault_kinds, str):
        if '"absent"' not in fault_kinds:  # most bots: no JSON to parse
            return 0
        fault_kinds = json.loads(fault_kinds)
    count = fault_kinds.get("absent", 0) if isinstance(fault_kinds, dict) else 0
    return count if isinstance(count, int) else 0


def ranked(rows: Iterable[tuple]) -> list[RatingRow]:
    """The rows of :func:`ratings_query` as the rating table: by game, best conservative rating first."""
    from .rating import conservative
    rows = sorted(rows, key=lambda r: (r[0], -conservative(r[1], r[2]), -r[1], r[6]))
    table, rank, last_game = [], 0, None
    for g, mu, sigma, matches, wins, place_sum, name, fault_kinds in rows:
        rank = rank + 1 if g == last_game else 1
        last_game = g
        table.append(RatingRow(rank, name, g, mu, sigma, conservative(mu, sigma), matches, wins,
                               place_sum / matches if matches else 0.0, absent_count(fault_kinds)))
    return table


def read_sqlite(path: Path, game: str | None = None) -> list[RatingRow] | None:
    """The rating table of the SQLite ledger file at ``path`` (module docstring), or None when
    the plain driver cannot give it: then open the :class:`Ledger`."""
    import sqlite3

    from .schema import HEAD, VERSION_TABLE, version_of
    try:
        # Not ?mode=ro: a read-only connection cannot remove the -wal and -shm files it makes, and a
        # command that only reads leaves nothing behind. This one only reads.
        conn = sqlite3.connect(Path(path).resolve().as_uri(), uri=True, timeout=30)
    except sqlite3.Error:
        return None
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        versions = ([r[0] for r in conn.execute(f"SELECT version_num FROM {VERSION_TABLE}")]
                    if VERSION_TABLE in tables else [])
        if version_of(tables, versions) != HEAD:
            return None
        return ranked(conn.execute(*ratings_query(game)))
    except sqlite3.Error:
        return None
    finally:
        conn.close()
