"""The ledger's read models for the web: a bot's page in one session, its summaries and match
durations, and the fingerprint a reader caches rating tables under. Every read selects
columns, never table objects. Design notes: docs/ledger.md ("Reads for the web").
"""
from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import bindparam, func
from sqlmodel import select


from .models import FINISHED, BotInfo, BotState, BotSummary, Match, MatchInfo, MatchLog, RatingHistory, Seat
from .ledger_base import (
    LedgerError, _aware, _bot, _match, _matches_statement, _seat,
)


class BotPage(NamedTuple):
    """What ``Ledger.bot_page`` reads of a bot, in one session."""
    info: BotInfo
    state: BotState
    recent: list[MatchInfo] | list[dict]  # its latest matches, newest first (as JSON with ``as_json``)
    summaries: dict[str, dict]  # game → its row of ``bot_summary`` (``Ledger.bot_summaries``)
    durations: list[float] | None  # the durations (s) of its finished matches, one per seat
    version: tuple  # ``Ledger.version()`` as of the same read


#: A bot by name with its state (``bot_page``): id, name, created, owner, paused, benched until, why.
_BOT_PAGE = select(_bot.id, _bot.name, _bot.created_at, _bot.owner, _bot.paused, _bot.benched_until,
                   _bot.bench_reason).where(_bot.name == bindparam("name"))


#: ``version``'s fingerprint: the last recorded match's ``seq``, the last rating-history row's id.
_VERSION = select(select(func.max(MatchLog.seq)).scalar_subquery(),
                  select(func.max(RatingHistory.id)).scalar_subquery())


_SUMMARIES = (select(*BotSummary.__table__.c).where(BotSummary.__table__.c.bot_id == bindparam("bot_id"))
              .order_by(BotSummary.__table__.c.game))


_DURATIONS = (select(_match.duration_s).join_from(Seat.__table__, Match.__table__, _match.id == _seat.match_id)
              .where(_seat.bot_id == bindparam("bot_id"), _match.status == FINISHED))



class ReadsMixin:
    """The web's reads of a bot and the ledger's fingerprint."""

    def bot_summaries(self, name: str) -> tuple[dict[str, dict], list[float]]:
        """A bot's summary per game (``bot_summary``'s rows by game, :mod:`.summary`: derived from
        its finished seats, kept by ``record_match``) and the durations (s) of its finished
        matches, one per seat (:meth:`match_durations`), for the bot's web page: two indexed
        queries, whatever the number of its matches; its matches' details are never read."""
        with self._read() as session:
            conn, bot_id = session.connection(), self._bot_id(session, name)
            return self._summaries(conn, bot_id), self._durations(conn, bot_id)

    def match_durations(self, name: str) -> list[float]:
        """The durations (s) of a bot's finished matches, one per seat, those recorded with one:
        one indexed query, but a row of each of its matches read (the time of a bot's page that
        grows with its matches: the web keeps their quantiles, ``server/web/api.py``)."""
        with self._read() as session:
            return self._durations(session.connection(), self._bot_id(session, name))

    @staticmethod
    def _summaries(conn, bot_id: int) -> dict[str, dict]:
        return {r.game: dict(r._mapping) for r in conn.execute(_SUMMARIES, {"bot_id": bot_id})}

    @staticmethod
    def _durations(conn, bot_id: int) -> list[float]:
        return [d for (d,) in conn.execute(_DURATIONS, {"bot_id": bot_id}).all() if d is not None]

    def bot_page(self, name: str, recent: int, durations: bool = True, as_json: bool = False) -> BotPage:
        """Everything the web reads of the ledger for a bot's page and API answer, in one session
        (each session costs as much as a small query): the bot and its state, its ``recent``
        latest matches (``matches(bot=name, as_json=as_json)``), its summaries, its match
        durations unless not asked for (``bot_summaries``; None then) and the ledger's
        ``version``, as :class:`BotPage`. At most six statements, each indexed, whatever the
        number of its matches."""
        with self._read() as session:
            conn = session.connection()
            row = conn.execute(_BOT_PAGE, {"name": name}).first()
            if row is None:
                raise LedgerError(f"no bot named {name!r}")
            bot_id, name, created, owner, paused, until, reason = row
            version = tuple(conn.execute(_VERSION).one())
            q, params = _matches_statement(False, False, False, False, True, True), {"bot_id": bot_id, "limit": recent}
            return BotPage(BotInfo(bot_id, name, created, owner),
                           BotState(name, owner, bool(paused), _aware(until), reason),
                           self._infos(session, conn.execute(q, params).all(), as_json=as_json),
                           self._summaries(conn, bot_id), self._durations(conn, bot_id) if durations else None,
                           version)

    def version(self) -> tuple:
        """A cheap fingerprint of what the ratings are derived from: (the last recorded match's
        ``seq``, the last rating-history row's id). It changes whenever a match is recorded or
        the ratings are recomputed into new rows; two equal fingerprints mean equal rating
        tables and lines, so a reader may cache those under it (the web does). Two indexed
        ``max()`` lookups, whatever the ledger's size."""
        with self._read() as session:
            return tuple(session.connection().execute(_VERSION).one())
