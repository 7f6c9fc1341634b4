"""The ledger: every bot, league and match, the event logs, and the ratings derived from them.

One :class:`Ledger` wraps one database: a file path (SQLite), ``":memory:"``, or any SQLAlchemy
URL (PostgreSQL for a shared server). Each method is one operation in one transaction. The
ledger is kept in parts, each a module of its own, and :class:`Ledger` is all of them:

=======================  ===================================================================
``ledger_base``          the database, its sessions and errors, the packed logs, shared reads
``ledger_bots``          bots, tokens (stored only hashed), pauses and benches
``ledger_leagues``       leagues, and the claims and leases of their matches
``ledger_matches``       matches made, recorded (with their ratings, once) and read
``ledger_ratings``       the TrueSkill updates, rating tables, ``recompute`` and ``check``
``ledger_reads``         the web's reads of a bot, and the ledger's fingerprint
``ledger_prune``         retention: old matches' step and event logs dropped, the space given back
``ledger_hosted``        hosted bots' versions (files, commands, state) and their logs a match
=======================  ===================================================================

Facts are appended, never rewritten once a match is finished (but that an old match's step and
event logs may be pruned, its result kept); ratings and summaries are derived and rebuilt from
them. Every database failure is one :class:`LedgerStorageError` line. Nothing here logs a
token. Design notes (a match's life, leases, recording, retention, failures): docs/ledger.md.
"""
from __future__ import annotations

from .ledger_base import (
    BOT_NAME, ID_MAX, LOG_FORMAT, PROGRESS_EVERY, SEED_MAX, SEED_MIN, TABLES, WEB_MAPPED, LedgerBase,
    LedgerError, LedgerStorageError, LedgerUnreachable, LedgerVersionError, Progress, _jsonable,
    database_url, hash_token, log_text, make_engine, pack, pack_events, pack_steps, storage_error,
    unpack, unpack_events, unpack_steps,
)
from .ledger_bots import BotsMixin
from .ledger_hosted import HostedMixin
from .ledger_leagues import LeaguesMixin
from .ledger_matches import MatchesMixin
from .ledger_prune import PruneMixin, Pruned
from .ledger_ratings import RatingsMixin
from .ledger_reads import BotPage, ReadsMixin

#: The ledger's names, imported from here as they always were (each is kept in its part).
__all__ = ["BOT_NAME", "ID_MAX", "LOG_FORMAT", "PROGRESS_EVERY", "SEED_MAX", "SEED_MIN", "TABLES", "WEB_MAPPED",
           "BotPage", "Ledger", "Pruned", "LedgerError", "LedgerStorageError", "LedgerUnreachable", "LedgerVersionError",
           "Progress", "_jsonable", "database_url", "hash_token", "log_text", "make_engine", "pack", "pack_events",
           "pack_steps", "storage_error", "unpack", "unpack_events", "unpack_steps"]


class Ledger(BotsMixin, HostedMixin, LeaguesMixin, MatchesMixin, RatingsMixin, ReadsMixin, PruneMixin, LedgerBase):
    """The ledger of one database: its bots, leagues, matches, ratings and the web's reads (the
    module docstring names the part that keeps each)."""
