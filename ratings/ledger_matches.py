"""The ledger's matches: made outside a schedule (``play``, the arena), recorded with their
ratings in one transaction (once only), and read back: listings, one match whole, its log
as stored. A match's seed and salt are public only once its deal is spent (``deal_spent``).
Design notes: docs/ledger.md ("Recording a match").
"""
from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlmodel import select

from cardarena.server import deal

from . import rating as rules
from . import summary
from .models import (
    AD_HOC, FINISHED, KINDS, LEAGUE, RUNNING, SCHEDULED, Bot, League, Match, MatchDetail, MatchInfo,
    MatchLog, RatingChange, RatingHistory, Seat, utcnow,
)
from .ledger_base import (
    ID_MAX, LedgerError, _EVENTS_HEAD, _LISTED, _STEPS_HEAD, _bot, _check_seed, _commit_deals,
    _jsonable, _known, _match, _matches_statement, _seat, _status, _steps_of, log_text, pack_events,
    pack_steps,
)


#: A match's deal as played (a match scheduled before deals had commitments gets them when played).
_DEAL_VALUES = dict(deal_salt=func.coalesce(_match.deal_salt, bindparam("deal_salt")),
                    deal_commitment=func.coalesce(_match.deal_commitment, bindparam("deal_commitment")))


_FINISH = (update(Match.__table__)
           .where(_match.id == bindparam("match_id"), _match.status.in_((SCHEDULED, RUNNING)))
           .values(status=FINISHED, finished_at=bindparam("finished_at"), duration_s=bindparam("duration_s"),
                   result_details=bindparam("result_details"), **_DEAL_VALUES)
           .returning(_match.game))


#: record_match's status change for a leased match: only while it is the worker's (docs/ledger.md, "Leases").
_FINISH_LEASED = (update(Match.__table__)
                  .where(_match.id == bindparam("match_id"), _match.status == RUNNING,
                         _match.worker == bindparam("held_by"))
                  .values(status=FINISHED, finished_at=bindparam("finished_at"), duration_s=bindparam("duration_s"),
                          result_details=bindparam("result_details"), **_DEAL_VALUES)
                  .returning(_match.game))


_SEATED = (select(_seat.bot_id, _bot.name).join_from(Seat.__table__, Bot.__table__, _bot.id == _seat.bot_id)
           .where(_seat.match_id == bindparam("match_id")).order_by(_seat.seat))


_SEAT_RESULT = (update(Seat.__table__)
                .where(_seat.match_id == bindparam("m"), _seat.seat == bindparam("s"))
                .values(score=bindparam("score"), place=bindparam("place"), faults=bindparam("faults"),
                        forfeited=bindparam("forfeited")))


#: ``Ledger.match``'s four statements (parameter ``match_id``).
_MATCH = select(*_LISTED, _match.duration_s, _match.result_details, _match.claimed_at).where(
    _match.id == bindparam("match_id"))


_MATCH_SEATS = (select(_seat.bot_id, _seat.score, _seat.place, _seat.faults, _seat.forfeited, _bot.name)
                .join_from(Seat.__table__, Bot.__table__, _bot.id == _seat.bot_id)
                .where(_seat.match_id == bindparam("match_id")).order_by(_seat.seat))


_MATCH_LOG = select(MatchLog.__table__.c.events, MatchLog.__table__.c.steps).where(
    MatchLog.__table__.c.match_id == bindparam("match_id"))


_MATCH_HISTORY = (select(*(RatingHistory.__table__.c[k] for k in ("seat", "bot_id", "game", "rated", "mu_before",
                                                                   "sigma_before", "mu", "sigma")))
                  .where(RatingHistory.__table__.c.match_id == bindparam("match_id"))
                  .order_by(RatingHistory.__table__.c.seat))


_LOG_INSERT = insert(MatchLog.__table__)



def _absent(details, seats) -> list[bool]:
    """Per seat of a match, whether it was absent (``rating.absent_seats``; a forfeited seat)."""
    named = rules.absent_seats((details or {}).get("faults"))
    return [bool(s.forfeited) and i in named for i, s in enumerate(seats)]


