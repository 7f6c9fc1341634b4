"""The ledger's retention: the step and event logs of old finished matches dropped, everything
else kept, and the space given back.

``prune`` empties the log row (``match_log``'s events and steps, most of a ledger's bytes) of
every finished match of a kind whose deal is spent and that finished before a cutoff, and marks
the match ``pruned_at``. The row stays (its ``seq`` is the rating order), and so do the match
(seed, salt, commitment, result details: faults, latency, engine version), its seats, its
rating history and the bots' summaries: ``recompute`` and ``check`` give the same numbers. It
goes in batches of :data:`BATCH` matches, one transaction each, so the writers of a running
arena wait for one batch at most. ``reclaim`` gives the space back (SQLite: ``VACUUM`` and a
WAL checkpoint; PostgreSQL: ``VACUUM`` outside a transaction) and ``storage_bytes`` measures
it. Design notes: docs/ledger.md ("Retention").
"""
from __future__ import annotations

import functools
import math
import os
import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import Integer, bindparam, func, select, text, update

from .models import KINDS, LADDER, Match, MatchLog, utcnow
from .ledger_base import TABLES, LedgerError, _SPENT, _match, _storage, storage_error

#: Matches pruned in one transaction.
BATCH = 500

#: What ``prune`` takes when no kind is given: the arena's matches, played around the clock
#: (league matches are few and audited by ``match verify --league``; ``kind=None`` takes all).
DEFAULT_KIND = LADDER

_log = MatchLog.__table__.c
_spent = _SPENT.element  # the condition itself, without its label
_emptied = (func.length(_log.steps) == 0) | (func.length(_log.events) == 0)


class Pruned(NamedTuple):
    """What one ``prune`` did: the matches it pruned, and the finish time it pruned before."""
    ids: list[int]
    cutoff: datetime


@functools.cache
def _candidates(by_kind: bool):
    """The next matches to prune (parameters ``cutoff``, ``kind``, ``limit``), oldest first,
    from the index ``(pruned_at, finished_at)``: those pruned already are never read again."""
    q = select(_match.id).where(_match.pruned_at.is_(None), _match.finished_at < bindparam("cutoff"), _spent)
    if by_kind:
        q = q.where(_match.kind == bindparam("kind"))
    return q.order_by(_match.finished_at, _match.id).limit(bindparam("limit", type_=Integer))


class PruneMixin:
    """Retention: old logs pruned, the space given back."""

    def prune(self, older_than_days: float, kind: str | None = DEFAULT_KIND, *, now: datetime | None = None,
              batch: int = BATCH, stopped: Callable[[], bool] | None = None) -> Pruned:
        """Drop the step and event logs of the finished matches of ``kind`` (None: every kind)
        whose deal is spent and that finished more than ``older_than_days`` days before ``now``;
        mark them pruned. ``stopped()``, asked before each batch, ends it early (a server
        stopping). A running, scheduled or failed match, and a rotation of a duplicate set still
        being played, is never pruned."""
        if isinstance(older_than_days, bool) or not isinstance(older_than_days, (int, float)) \
                or not math.isfinite(older_than_days) or older_than_days < 0:
            raise LedgerError(f"prune matches older than a number of days, 0 or more, not {older_than_days!r}")
        if kind is not None and kind not in KINDS:
            raise LedgerError(f"a match's kind is one of {', '.join(KINDS)}, not {kind!r}")
        cutoff = (now or utcnow()) - timedelta(days=older_than_days)
        q, params = _candidates(kind is not None), {"cutoff": cutoff, "kind": kind, "limit": batch}
        done: list[int] = []
        while not (stopped is not None and stopped()):
            with self._write() as session:
                ids = list(session.execute(q, params).scalars())
                if ids:
                    session.execute(update(MatchLog.__table__).where(_log.match_id.in_(ids))
                                    .values(events=b"", steps=b""))
                    session.execute(update(Match.__table__).where(_match.id.in_(ids), _match.pruned_at.is_(None))
                                    .values(pruned_at=utcnow()))
            done += ids
            if len(ids) < batch:
                break
        return Pruned(done, cutoff)

    def pruned_count(self) -> int:
        """How many matches have had their logs pruned."""
        with self._read() as session:
            return session.execute(select(func.count()).where(_match.pruned_at.is_not(None))).scalar() or 0

    def storage_bytes(self) -> int | None:
        """The ledger's size: a SQLite file with its WAL, or the PostgreSQL tables of the ledger
        with their indexes and TOAST (``pg_total_relation_size``); None in memory."""
        if self._sqlite:
            path = self.engine.url.database
            if not path or path == ":memory:":
                return None
            return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
        sizes = " + ".join(f"pg_total_relation_size('\"{t.name}\"')" for t in TABLES)
        with self._read() as session:
            return int(session.execute(text(f"SELECT {sizes}")).scalar() or 0)

    def reclaim(self) -> None:
        """Give the space of pruned logs back: SQLite ``VACUUM`` (the file rewritten, needing as
        much free disk again while it runs, and writers wait for it), then a WAL checkpoint
        that truncates the WAL; PostgreSQL ``VACUUM (ANALYZE)`` of ``match_log`` and ``match``
        (no lock that stops writers; the space is reused by the table, and only trailing empty
        pages go back to the system: ``VACUUM FULL`` by hand returns all, locking the table)."""
        if self._sqlite:
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                return
            with self._lock:
                raw = self.engine.raw_connection()
                try:
                    conn = raw.driver_connection  # autocommit (``make_engine``): VACUUM needs no transaction
                    conn.execute("VACUUM")
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error as e:
                    raise storage_error(self.url, e) from None
                finally:
                    raw.close()
            return
        with _storage(self.url), self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            for table in (MatchLog.__tablename__, Match.__tablename__):
                conn.exec_driver_sql(f'VACUUM (ANALYZE) "{table}"')

    @staticmethod
    def _pruned_problems(session) -> list[str]:
        """``check``'s part on pruning: a pruned match is finished with its deal spent and an
        empty log; an empty log belongs to a pruned match."""
        problems = []
        for match_id, status in session.execute(select(_match.id, _match.status)
                                                .where(_match.pruned_at.is_not(None), ~_spent)):
            problems.append(f"match {match_id} is pruned but {status} or its deal not spent")
        logs = select(_log.match_id, _match.pruned_at).join_from(MatchLog.__table__, Match.__table__,
                                                                 _match.id == _log.match_id)
        for (match_id, _) in session.execute(logs.where(_emptied, _match.pruned_at.is_(None))):
            problems.append(f"match {match_id} has an empty log but is not marked pruned")
        for (match_id, _) in session.execute(logs.where(~_emptied, _match.pruned_at.is_not(None))):
            problems.append(f"match {match_id} is marked pruned but still has its log")
        return problems
