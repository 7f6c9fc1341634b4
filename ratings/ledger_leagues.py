"""The ledger's leagues and leases: a league written whole before play, its matches claimed
(on leases when several workers share it), released, failed, reset and retried.

A claim is an atomic ``UPDATE … WHERE status = 'scheduled'`` (or a lease run out); on
PostgreSQL the next match is taken ``FOR UPDATE SKIP LOCKED``. Lease times are the
database's clock. Design notes: docs/ledger.md ("Leases").
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import func, insert, update
from sqlmodel import Session, select

from cardarena.server import deal

from . import rating as rules
from .models import (
    FAILED, FINISHED, LEAGUE, RUNNING, SCHEDULED, STATUSES, Bot, League, LeagueInfo, Match,
    MatchInfo, MatchPlan, Seat, SeatResults, utcnow,
)
from .ledger_base import (
    LedgerError, _LISTED, _aware, _check_seed, _commit_deals, _known, _match, _status,
)



class LeaguesMixin:
    """Leagues, and the claims and leases of their matches."""

    def fail_running_matches(self, kind: str, reason: str, alive: Callable[[str], bool] | None = None,
                             mine: str | None = None) -> int:
        """The running (or scheduled) matches of ``kind`` that a gone process left behind, marked
        failed; how many. For ladder matches (never played again from their seeds). Without
        ``alive``, every one. With it (several servers on one ledger), only those claimed
        without a worker, whose lease has run out, or whose worker ``alive(worker)`` says is gone;
        never those of the worker ``mine`` (the caller's own: it knows what it plays, and a
        renewal of its own that came late on a busy machine does not make its matches gone)."""
        with self._write() as session:
            q = select(_match.id, _match.status, _match.created_at, _match.worker, _match.lease_until,
                       _match.lease_until < self._now()).where(_match.kind == kind,
                                                                _match.status.in_((SCHEDULED, RUNNING)))
            settled = utcnow() - timedelta(seconds=60)  # ledgers of before claim_for: claimed right after

            def gone(status, created, worker, until, expired) -> bool:
                if alive is None:
                    return True
                if status == SCHEDULED:
                    return _aware(created) < settled
                if mine is not None and worker == mine:
                    return False
                return worker is None or until is None or bool(expired) or not alive(worker)
            ids = [row[0] for row in session.execute(q) if gone(*row[1:])]
            if not ids:
                return 0
            return session.execute(update(Match.__table__).where(_match.id.in_(ids), _match.status.in_(
                (SCHEDULED, RUNNING))).values(status=FAILED, fail_reason=reason, finished_at=utcnow())).rowcount

    def create_league(self, game: str, options: Mapping[str, Any], settings: Mapping[str, Any],
                      plans: Sequence[MatchPlan]) -> int:
        """Write a league and all its matches (status ``scheduled``) in one transaction."""
        if not game:
            raise LedgerError("a league needs a game")
        self._check_plans(plans)
        with self._write() as session:
            league = League(game=game, options=dict(options), settings=dict(settings))
            session.add(league)
            session.flush()
            self._insert_matches(session, league.id, game, options, plans)
            return league.id

    def add_matches(self, league_id: int, plans: Sequence[MatchPlan]) -> None:
        """Write more matches of a league (status ``scheduled``: a round ``league run
        --until-separated`` adds) in one transaction, with the league's game and options. Two
        processes adding the same round cannot both succeed: (league, round, index) is unique."""
        lg = self.league(league_id)
        self._check_plans(plans)
        with self._write() as session:
            self._insert_matches(session, league_id, lg.game, lg.options, plans)

    @staticmethod
    def _check_plans(plans: Sequence[MatchPlan]) -> None:
        for plan in plans:
            _check_seed(plan.seed)
            if not plan.bots:
                raise LedgerError(f"match {plan.round}.{plan.index} of the league has no bots")
        keys = [(p.round, p.index) for p in plans]
        if len(set(keys)) != len(keys):
            raise LedgerError("two matches of the league have the same round and index")

    def _insert_matches(self, session: Session, league_id: int, game: str, options: Mapping[str, Any],
                        plans: Sequence[MatchPlan]) -> None:
        ids = self._bot_ids(session, (b for p in plans for b in p.bots))
        matches = [Match(league_id=league_id, game=game, seed=p.seed, options=dict(options), kind=LEAGUE,
                         round=p.round, index=p.index, duplicate_set=p.duplicate_set, deal_salt=deal.new_salt())
                   for p in plans]
        session.add_all(matches)
        session.flush()
        _commit_deals(session, matches)
        seats = [{"match_id": m.id, "seat": s, "bot_id": ids[b]}
                 for m, p in zip(matches, plans) for s, b in enumerate(p.bots)]
        if seats:
            session.execute(insert(Seat), seats)

    def leagues(self) -> list[LeagueInfo]:
        with self._read() as session:
            rows = session.exec(select(League).order_by(League.id)).all()
            counts = self._status_counts(session, None)
            return [self._league_info(lg, counts.get(lg.id)) for lg in rows]

    def league(self, league_id: int) -> LeagueInfo:
        _known("league", league_id)
        with self._read() as session:
            lg = session.get(League, league_id)
            if lg is None:
                raise LedgerError(f"no league {league_id}")
            return self._league_info(lg, self._status_counts(session, league_id).get(league_id))

    @staticmethod
    def _status_counts(session: Session, league_id: int | None) -> dict[int, dict[str, int]]:
        q = select(Match.league_id, Match.status, func.count()).where(Match.league_id.is_not(None))
        if league_id is not None:
            q = q.where(Match.league_id == league_id)
        counts: dict[int, dict[str, int]] = defaultdict(dict)
        for lid, status, n in session.exec(q.group_by(Match.league_id, Match.status)):
            counts[lid][status] = n
        return counts

    @staticmethod
    def _league_info(lg: League, counts: dict[str, int] | None) -> LeagueInfo:
        counts = counts or {}
        return LeagueInfo(lg.id, lg.game, dict(lg.options), dict(lg.settings), lg.created_at,
                          {s: counts.get(s, 0) for s in STATUSES})

    def league_matches(self, league_id: int, status: str | None = None) -> list[MatchInfo]:
        """The league's matches in schedule order (round, index), optionally of one status."""
        _known("league", league_id)
        with self._read() as session:
            if session.get(League, league_id) is None:
                raise LedgerError(f"no league {league_id}")
            q = select(*_LISTED).where(Match.league_id == league_id)
            if status is not None:
                q = q.where(Match.status == _status(status))
            q = q.order_by(Match.round, Match.index, Match.id)
            return self._infos(session, session.execute(q).all(),
                               (Seat.match_id.in_(select(Match.id).where(Match.league_id == league_id))))

    def reset_stale(self, league_id: int | None = None, older_than_s: float | None = None) -> int:
        """Put ``running`` matches (of a league, or all) back to ``scheduled``; returns how many.

        Call it when no other process is playing them, or give ``older_than_s`` to reset only
        matches claimed longer ago than that. A match reset while still being played cannot be
        counted twice: the second ``record_match`` is refused.
        """
        stmt = update(Match).where(Match.status == RUNNING)
        if league_id is not None:
            stmt = stmt.where(Match.league_id == league_id)
        if older_than_s is not None:
            stmt = stmt.where(Match.claimed_at < utcnow() - timedelta(seconds=older_than_s))
        with self._write() as session:
            return session.execute(stmt.values(status=SCHEDULED, claimed_at=None, worker=None,
                                               lease_until=None)).rowcount

    def counts(self) -> dict[str, Any]:
        """How much the ledger holds: bots, leagues, and matches by status."""
        with self._read() as session:
            by_status = dict(session.execute(select(Match.status, func.count()).group_by(Match.status)).all())
            return {"bots": session.execute(select(func.count()).select_from(Bot)).scalar() or 0,
                    "leagues": session.execute(select(func.count()).select_from(League)).scalar() or 0,
                    "matches": {s: by_status.get(s, 0) for s in STATUSES}}

    def match_ids(self, status: str | None = None, league_id: int | None = None) -> list[int]:
        """The ids of the matches (of a status, of a league), in id order: cheap for any ledger size."""
        with self._read() as session:
            q = select(Match.id)
            if status is not None:
                q = q.where(Match.status == _status(status))
            if league_id is not None:
                q = q.where(Match.league_id == league_id)
            return list(session.exec(q.order_by(Match.id)).all())

    def rest_of_set_finished(self, match_id: int) -> bool:
        """Every other match that shares this match's deal (its duplicate set) is finished, so
        its deal is spent once this one is (a match of no set: True)."""
        with self._read() as session:
            m = session.get(Match, _known("match", match_id))
            if m is None:
                raise LedgerError(f"no match {match_id}")
            if m.duplicate_set is None:
                return True
            left = session.execute(select(func.count()).select_from(Match.__table__).where(
                _match.league_id == m.league_id, _match.duplicate_set == m.duplicate_set,
                _match.id != match_id, _match.status != FINISHED)).scalar()
            return not left

    def release_match(self, match_id: int, worker: str | None = None) -> bool:
        """``running`` → ``scheduled`` for one match whose play was interrupted (Ctrl-C), so a
        resume (or another worker) plays it again from its seed; False if it was not running
        (with ``worker``: not running on that worker's claim)."""
        with self._write() as session:
            stmt = update(Match).where(Match.id == match_id, Match.status == RUNNING)
            if worker is not None:
                stmt = stmt.where(Match.worker == worker)
            result = session.execute(stmt.values(status=SCHEDULED, claimed_at=None, worker=None, lease_until=None))
            return result.rowcount == 1

    def retry_failed(self, league_id: int) -> int:
        """Put a league's ``failed`` matches back to ``scheduled`` (they hold no result and no
        rating); returns how many."""
        _known("league", league_id)
        with self._write() as session:
            if session.get(League, league_id) is None:
                raise LedgerError(f"no league {league_id}")
            return session.execute(update(Match).where(Match.league_id == league_id, Match.status == FAILED)
                                   .values(status=SCHEDULED, claimed_at=None, fail_reason=None,
                                           finished_at=None, worker=None, lease_until=None)).rowcount

    def league_results(self, league_id: int) -> list[SeatResults]:
        """Every match of a league in schedule order with its seats' results (no logs): the
        input of :func:`cardarena.ratings.standings.standings`."""
        _known("league", league_id)
        with self._read() as session:
            if session.get(League, league_id) is None:
                raise LedgerError(f"no league {league_id}")
            q = (select(Match.id, Match.round, Match.index, Match.duplicate_set, Match.seed, Match.status,
                        Seat.seat, Bot.name, Seat.score, Seat.place, Seat.faults, Seat.forfeited)
                 .join(Seat, Seat.match_id == Match.id).join(Bot, Bot.id == Seat.bot_id)
                 .where(Match.league_id == league_id)
                 .order_by(Match.round, Match.index, Match.id, Seat.seat))
            out: list[SeatResults] = []
            for mid, rnd, idx, dup, seed, status, _seat, name, score, place, faults, forfeited in session.execute(q):
                if not out or out[-1].match_id != mid:
                    out.append(SeatResults(mid, rnd, idx, dup, seed, status, [], [], [], [], [], []))
                r = out[-1]
                r.bots.append(name)
                r.scores.append(score)
                r.places.append(place)
                r.faults.append(faults)
                r.forfeited.append(forfeited)
                r.absent.append(False)
            # the absent seats: read from the fault logs of the matches with a forfeited seat only
            forfeits = (select(Match.id, Match.result_details)
                        .where(Match.league_id == league_id, Match.status == FINISHED,
                               Match.id.in_(select(Seat.match_id).where(Seat.forfeited.is_(True)))))
            logs = {mid: rules.absent_seats((details or {}).get("faults"))
                    for mid, details in session.execute(forfeits)}
            for r in out:
                for s in logs.get(r.match_id, ()):
                    if 0 <= s < len(r.absent) and r.forfeited[s]:
                        r.absent[s] = True
            return out

    def _now(self):
        """Now in UTC, as lease times are compared: the database's clock on PostgreSQL (the same
        for every worker's machine), this machine's on SQLite."""
        return utcnow() if self._sqlite else func.timezone("UTC", func.now())

    def _lease_until(self, lease_s: float | None):
        """When a lease taken or renewed now for ``lease_s`` seconds runs out; None: no lease."""
        if lease_s is None:
            return None
        if self._sqlite:
            return utcnow() + timedelta(seconds=float(lease_s))
        return func.timezone("UTC", func.now() + func.make_interval(0, 0, 0, 0, 0, 0, float(lease_s)))

    def _claimable(self):
        """A match any worker may claim: scheduled, or running on a lease that has run out."""
        return (Match.status == SCHEDULED) | ((Match.status == RUNNING) & (Match.lease_until < self._now()))

    def _claim(self, session: Session, match_id: int, worker: str | None, lease_s: float | None) -> bool:
        result = session.execute(update(Match).where(Match.id == match_id, self._claimable())
                                 .values(status=RUNNING, claimed_at=utcnow(), worker=worker,
                                         lease_until=self._lease_until(lease_s)))
        return result.rowcount == 1

    def claim_match(self, match_id: int, worker: str | None = None, lease_s: float | None = None) -> bool:
        """``scheduled`` → ``running``, atomically; False if the match was not claimable (neither
        scheduled nor running on a lease that has run out). With ``lease_s``, ``worker`` holds it
        on a lease of that many seconds."""
        with self._write() as session:
            return self._claim(session, match_id, worker, lease_s)

    def claim_next(self, league_id: int, worker: str | None = None, lease_s: float | None = None) -> MatchInfo | None:
        """Claim the league's first claimable match in schedule order (a scheduled one, or one
        whose lease ran out: it is played again from its seed); ``None`` if none is left. On
        PostgreSQL the row is taken ``FOR UPDATE SKIP LOCKED``: a row another worker is claiming
        is passed over, not waited for."""
        while True:
            with self._write() as session:
                q = (select(Match.id).where(Match.league_id == league_id, self._claimable())
                     .order_by(Match.round, Match.index, Match.id).limit(1))
                if not self._sqlite:
                    q = q.with_for_update(skip_locked=True)
                match_id = session.execute(q).scalar()
                if match_id is None:
                    return None
                if not self._claim(session, match_id, worker, lease_s):
                    continue  # another worker was faster; try the next
                match = session.execute(select(*_LISTED).where(Match.id == match_id)).one()
                return self._infos(session, [match], Seat.match_id == match_id)[0]

    def renew_leases(self, worker: str, match_ids: Iterable[int], lease_s: float) -> list[int]:
        """Renew the leases ``worker`` holds on these matches for ``lease_s`` seconds from now;
        returns the ids still its own (a match missing was claimed by another worker once its
        lease had run out, or is no longer running)."""
        ids = sorted(set(match_ids))
        if not ids:
            return []
        with self._write() as session:
            return sorted(session.execute(
                update(Match.__table__).where(_match.id.in_(ids), _match.status == RUNNING, _match.worker == worker)
                .values(lease_until=self._lease_until(lease_s)).returning(_match.id)).scalars())

    def others_playing(self, league_id: int, worker: str | None = None) -> int:
        """The league's running matches that other workers than ``worker`` hold on a lease
        (those that may yet run out and be claimable); matches claimed without a lease are not
        counted (they wait for `league resume`)."""
        with self._read() as session:
            q = select(func.count()).select_from(Match).where(Match.league_id == league_id, Match.status == RUNNING,
                                                             Match.lease_until.is_not(None))
            if worker is not None:
                q = q.where(Match.worker != worker)
            return session.execute(q).scalar() or 0

    def release_unplayed(self, league_id: int, worker: str, playing: Iterable[int] = ()) -> int:
        """Put back to ``scheduled`` the league's matches ``worker`` holds but is not ``playing``:
        a claim whose commit went through while its answer was lost (the database cut off
        mid-way), which the worker then claimed again as another match. Returns how many."""
        stmt = update(Match).where(Match.league_id == league_id, Match.status == RUNNING, Match.worker == worker)
        playing = sorted(set(playing))
        if playing:
            stmt = stmt.where(Match.id.not_in(playing))
        with self._write() as session:
            return session.execute(stmt.values(status=SCHEDULED, claimed_at=None, worker=None,
                                               lease_until=None)).rowcount

    def fail_match(self, match_id: int, reason: str, worker: str | None = None) -> None:
        """Status ``failed`` (no result, no rating change), for a scheduled or running match;
        with ``worker``, only while the match is that worker's (as ``record_match``)."""
        with self._write() as session:
            stmt = update(Match).where(Match.id == match_id, Match.status.in_((SCHEDULED, RUNNING)))
            if worker is not None:
                stmt = stmt.where(Match.status == RUNNING, Match.worker == worker)
            result = session.execute(stmt.values(status=FAILED, fail_reason=str(reason), finished_at=utcnow()))
            if result.rowcount != 1:
                raise LedgerError(self._not_held(session, match_id, worker, "failed"))

    def _not_held(self, session: Session, match_id: int, worker: str | None, verb: str) -> str:
        """Why ``worker`` could not record (or fail) a match: taken over, or not open."""
        row = session.execute(select(Match.status, Match.worker).where(Match.id == match_id)).first()
        if worker is None or row is None or row.status not in (RUNNING, FINISHED) or row.worker is None:
            return self._not_open(session, match_id, verb)
        if row.worker == worker:
            return f"match {match_id} is {row.status} already, by this worker ({worker})"
        return (f"match {match_id} was claimed by worker {row.worker} once the lease of worker {worker} had run out: "
                f"the result of {worker} is dropped (the match counts once, as {row.worker} plays it)")

    @staticmethod
    def _not_open(session: Session, match_id: int, verb: str) -> str:
        status = session.exec(select(Match.status).where(Match.id == match_id)).first()
        if status is None:
            return f"no match {match_id}"
        return f"match {match_id} is {status}; only a scheduled or running match can be {verb}"
