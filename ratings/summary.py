"""The bots' summaries: per bot and game, the sums a bot's web page shows over its finished seats.

A summary is *derived*, never a fact: it is what the finished matches' seats and details add up
to, kept so that a bot's page reads a few rows instead of every match the bot ever played. One
row of ``bot_summary`` (:class:`~cardarena.ratings.models.BotSummary`) per bot and game in which
it has finished a seat: its seats, wins, sum of places, faults (also by kind), forfeits and
merged decision-latency histogram.

How it is kept: ``Ledger.record_match`` adds the match's seats (:func:`record`) in the match's
own transaction, after the game's lock, so two matches of a game never update one row at once;
nothing else writes it. It is rebuilt from the facts (:func:`rebuild`: ``Ledger.recompute``, the
migration ``0004``), and ``Ledger.check`` compares it with them (:func:`from_facts`).

Design notes and measurements: docs/ledger.md (summary).
"""
from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import String, bindparam, case, cast, delete, func, insert, literal, null, select, update
from sqlalchemy.engine import Connection

from .models import FINISHED, BotSummary, Match, Seat

_sum, _match, _seat = BotSummary.__table__.c, Match.__table__.c, Seat.__table__.c
COUNTS = ("seats", "wins", "place_sum", "faults", "forfeits", "latency_seats")


def empty(bot_id: int, game: str) -> dict[str, Any]:
    """A summary of no seat, as a row of ``bot_summary``."""
    return {"bot_id": bot_id, "game": game, **dict.fromkeys(COUNTS, 0), "fault_kinds": {}, "latency": {}}


def seat_histogram(details: Any, seat: int) -> dict | None:
    """The seat's latency histogram in a match's details, None when none was recorded."""
    hists = details.get("latency") if isinstance(details, Mapping) else None
    hist = hists[seat] if isinstance(hists, list) and 0 <= seat < len(hists) else None
    return hist if isinstance(hist, dict) else None


def add(row: dict, seat: int, place: int | None, faults: int | None, forfeited: bool | None,
        fault_log: Any, histogram: dict | None) -> None:
    """Add one finished seat to a summary row (module docstring). ``fault_log`` is read only when
    the seat has faults or forfeited (an absent seat's forfeit is counted as the kind ``absent``);
    ``histogram`` is the seat's (None: not recorded)."""
    from cardarena.server.latency import merge
    row["seats"] += 1
    row["wins"] += place == 1
    row["place_sum"] += place or 0
    row["faults"] += faults or 0
    row["forfeits"] += bool(forfeited)
    if (faults or forfeited) and isinstance(fault_log, list):
        kinds = row["fault_kinds"]
        for f in fault_log:
            if isinstance(f, Mapping) and f.get("seat") == seat and f.get("kind") != "forfeit":
                kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    if histogram is not None:
        row["latency_seats"] += 1
        total = merge([row["latency"], histogram])
        row["latency"] = {str(b): total[b] for b in sorted(total)}


@functools.cache
def _facts_statement(sqlite: bool, by_game: bool):
    """Every finished seat with what a summary needs (parameter ``game`` if ``by_game``). On
    SQLite the fault log and the seat's histogram are cut out of the details by the database
    (``json_extract``, as JSON text), so a rebuild never parses a whole match's details."""
    if sqlite:
        path = literal("$.latency[") + cast(_seat.seat, String) + literal("]")
        logged = (_seat.faults > 0) | _seat.forfeited.is_(True)  # the seats whose fault log add() reads
        cut = (case((logged, func.json_extract(_match.result_details, "$.faults")), else_=null()),
               func.json_extract(_match.result_details, path))
    else:
        cut = (_match.result_details,)
    q = (select(_seat.bot_id, _match.game, _seat.seat, _seat.place, _seat.faults, _seat.forfeited, *cut)
         .join_from(Seat.__table__, Match.__table__, _match.id == _seat.match_id)
         .where(_match.status == FINISHED))
    return q.where(_match.game == bindparam("game")) if by_game else q


def _parsed(text: Any) -> Any:
    return json.loads(text) if isinstance(text, str) and text[:1] in "[{" else None


def from_facts(conn: Connection, game: str | None = None) -> dict[tuple[int, str], dict]:
    """The summaries the finished matches give (of one game, or all), by (bot id, game)."""
    sqlite = conn.dialect.name == "sqlite"
    out: dict[tuple[int, str], dict] = {}
    for bot_id, g, seat, place, faults, forfeited, *cut in conn.execute(
            _facts_statement(sqlite, game is not None), {"game": game}):
        if sqlite:
            fault_log, hist = _parsed(cut[0]), _parsed(cut[1])
            hist = hist if isinstance(hist, dict) else None
        else:
            details = cut[0] if isinstance(cut[0], dict) else {}
            fault_log, hist = details.get("faults"), seat_histogram(details, seat)
        row = out.get((bot_id, g))
        if row is None:
            row = out[bot_id, g] = empty(bot_id, g)
        add(row, seat, place, faults, forfeited, fault_log, hist)
    return out


def rebuild(conn: Connection, game: str | None = None) -> int:
    """Write the summaries again from the facts (of one game, or all); returns the rows written."""
    rows = from_facts(conn, game)
    wipe = delete(BotSummary.__table__)
    conn.execute(wipe if game is None else wipe.where(_sum.game == game))
    if rows:
        conn.execute(insert(BotSummary.__table__), list(rows.values()))
    return len(rows)


_READ = (select(*BotSummary.__table__.c).where(_sum.game == bindparam("game"),
                                                _sum.bot_id.in_(bindparam("bot_ids", expanding=True))))
_UPDATE = (update(BotSummary.__table__).where(_sum.bot_id == bindparam("b"), _sum.game == bindparam("g"))
           .values({k: bindparam(k) for k in (*COUNTS, "fault_kinds", "latency")}))


def record(conn: Connection, game: str, seats: Iterable[tuple[int, int, int, int, bool]], details: Mapping) -> None:
    """Add a match just recorded: its seats as (bot id, seat, place, faults, forfeited) and its
    result details. Called inside ``record_match``'s transaction, after the game's lock."""
    seats = list(seats)
    have = {r.bot_id: dict(r._mapping) for r in conn.execute(_READ, {"game": game,
                                                                    "bot_ids": sorted({s[0] for s in seats})})}
    new = {}
    for bot_id, seat, place, faults, forfeited in seats:
        row = have.get(bot_id) or new.get(bot_id)
        if row is None:
            row = new[bot_id] = empty(bot_id, game)
        add(row, seat, place, faults, forfeited, details.get("faults"), seat_histogram(details, seat))
    if have:
        conn.execute(_UPDATE, [{"b": r.pop("bot_id"), "g": r.pop("game"), **r} for r in have.values()])
    if new:
        conn.execute(insert(BotSummary.__table__), list(new.values()))