class MatchesMixin:
    """Matches: made, recorded, listed and read."""

    def create_match(self, game: str, seed: int, options: Mapping[str, Any], bots: Sequence[str],
                     league_id: int | None = None, kind: str | None = None, *,
                     claim_for: str | None = None, lease_s: float | None = None,
                     deal_salt: str | None = None) -> int:
        """A match outside a league's schedule (status ``scheduled``): ``kind`` ``match`` (the
        default; ``play --record``), ``ladder`` (the arena) or, with ``league_id``, ``league``;
        ``bots`` in seat order. Returns its id.

        With ``claim_for`` (a worker's name) it is made already claimed by that worker on a lease
        of ``lease_s`` seconds, in the same transaction: the arena's matches are never seen
        ``scheduled``, so a server killed between making a match and claiming it leaves nothing
        that only a clock can tell from a match about to start. ``deal_salt``: the salt of its
        deal's commitment (a new one from the CSPRNG if not given)."""
        kind = kind or (LEAGUE if league_id is not None else AD_HOC)
        if kind not in KINDS:
            raise LedgerError(f"a match's kind is one of {', '.join(KINDS)}, not {kind!r}")
        if not game:
            raise LedgerError("a match needs a game")
        if not bots:
            raise LedgerError("a match needs bots")
        _check_seed(seed)
        if league_id is not None:
            _known("league", league_id)
        with self._write() as session:
            if league_id is not None and session.get(League, league_id) is None:
                raise LedgerError(f"no league {league_id}")
            ids = self._bot_ids(session, bots)
            match = Match(league_id=league_id, game=game, seed=seed, options=dict(options), kind=kind,
                          deal_salt=deal_salt or deal.new_salt())
            session.add(match)
            session.flush()
            _commit_deals(session, [match])
            session.add_all([Seat(match_id=match.id, seat=s, bot_id=ids[b]) for s, b in enumerate(bots)])
            if claim_for is not None:
                session.flush()
                self._claim(session, match.id, claim_for, lease_s)
            return match.id

    def record_match(self, match_id: int, *, scores: Sequence[float], places: Sequence[int],
                     faults: Sequence[int], forfeited: Sequence[bool], steps: Sequence[Mapping],
                     events: Sequence[Mapping], result_details: Mapping[str, Any] | None = None,
                     duration_s: float = 0.0, worker: str | None = None, deal_salt: str | None = None,
                     deal_commitment: str | None = None) -> list[RatingChange]:
        """Record a finished match and rate it, in one transaction (docs/ledger.md, "Recording a match").

        Returns each seat's rating change (``rated`` False for a self-play or an absent seat:
        a forfeited seat with a fault-log entry of kind ``absent``, ``rating.absent_seats``). With
        ``worker``, only while the match is running on that worker's claim: a worker whose lease
        ran out and was taken over gets a :class:`LedgerError` and nothing is written.
        ``deal_salt`` and ``deal_commitment``: the deal as played, kept only where the match had
        none (one scheduled before deals had commitments).
        """
        n = len(places)
        if not (len(scores) == len(faults) == len(forfeited) == n):
            raise LedgerError(f"match {match_id}: {len(scores)} scores, {n} places, {len(faults)} faults "
                              f"and {len(forfeited)} forfeits; one of each per seat")
        if any(isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= n for p in places):
            raise LedgerError(f"match {match_id}: places must be integers from 1 to {n}, not {list(places)}")
        if any(not isinstance(step, Mapping) for step in steps):
            raise LedgerError(f"match {match_id}: each step must be a dict of choices by seat")
        # Serialise before the transaction, so the write lock is held only for the writes.
        try:
            events_blob, steps_blob = pack_events(events), pack_steps(steps)
            details = json.loads(json.dumps(dict(result_details or {}), default=_jsonable))
        except (TypeError, ValueError) as exc:
            raise LedgerError(f"match {match_id}: the log is not JSON: {exc}") from None
        results = [{"m": match_id, "s": s, "score": float(score), "place": int(place),
                    "faults": int(fault), "forfeited": bool(forfeit)}
                   for s, (score, place, fault, forfeit) in enumerate(zip(scores, places, faults, forfeited))]
        places = [int(p) for p in places]
        absent = rules.absent_seats(details.get("faults"))
        if any(not 0 <= s < n or not results[s]["forfeited"] for s in absent):
            raise LedgerError(f"match {match_id}: absent seats {sorted(absent)} must be seats that forfeited "
                              f"(forfeited: {[bool(f) for f in forfeited]})")

        with self._write() as session:
            # The status first: only one transaction can move a match to "finished".
            finish = {"match_id": match_id, "finished_at": utcnow(), "duration_s": float(duration_s),
                      "result_details": details, "deal_salt": deal_salt, "deal_commitment": deal_commitment}
            if worker is None:
                game = session.execute(_FINISH, finish).scalar()
            else:
                game = session.execute(_FINISH_LEASED, {**finish, "held_by": worker}).scalar()
            if game is None:
                raise LedgerError(self._not_held(session, match_id, worker, "recorded"))
            seated = session.execute(_SEATED, {"match_id": match_id}).all()
            if len(seated) != n:
                raise LedgerError(f"match {match_id} has {len(seated)} seats, not {n}")
            session.execute(_SEAT_RESULT, results)

            # The ratings: lock the rows of the match's bots, update them, log their history.
            bot_ids = [bot_id for bot_id, _ in seated]
            changes = self._rate(session, game, match_id, bot_ids, places, absent)
            # The bots' summaries, under the same lock of the game (ratings/summary.py).
            summary.record(session.connection(), game, [(b, r["s"], r["place"], r["faults"], r["forfeited"])
                                                        for b, r in zip(bot_ids, results)], details)

            # The log last: its seq is taken once the rating rows are held (the replay order).
            session.execute(_LOG_INSERT, {"match_id": match_id, "events": events_blob, "steps": steps_blob})
        names = dict(seated)
        return [RatingChange(s, names[b], game, rated, mb, sb, m, sg)
                for s, (b, rated, mb, sb, m, sg) in enumerate(changes)]

    def matches(self, league_id: int | None = None, game: str | None = None, limit: int | None = 50,
                status: str | None = None, bot: str | None = None, kind: str | None = None,
                as_json: bool = False) -> list[MatchInfo] | list[dict]:
        """Matches, the newest first, filtered by league, game, status, bot and kind (league,
        ladder, match); with ``as_json`` each as its ``MatchInfo.to_json()``, built straight from
        the rows (no MatchInfo made: the web's listings).

        Two queries whatever the limit (the matches, then their seats); a bot's matches come
        from its seats' index (``seat (bot_id, match_id)``), newest first, so a page of them
        costs the same in a ledger of any size."""
        if status is not None:
            status = _status(status)
        if kind is not None and kind not in KINDS:
            raise LedgerError(f"a match's kind is one of {', '.join(KINDS)}, not {kind!r}")
        if league_id is not None and not 1 <= league_id <= ID_MAX:
            return []  # no league can have that id (:data:`ID_MAX`), so no match of it
        q = _matches_statement(league_id is not None, game is not None, status is not None, kind is not None,
                               bot is not None, limit is not None)
        with self._read() as session:
            conn = session.connection()
            params = {"league_id": league_id, "game": game, "status": status, "kind": kind, "limit": limit}
            if bot is not None:
                params["bot_id"] = self._bot_id(session, bot)
            rows = conn.execute(q, params).all()
            return self._infos(session, rows, as_json=as_json)

    def match(self, match_id: int) -> MatchDetail:
        """Everything recorded of one match, the event log and steps decompressed (four indexed
        queries of columns, built once; the time is the log's decompression and parsing, in
        proportion to its size)."""
        return self._match(match_id)[0]

    def match_log_text(self, match_id: int) -> tuple[MatchDetail, bytes, bytes]:
        """:meth:`match`, and its steps and event log as the JSON text of their lists, cut out of
        the stored form (:func:`log_text`), for an answer that sends them whole: the same JSON
        as ``json.dumps(detail.steps)`` and ``json.dumps(detail.events)`` (compact, non-ASCII
        characters escaped), without encoding them again (a long match's log is most of its
        answer's encoding time)."""
        return self._match(match_id, texts=True)

    def _match(self, match_id: int, texts: bool = False) -> tuple[MatchDetail, bytes | None, bytes | None]:
        key = {"match_id": _known("match", match_id)}
        with self._read() as session:
            conn = session.connection()
            m = conn.execute(_MATCH, key).first()
            if m is None:
                raise LedgerError(f"no match {match_id}")
            seats = conn.execute(_MATCH_SEATS, key).all()
            log = conn.execute(_MATCH_LOG, key).first()
            history = conn.execute(_MATCH_HISTORY, key).all()
        names = {s.bot_id: s.name for s in seats}
        log = log if log and log.steps and log.events else None  # a pruned match keeps an empty row (its seq)
        steps_json, events_json = (zlib.decompress(log.steps), zlib.decompress(log.events)) if log else (None, None)
        steps = _steps_of(json.loads(steps_json)) if log else []
        events = json.loads(events_json)["events"] if log else []
        detail = MatchDetail(
            id=m.id, game=m.game, seed=m.seed, options=dict(m.options), status=m.status,
            bots=[s.name for s in seats], scores=[s.score for s in seats],
            places=[s.place for s in seats], league_id=m.league_id, round=m.round, index=m.position,
            duplicate_set=m.duplicate_set, created_at=m.created_at, finished_at=m.finished_at,
            fail_reason=m.fail_reason, kind=m.kind, deal_commitment=m.deal_commitment, deal_salt=m.deal_salt,
            deal_spent=bool(m.spent), pruned_at=m.pruned_at, faults=[s.faults for s in seats],
            forfeited=[s.forfeited for s in seats], absent=_absent(m.result_details, seats),
            steps=steps, events=events,
            result_details=dict(m.result_details or {}), duration_s=m.duration_s, claimed_at=m.claimed_at,
            rating_changes=[RatingChange(h.seat, names.get(h.bot_id, "?"), h.game, h.rated, h.mu_before,
                                         h.sigma_before, h.mu, h.sigma) for h in history])
        if not texts:
            return detail, None, None
        return detail, log_text(steps_json, _STEPS_HEAD, steps), log_text(events_json, _EVENTS_HEAD, events)
