"""Hosted bots' versions as the public pages and API show them: which versions a bot has (one
query a bot page) and which lines of a leaderboard are versions in what state (one query a
page), never one query per row. Public: a version's name, number, state, dates, finished matches
and ratings; never its files, commands, build log or match logs (the owner's: :mod:`.owner`).
Design notes: docs/web.md (Hosted bots).
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import NamedTuple

from sqlalchemy import bindparam, func, or_, select

from cardarena.ratings.models import Bot, BotSummary, BotVersion

_v = BotVersion.__table__.c
_parent = Bot.__table__.alias("parent")
_player = Bot.__table__.alias("player")
_summary = BotSummary.__table__.c

#: the bot's id by name (the unique index of ``bot.name``)
_ID = select(Bot.__table__.c.id).where(Bot.__table__.c.name == bindparam("name")).scalar_subquery()
#: a version's finished seats: the sum of its summaries' (one row a game), as ``VersionInfo.matches``
_SEATS = (select(func.coalesce(func.sum(_summary.seats), 0)).where(_summary.bot_id == _v.player_id)
          .scalar_subquery())
#: the versions of the bot ``name``, or the version ``name`` itself, oldest first
_OF = (select(_parent.c.name, _player.c.name, _v.number, _v.state, _v.created_at, _v.built_at, _SEATS)
       .join_from(BotVersion.__table__, _parent, _parent.c.id == _v.bot_id)
       .join(_player, _player.c.id == _v.player_id)
       .where(or_(_v.bot_id == _ID, _v.player_id == _ID)).order_by(_v.number))
#: which of ``names`` are versions: their bot, number and state
_STATES = (select(_player.c.name, _parent.c.name, _v.number, _v.state)
           .join_from(BotVersion.__table__, _player, _player.c.id == _v.player_id)
           .join(_parent, _parent.c.id == _v.bot_id)
           .where(_player.c.name.in_(bindparam("names", expanding=True))))


class Hosted(NamedTuple):
    """What the public sees of a bot's hosting: its versions (``[]`` for a bot never submitted)
    and, for a version's own bot row ``NAME@K``, which bot and version it is (else None)."""
    versions: list[dict]
    version_of: dict | None


def iso(when: datetime | None) -> str | None:
    """A time of the ledger (SQLite gives naive UTC ones) in ISO 8601, to the second."""
    if when is None:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat(timespec="seconds")


def _rating_json(r: dict) -> dict:
    return {k: r[k] for k in ("game", "rank", "mu", "sigma", "conservative", "matches")}


def hosted(ledger, name: str, by_bot: dict[str, list[dict]]) -> Hosted:
    """The versions of ``name`` or the version ``name`` is, in one indexed query; ``by_bot``:
    the rating rows by bot (``api.tables(...).by_bot``), which give each version's ratings."""
    with ledger._read() as session:
        rows = session.connection().execute(_OF, {"name": name}).all()
    version_of = next(({"bot": bot, "version": number, "state": state}
                       for bot, player, number, state, *_ in rows if player == name), None)
    if version_of is not None:  # a version has none of its own
        return Hosted([], version_of)
    return Hosted([{"name": player, "version": number, "state": state, "created_at": iso(created),
                    "built_at": iso(built), "matches": int(seats),
                    "ratings": [_rating_json(r) for r in by_bot.get(player, ())]}
                   for _, player, number, state, created, built, seats in rows], None)


def states(ledger, names: Sequence[str]) -> dict[str, tuple[str, int, str]]:
    """Which of ``names`` are versions of hosted bots: name → (its bot, its number, its state);
    one query (a leaderboard page's)."""
    if not names:
        return {}
    with ledger._read() as session:
        rows = session.connection().execute(_STATES, {"names": list(names)}).all()
    return {player: (bot, number, state) for player, bot, number, state in rows}
