"""The ledger: every bot, league and match, the event logs, and the ratings derived from them.

One :class:`Ledger` wraps one database: a file path (SQLite), ``":memory:"``, or any SQLAlchemy
URL (PostgreSQL for a shared server). Each method is one operation in one transaction, in the
style of the SQLModel tutorial: ``with Session(engine)``, short table classes
(:mod:`cardarena.ratings.models`), the rating rule as a pure function
(:mod:`cardarena.ratings.rating`).

Life of a league match
    ``create_league`` writes the league and *all* its matches (status ``scheduled``) before any is
    played, so an interrupted league resumes from the ledger. A referee process takes a match
    with ``claim_match`` (or ``claim_next``): an atomic ``UPDATE … WHERE status = 'scheduled'``,
    so several processes can share one league and never play the same match twice. It ends with
    ``record_match`` (status ``finished``) or ``fail_match`` (status ``failed``, no rating
    change). A match left ``running`` by a killed process goes back to ``scheduled`` with
    ``reset_stale`` (all of a league, or those claimed longer ago than a given age), one whose
    play was interrupted cleanly (Ctrl-C) with ``release_match``, and a league's failed
    matches with ``retry_failed``; any of them is then played again from its seed. An ad-hoc
    match (``cardarena play``) is made by ``create_match`` and may be recorded without being
    claimed.

Leases (several workers, one league)
    A claim given a ``worker`` and ``lease_s`` is a lease: the match's row holds the worker and
    ``lease_until``. The worker renews it while it plays (``renew_leases``); a ``running`` match
    whose lease has run out is claimable again, by any worker, exactly like a scheduled one, and
    is played again from its seed. ``claim_next`` takes the league's first claimable match: on
    PostgreSQL with ``SELECT … FOR UPDATE SKIP LOCKED`` (two workers never wait for each other
    nor take the same row), on SQLite inside the writing transaction (``BEGIN IMMEDIATE``
    serialises it). ``record_match(…, worker=…)`` records only while the match is still that
    worker's: a worker whose lease ran out and was taken over gets a :class:`LedgerError`, and
    its result is dropped (counted once, by the worker that took it over). Lease times are the
    database's clock on PostgreSQL (``now()``, one clock for the workers of every machine) and
    this machine's on SQLite (one file, one machine). A match claimed without a lease (the
    arena, ``play``) is never taken over; ``others_playing`` counts the leased matches other
    workers hold, which a worker with nothing left to claim waits for (they may run out), and
    ``release_unplayed`` puts back what a worker holds without playing it (a claim whose answer
    was lost with the connection).

Recording a match
    ``record_match`` is one transaction: the seats' scores, places, faults and forfeits, the
    status, the TrueSkill update of every bot of the match (one ``rating_history`` row per
    seat), the bots' summaries (``bot_summary``, :mod:`.summary`: derived sums per bot and game
    that the bot's web page reads, updated under the same lock of the game), and the
    ``match_log`` row with the event log and the steps (each as zlib-compressed
    JSON; the steps keep their integer seat keys). If any part fails, nothing is written. A
    match can be recorded once: a second ``record_match`` raises :class:`LedgerError`, and the
    database refuses a second log or history row for it. The log row's ``seq`` is the order of
    recording, the order in which ``recompute`` replays the ratings.

Ratings
    The ``rating`` table keeps μ, σ and running counts per bot and game, so a rating table is
    read without scanning matches. ``recompute`` rebuilds the ratings and their history from the
    finished matches to exactly the same floats (SQLite and PostgreSQL store IEEE doubles
    exactly, and both paths call the same :func:`~cardarena.ratings.rating.rate_match`), and
    rebuilds the bots' summaries from the finished seats; ``check`` replays them without writing
    and reports every difference, in the ratings, their history and the summaries.

Reads for the web
    The pages read a ledger of 100,000 matches in a few milliseconds a query (bench/web.py):
    every read selects columns, never table objects (SQLAlchemy's identity map costs ~20 µs an
    object); a bot's matches come from the index ``seat (bot_id, match_id)``; rating histories
    are bounded lines thinned in SQL (``rating_lines``, from a covering index); a bot's conduct
    and latency are its few rows of ``bot_summary`` (``bot_summaries``), derived from its
    finished seats (:mod:`.summary`); the statements of the hottest reads are built once, and
    their rows fetched whole (``.all()``: one driver call, not one per row); a listing can be
    had as JSON built straight from its rows (``matches``, ``bot_page``: ``as_json``);
    ``version`` is a cheap fingerprint a reader may cache rating tables under; a bot's page is
    read in one session (``bot_page``: a session costs as much as a small query); and a match's
    log can be had as the JSON text it is stored as (``match_log_text``), for an answer that
    sends it whole without encoding it again.

Several processes, one file
    SQLite runs in WAL mode (readers never block the writer), with foreign keys on, a 30 s busy
    timeout and ``synchronous = NORMAL`` (a power cut may lose the last matches recorded, never
    corrupt the file). Every writing transaction starts with ``BEGIN IMMEDIATE``, so two
    processes never both read then fail to write (SQLite's ``SQLITE_BUSY`` on upgrade); they
    queue on the busy timeout instead. On PostgreSQL the rating rows of a match are locked
    (``SELECT … FOR UPDATE``, in bot order) before the log row takes its ``seq``, so matches that
    share a bot are recorded, and later replayed, in one order.

When the database fails
    A file that is not a ledger, a damaged or truncated one, a full disk, a lock held past the
    busy timeout: every such failure of the database, in any operation, is raised as one
    :class:`LedgerStorageError` that says which ledger and what failed, in one line. It is no
    :class:`LedgerError` (a request the ledger refuses), so that no caller takes a record that
    failed for one that another process made: the transaction was rolled back, nothing of it
    is written, and the caller stops. A database server that cannot be reached (PostgreSQL
    stopped or restarting, the network cut: an ``OperationalError`` or ``InterfaceError`` of
    the driver) is raised as :class:`LedgerUnreachable`, a kind of it that a caller may retry
    (the league's recorder does): every operation is one transaction, so trying it again is
    safe. ``check`` also asks SQLite to check the file itself
    (``PRAGMA quick_check``) before it checks the matches and ratings.

Tokens
    A bot's token (``secrets.token_urlsafe(32)``, 256 random bits) is returned once by
    ``add_bot`` (or ``rotate_token``) and stored only as its SHA-256 hex digest. Nothing here logs
    a token.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
import threading
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from sqlalchemy import (
    Integer, and_, bindparam, delete, event, exists, func, insert, or_, text, true, update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine, select

from cardarena.server import deal

from . import rating as rules
from . import schema, summary
from .table import ranked, ratings_query
from .models import (
    AD_HOC, FAILED, FINISHED, KINDS, LADDER, LEAGUE, RUNNING, SCHEDULED, STATUSES, Bot,
    BotInfo, BotState, BotSummary, League, LeagueInfo, Match,
    MatchDetail, MatchInfo, MatchLog, MatchPlan, Rating, RatingChange, RatingHistory, RatingRow,
    Seat, SeatResults, listed_json, utcnow,
)


class BotPage(NamedTuple):
    """What ``Ledger.bot_page`` reads of a bot, in one session."""
    info: BotInfo
    state: BotState
    recent: list[MatchInfo] | list[dict]  # its latest matches, newest first (as JSON with ``as_json``)
    summaries: dict[str, dict]  # game → its row of ``bot_summary`` (``Ledger.bot_summaries``)
    durations: list[float] | None  # the durations (s) of its finished matches, one per seat
    version: tuple  # ``Ledger.version()`` as of the same read


TABLES = [t.__table__ for t in (Bot, League, Match, Seat, MatchLog, Rating, RatingHistory, BotSummary)]
_match, _seat, _bot, _rating = Match.__table__.c, Seat.__table__.c, Bot.__table__.c, Rating.__table__.c

# The statements of record_match, built once (it is the ledger's hot path).
#: A match's deal as played (a match scheduled before deals had commitments gets them when played).
_DEAL_VALUES = dict(deal_salt=func.coalesce(_match.deal_salt, bindparam("deal_salt")),
                    deal_commitment=func.coalesce(_match.deal_commitment, bindparam("deal_commitment")))
_FINISH = (update(Match.__table__)
           .where(_match.id == bindparam("match_id"), _match.status.in_((SCHEDULED, RUNNING)))
           .values(status=FINISHED, finished_at=bindparam("finished_at"), duration_s=bindparam("duration_s"),
                   result_details=bindparam("result_details"), **_DEAL_VALUES)
           .returning(_match.game))
#: record_match's status change for a leased match: only while it is the worker's (module docstring).
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
_RATINGS = (select(_rating.bot_id, _rating.mu, _rating.sigma, _rating.matches, _rating.wins, _rating.place_sum)
            .where(_rating.game == bindparam("game"), _rating.bot_id.in_(bindparam("bot_ids", expanding=True)))
            .order_by(_rating.bot_id))
_RATING_UPDATE = (update(Rating.__table__)
                  .where(_rating.bot_id == bindparam("b"), _rating.game == bindparam("g"))
                  .values(mu=bindparam("mu"), sigma=bindparam("sigma"), matches=bindparam("matches"),
                          wins=bindparam("wins"), place_sum=bindparam("place_sum")))
_RATING_INSERT = insert(Rating.__table__)
#: A bot by name, as columns (the web's reads take no table objects: see ``_LISTED``).
_BOT_BY_NAME = select(_bot.id, _bot.name, _bot.created_at, _bot.owner).where(_bot.name == bindparam("name"))
#: A match's deal is spent once it is finished and so is every match of its duplicate set
#: (the same deal): only then are its seed and salt public (``MatchInfo.deal_spent``).
_sibling = Match.__table__.alias("sibling").c
_SPENT = and_(_match.status == FINISHED,
              or_(_match.duplicate_set.is_(None),
                  ~exists().where(_sibling.league_id == _match.league_id,
                                  _sibling.duplicate_set == _match.duplicate_set,
                                  _sibling.status != FINISHED))).label("spent")
#: The columns of a listed match (``matches``), read as rows, never as table objects (each
#: object costs SQLAlchemy's identity map ~20 µs: a page of rows would be most of a request).
#: (``index`` is labelled ``position``: a row's ``index`` is the tuple method.)
_LISTED = (_match.id, _match.game, _match.seed, _match.options, _match.status, _match.league_id, _match.round,
           _match["index"].label("position"), _match.duplicate_set, _match.created_at, _match.finished_at,
           _match.fail_reason, _match.kind, _match.deal_commitment, _match.deal_salt, _SPENT)
_STATES = select(_bot.name, _bot.owner, _bot.paused, _bot.benched_until, _bot.bench_reason).order_by(_bot.name)
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
#: The seats of listed matches (``Ledger._infos``): by ids (expanding ``ids``), or with a filter added.
_LISTED_SEATS_OF = (select(_seat.match_id, _seat.seat, _bot.name, _seat.score, _seat.place)
                    .join_from(Seat.__table__, Bot.__table__, _bot.id == _seat.bot_id)
                    .order_by(_seat.match_id, _seat.seat))
_LISTED_SEATS = _LISTED_SEATS_OF.where(_seat.match_id.in_(bindparam("ids", expanding=True)))
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
_HISTORY_INSERT = insert(RatingHistory.__table__)
_LOG_INSERT = insert(MatchLog.__table__)

#: A bot's name: a letter or digit, then up to 63 letters, digits or ``_ . - + @ :``.
BOT_NAME = re.compile(r"[^\W_][\w.\-+@:]{0,63}")

SEED_MIN, SEED_MAX = -(2 ** 63), 2 ** 63 - 1
#: What `cardarena web` reads of a SQLite ledger memory-mapped (``Ledger(mapped=…)``): 1 GiB of
#: address space, no memory of its own (the pages are the system's file cache). A page of the web
#: reads hundreds of scattered rows (a bot's match durations, a listing's seats); mapped, each is
#: a memory read, not a read() call: ~1–1.5 ms less CPU a bot's cold answer on 100,000 matches
#: (bench/web.py).
WEB_MAPPED = 1 << 30

#: ``progress(done, total)``: how far a long operation (recompute, check) has come.
Progress = Callable[[int, int], None]
#: How often (in matches) a long operation reports its progress.
PROGRESS_EVERY = 1000
LOG_FORMAT = 1


class LedgerError(Exception):
    """A request the ledger refuses: an unknown bot or match, a duplicate, a wrong status."""


class LedgerVersionError(LedgerError):
    """A ledger of another schema version than this cardarena's (``cardarena ledger upgrade``)."""


class LedgerStorageError(Exception):
    """The database under the ledger failed (module docstring, "When the database fails")."""


class LedgerUnreachable(LedgerStorageError):
    """The database server could not be reached (module docstring): worth trying again."""


def storage_error(url: str, exc: BaseException) -> LedgerStorageError:
    """A database failure of the ledger at ``url`` as one line: which ledger, what failed."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    reason = reason[0] if reason else type(exc).__name__
    try:
        parsed = make_url(url)
        where = parsed.database if parsed.drivername.startswith("sqlite") else parsed.render_as_string(hide_password=True)
    except ArgumentError:
        where = url
    low = reason.lower()
    if isinstance(exc, (OperationalError, InterfaceError)) and not url.startswith("sqlite"):
        return LedgerUnreachable(f"the ledger {where} cannot be reached: {reason}")
    if "full" in low:
        text_ = f"the ledger {where} is full ({reason}): free some space"
    elif "not a database" in low or "malformed" in low or "corrupt" in low:
        text_ = f"the ledger {where} is damaged or not a cardarena ledger ({reason})"
    elif "locked" in low or "busy" in low:
        text_ = f"the ledger {where} is locked by another process ({reason})"
    else:
        text_ = f"the ledger {where} failed: {reason}"
    return LedgerStorageError(text_)


@contextmanager
def _storage(url: str) -> Iterator[None]:
    """Turn the database's failures inside the block into :class:`LedgerStorageError`."""
    try:
        yield
    except IntegrityError:  # a constraint: the callers turn it into a LedgerError where it is one
        raise
    except (DatabaseError, InterfaceError) as e:  # OperationalError (full, locked, unreadable, a
        raise storage_error(url, e) from None      # server gone) and damaged files


# --------------------------------------------------------------------------------- helpers


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256 digest in hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def pack(value: Any) -> bytes:
    """Compact JSON, zlib-compressed (the form of the event log and the steps).

    ASCII JSON (``"\\u2660"`` for ♠) is the stdlib encoder's fast path, and the escapes cost
    nothing once compressed; zlib level 3 is twice as fast as level 6 for ~25 % more bytes.
    """
    text = json.dumps(value, separators=(",", ":"), default=_jsonable)
    return zlib.compress(text.encode("ascii"), 3)


def unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def pack_steps(steps: Sequence[Mapping]) -> bytes:
    """Steps so that their keys come back as they were: integer seat keys as integers.

    The usual case, every key an integer, is stored as JSON objects with ``"int_keys": true``;
    anything else as ``[[key, value], …]`` pairs.
    """
    if all(type(k) is int for step in steps for k in step):
        return pack({"format": LOG_FORMAT, "int_keys": True, "steps": list(steps)})
    return pack({"format": LOG_FORMAT, "steps": [[[k, v] for k, v in step.items()] for step in steps]})


def unpack_steps(blob: bytes) -> list[dict]:
    return _steps_of(unpack(blob))


def _steps_of(data: Mapping) -> list[dict]:
    if data.get("int_keys"):
        return [{int(k): v for k, v in step.items()} for step in data["steps"]]
    return [{k: v for k, v in pairs} for pairs in data["steps"]]


def pack_events(events: Sequence[Mapping]) -> bytes:
    return pack({"format": LOG_FORMAT, "events": list(events)})


def unpack_events(blob: bytes) -> list[dict]:
    return unpack(blob)["events"]


#: How the stored (decompressed) steps and events begin: then the list, then ``}`` (:func:`log_text`).
_STEPS_HEAD = f'{{"format":{LOG_FORMAT},"int_keys":true,"steps":'.encode()
_EVENTS_HEAD = f'{{"format":{LOG_FORMAT},"events":'.encode()


def log_text(stored: bytes | None, head: bytes, parsed: list) -> bytes:
    """The JSON text (ASCII) of a log's list, ``parsed``: cut out of its decompressed stored form
    ``stored``, which is ``head``, the list as :func:`pack` wrote it, and ``}``; encoded from
    ``parsed`` when the log is stored in another form (steps keyed by other than integers, as
    pairs) or not at all (None)."""
    if stored is not None and stored.startswith(head) and stored.endswith(b"]}"):
        return stored[len(head):-1]
    return json.dumps(parsed, separators=(",", ":"), default=_jsonable).encode("ascii")


def database_url(where: str) -> str:
    """A SQLAlchemy URL for a file path, ``":memory:"`` or a URL."""
    if where in ("", ":memory:"):
        return "sqlite://"
    if "://" in where:
        scheme, rest = where.split("://", 1)
        if scheme in ("postgresql", "postgres"):  # psycopg 3 (the postgres extra), not SQLAlchemy's default psycopg2
            return f"postgresql+psycopg://{rest}"
        return where
    return "sqlite:///" + str(Path(where).expanduser().resolve())


def make_engine(where: str, echo: bool = False, mapped: int = 0) -> Engine:
    """An engine for the ledger, with SQLite set up for several processes (module docstring);
    ``mapped``: the bytes of a SQLite file its connections read memory-mapped (``PRAGMA
    mmap_size``; 0: none, SQLite's default)."""
    url = database_url(where)
    if not url.startswith("sqlite"):
        return create_engine(url, echo=echo, pool_pre_ping=True)
    memory = url in ("sqlite://", "sqlite:///:memory:")
    engine = create_engine(url, echo=echo, connect_args={"check_same_thread": False, "timeout": 30},
                           poolclass=StaticPool if memory else None)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # the "begin" hook below opens transactions
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA busy_timeout = 30000")
        if not memory:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            if mapped:
                cursor.execute(f"PRAGMA mmap_size = {int(mapped)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("ledger_write") else "BEGIN")

    return engine


def _game_lock_key(game: str) -> int:
    """The advisory lock of a game's ratings on PostgreSQL: a stable signed 64-bit number."""
    return int.from_bytes(hashlib.sha256(b"cardarena rating " + game.encode()).digest()[:8], "big", signed=True)


def _bot_info(bot: Bot) -> BotInfo:
    return BotInfo(bot.id, bot.name, bot.created_at, bot.owner)


def _aware(when):
    """A time read back from the ledger, as an aware UTC datetime (SQLite gives naive ones)."""
    from datetime import timezone
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=timezone.utc)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_MIN <= seed <= SEED_MAX:
        raise LedgerError(f"a seed must be an integer that fits in 64 bits, not {seed!r}")
    return seed


#: The largest id the ledger can hold on every backend: ids are SQL INTEGER, 32 bits on
#: PostgreSQL (64 on SQLite). A larger number names no league or match on any backend, so
#: asking for one is "no match N", never the database's "integer out of range".
ID_MAX = 2 ** 31 - 1


def _commit_deals(session: Session, matches: Sequence[Match]) -> None:
    """Write each new match's deal commitment (it names the match's id, known once flushed)."""
    session.execute(update(Match.__table__).where(_match.id == bindparam("mid"))
                    .values(deal_commitment=bindparam("committed")),
                    [{"mid": m.id, "committed": deal.commitment(m.game, m.id, m.seed, m.deal_salt)} for m in matches])


def _known(what: str, ident: int) -> int:
    """``ident`` if it can be an id of a ``what`` (league, match), else LedgerError("no what ident")."""
    if not 1 <= ident <= ID_MAX:
        raise LedgerError(f"no {what} {ident}")
    return ident


# --------------------------------------------------------------------------------- the ledger


class Ledger:
    """The ledger of one database; see the module docstring."""

    def __init__(self, where: str = ":memory:", *, echo: bool = False, mapped: int = 0):
        """``mapped``: on SQLite, read up to that many bytes of the file memory-mapped (the web's
        ledger: :data:`WEB_MAPPED`), its pages then read without a system call each."""
        self.url = database_url(where)
        self.engine = make_engine(where, echo, mapped)
        self._write_engine = self.engine.execution_options(ledger_write=True)
        self._sqlite = self.engine.dialect.name == "sqlite"
        # An in-memory database is one connection shared by every thread: one user at a time.
        self._lock = threading.RLock() if self.url in ("sqlite://", "sqlite:///:memory:") else nullcontext()
        self.where = where
        with _storage(self.url):
            with self.engine.connect() as conn:
                version = schema.current(conn)
            if version is None:
                version = self._make()
            if version != schema.HEAD:
                self.engine.dispose()
                raise LedgerVersionError(schema.refusal(where, version))

    def _make(self) -> str:
        """A new ledger at the current schema version: its tables (and indexes) from
        ``models.py`` and the version, in one writing transaction, so that another process
        opening it at the same moment waits and then finds it made (SQLite: ``BEGIN IMMEDIATE``;
        PostgreSQL: an advisory lock)."""
        with self._lock, self._write_engine.begin() as conn:
            if not self._sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _game_lock_key("the schema")})
            version = schema.current(conn)
            if version is None:
                Bot.metadata.create_all(conn, tables=TABLES)
                schema.stamp_head(conn)
                version = schema.HEAD
        return version

    @staticmethod
    def upgrade(where: str) -> tuple[str, str]:
        """``cardarena ledger upgrade``: migrate the ledger at ``where`` to the current schema
        (:mod:`.schema`); returns (the version it was at, the current one)."""
        url = database_url(where)
        engine = make_engine(where)
        try:
            with _storage(url):
                return schema.upgrade(engine)
        except ValueError as e:
            raise LedgerError(f"cannot upgrade the ledger {where}: {e}") from None
        finally:
            engine.dispose()

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Ledger({self.engine.url.render_as_string(hide_password=True)!r})"

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with _storage(self.url), self._lock, Session(self.engine) as session:
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """One writing transaction: committed at the end, rolled back on any error."""
        with _storage(self.url), self._lock, Session(self._write_engine) as session, session.begin():
            yield session

    # ----------------------------------------------------------------------------- bots

    def add_bot(self, name: str, owner: str | None = None) -> tuple[BotInfo, str]:
        """Register a bot; returns it and its token (shown this once, stored only hashed)."""
        if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
            raise LedgerError(f"{name!r} is not a bot name: use 1-64 letters, digits and _ . - + @ : "
                              "(starting with a letter or digit)")
        token = secrets.token_urlsafe(32)
        try:
            with self._write() as session:
                if session.exec(select(Bot.id).where(Bot.name == name)).first() is not None:
                    raise LedgerError(f"a bot named {name!r} exists")
                bot = Bot(name=name, token_hash=hash_token(token), owner=(owner or "").strip() or None)
                session.add(bot)
                session.flush()
                info = _bot_info(bot)
        except IntegrityError:  # another process added the name just now
            raise LedgerError(f"a bot named {name!r} exists") from None
        return info, token

    def rotate_token(self, name: str) -> str:
        """Give a bot a new token (the old one stops working); returns the new token."""
        token = secrets.token_urlsafe(32)
        with self._write() as session:
            bot = self._bot_row(session, name)
            bot.token_hash = hash_token(token)
            session.add(bot)
        return token

    def bot_by_token(self, token: str) -> BotInfo | None:
        """The bot whose token this is, or ``None``."""
        if not isinstance(token, str) or not token:
            return None
        digest = hash_token(token)
        with self._read() as session:
            bot = session.exec(select(Bot).where(Bot.token_hash == digest)).first()
            if bot is None or not hmac.compare_digest(bot.token_hash, digest):
                return None
            return _bot_info(bot)

    def bot(self, name: str) -> BotInfo:
        with self._read() as session:
            row = session.connection().execute(_BOT_BY_NAME, {"name": name}).first()
            if row is None:
                raise LedgerError(f"no bot named {name!r}")
            return BotInfo(*row)

    def bots(self) -> list[BotInfo]:
        with self._read() as session:
            return [_bot_info(b) for b in session.exec(select(Bot).order_by(Bot.name))]

    # ----- the arena's standing of the bots (server/ladder.py)

    def bot_states(self, names: Iterable[str] | None = None) -> list[BotState]:
        """Every bot's owner, pause and bench, or only those of ``names`` (one query)."""
        q = _STATES if names is None else _STATES.where(_bot.name.in_(bindparam("names", expanding=True)))
        with self._read() as session:
            rows = session.connection().execute(q, {"names": list(names or ())}).all()
        return [BotState(n, o, bool(p), _aware(u), r) for n, o, p, u, r in rows]

    def set_paused(self, name: str, paused: bool) -> BotState:
        """`bot pause` / `bot resume`: benched from the ladders by hand, or back."""
        with self._write() as session:
            bot = self._bot_row(session, name)
            bot.paused = bool(paused)
            session.add(bot)
            return BotState(bot.name, bot.owner, bool(bot.paused), _aware(bot.benched_until), bot.bench_reason)

    def bench_bot(self, name: str, until, reason: str) -> None:
        """The quarantine rule benched the bot until ``until`` (UTC), for ``reason``."""
        with self._write() as session:
            bot = self._bot_row(session, name)
            bot.benched_until, bot.bench_reason = until, reason
            session.add(bot)

    def fail_running_matches(self, kind: str, reason: str, alive: Callable[[str], bool] | None = None) -> int:
        """The running (or scheduled) matches of ``kind`` that a gone process left behind, marked
        failed; how many. For ladder matches (never played again from their seeds). Without
        ``alive``, every one. With it (several servers on one ledger), only those claimed
        without a worker, whose lease has run out, or whose worker ``alive(worker)`` says is gone."""
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
                return worker is None or until is None or bool(expired) or not alive(worker)
            ids = [row[0] for row in session.execute(q) if gone(*row[1:])]
            if not ids:
                return 0
            return session.execute(update(Match.__table__).where(_match.id.in_(ids), _match.status.in_(
                (SCHEDULED, RUNNING))).values(status=FAILED, fail_reason=reason, finished_at=utcnow())).rowcount

    def recent_conduct(self, kind: str, window: int) -> dict[str, list[tuple[int, int, bool, Any]]]:
        """Per bot, its last ``window`` finished matches of ``kind``, oldest first: (decisions
        answered in time plus faults, faults, forfeited, finished at, UTC)."""
        from cardarena.server.latency import merge
        out: dict[str, list] = {}
        with self._read() as session:
            conn = session.connection()
            for bot_id, name in conn.execute(select(_bot.id, _bot.name)).all():
                rows = conn.execute(
                    select(_seat.seat, _seat.faults, _seat.forfeited, _match.result_details, _match.finished_at)
                    .join_from(Seat.__table__, Match.__table__, _match.id == _seat.match_id)
                    .where(_seat.bot_id == bot_id, _match.kind == kind, _match.status == FINISHED)
                    .order_by(_match.id.desc()).limit(window)).all()
                found = []
                for seat, faults, forfeited, details, finished in reversed(rows):
                    hists = (details or {}).get("latency") if isinstance(details, dict) else None
                    hist = hists[seat] if isinstance(hists, list) and 0 <= seat < len(hists) else None
                    answered = sum(merge([hist]).values())
                    found.append((answered + (faults or 0), faults or 0, bool(forfeited), _aware(finished)))
                if found:
                    out[name] = found
        return out

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
                           _listed_sqlite(conn, q, params) if as_json and self._sqlite
                           else self._infos(session, conn.execute(q, params).all(), as_json=as_json),
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

    @staticmethod
    def _bot_id(session: Session, name: str) -> int:
        """A bot's id, read as a column (the reads of the web: no table object)."""
        row = session.connection().execute(_BOT_BY_NAME, {"name": name}).first()
        if row is None:
            raise LedgerError(f"no bot named {name!r}")
        return row[0]

    @staticmethod
    def _bot_row(session: Session, name: str) -> Bot:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            raise LedgerError(f"no bot named {name!r}")
        return bot

    @staticmethod
    def _bot_ids(session: Session, names: Iterable[str]) -> dict[str, int]:
        names = set(names)
        found = dict(session.exec(select(Bot.name, Bot.id).where(Bot.name.in_(names))).all())
        missing = sorted(names - found.keys())
        if missing:
            raise LedgerError("no bot named " + ", ".join(repr(n) for n in missing))
        return found

    # ----------------------------------------------------------------------------- leagues

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
                    out.append(SeatResults(mid, rnd, idx, dup, seed, status, [], [], [], [], []))
                r = out[-1]
                r.bots.append(name)
                r.scores.append(score)
                r.places.append(place)
                r.faults.append(faults)
                r.forfeited.append(forfeited)
            return out

    # ----------------------------------------------------------------------------- matches

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

    # ----- claims and leases (module docstring, "Leases")

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

    def record_match(self, match_id: int, *, scores: Sequence[float], places: Sequence[int],
                     faults: Sequence[int], forfeited: Sequence[bool], steps: Sequence[Mapping],
                     events: Sequence[Mapping], result_details: Mapping[str, Any] | None = None,
                     duration_s: float = 0.0, worker: str | None = None, deal_salt: str | None = None,
                     deal_commitment: str | None = None) -> list[RatingChange]:
        """Record a finished match and rate it, in one transaction (module docstring).

        Returns each seat's rating change (``rated`` False for a self-play seat). With
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
            changes = self._rate(session, game, match_id, bot_ids, places)
            # The bots' summaries, under the same lock of the game (ratings/summary.py).
            summary.record(session.connection(), game, [(b, r["s"], r["place"], r["faults"], r["forfeited"])
                                                        for b, r in zip(bot_ids, results)], details)

            # The log last: its seq is taken once the rating rows are held (the replay order).
            session.execute(_LOG_INSERT, {"match_id": match_id, "events": events_blob, "steps": steps_blob})
        names = dict(seated)
        return [RatingChange(s, names[b], game, rated, mb, sb, m, sg)
                for s, (b, rated, mb, sb, m, sg) in enumerate(changes)]

    def _rate(self, session: Session, game: str, match_id: int, bot_ids: list[int],
              places: list[int]) -> list[tuple[int, bool, float, float, float, float]]:
        """Update the rating rows of one match; returns (bot, rated, μ₀, σ₀, μ, σ) per seat."""
        rows = self._lock_ratings(session, game, set(bot_ids))
        start = rules.initial(game)
        current = [(rows[b][0], rows[b][1]) if b in rows else start for b in bot_ids]
        new = rules.rate_match(game, bot_ids, places, current)
        out, history, updates, inserts = [], [], [], []
        for seat, (bot_id, before, after) in enumerate(zip(bot_ids, current, new)):
            rated = after is not None
            rated_n = None
            if rated:
                mu, sigma, matches, wins, place_sum = rows.get(bot_id, (*start, 0, 0, 0))
                rated_n = matches + 1
                row = {"mu": after[0], "sigma": after[1], "matches": matches + 1,
                       "wins": wins + (places[seat] == 1), "place_sum": place_sum + places[seat]}
                if bot_id in rows:
                    updates.append({"b": bot_id, "g": game, **row})
                else:
                    inserts.append({"bot_id": bot_id, "game": game, **row})
            else:
                after = before
            out.append((bot_id, rated, before[0], before[1], after[0], after[1]))
            history.append({"match_id": match_id, "seat": seat, "bot_id": bot_id, "game": game,
                            "rated": rated, "mu_before": before[0], "sigma_before": before[1],
                            "mu": after[0], "sigma": after[1], "rated_n": rated_n})
        if updates:
            session.execute(_RATING_UPDATE, updates)
        for row in inserts:
            self._insert_rating(session, row)
        session.execute(_HISTORY_INSERT, history)
        return out

    def _lock_ratings(self, session: Session, game: str, bot_ids: set[int]) -> dict[int, tuple]:
        """(μ, σ, matches, wins, place sum) of these bots, their rows locked.

        SQLite: ``BEGIN IMMEDIATE`` already serialises every writer. PostgreSQL: first a
        transaction-level advisory lock of the game (``pg_advisory_xact_lock``, released at commit),
        so two processes recording matches of one game take turns: no first rating can be
        inserted twice, and the log's ``seq`` (taken after it) follows the rating order of the game;
        then the rows themselves ``FOR UPDATE``."""
        if self._sqlite:
            q = _RATINGS
        else:
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _game_lock_key(game)})
            q = _RATINGS.with_for_update()
        return {bot_id: tuple(rest) for bot_id, *rest in session.execute(q, {"game": game, "bot_ids": sorted(bot_ids)})}

    def _insert_rating(self, session: Session, row: dict) -> None:
        """A bot's first rating in a game. Another process may have inserted it since we read
        (PostgreSQL only: SQLite serialises writers); then our update applies to the start
        values, which is wrong, so the whole record fails and can be retried."""
        try:
            if self._sqlite:
                session.execute(_RATING_INSERT, [row])
            else:
                with session.begin_nested():
                    session.execute(_RATING_INSERT, [row])
        except IntegrityError:
            raise LedgerError(f"the first rating of bot {row['bot_id']} in {row['game']} was written by "
                              "another process at the same moment; record the match again") from None

    def matches(self, league_id: int | None = None, game: str | None = None, limit: int | None = 50,
                status: str | None = None, bot: str | None = None, kind: str | None = None,
                as_json: bool = False) -> list[MatchInfo] | list[dict]:
        """Matches, the newest first, filtered by league, game, status, bot and kind (league,
        ladder, match); with ``as_json`` each as its ``MatchInfo.to_json()``, built straight from
        the rows (no MatchInfo made: the web's listings; on SQLite through its own driver,
        :func:`_listed_sqlite`).

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
            if as_json and self._sqlite:
                return _listed_sqlite(conn, q, params)
            rows = conn.execute(q, params).all()
            return self._infos(session, rows, as_json=as_json)

    @staticmethod
    def _infos(session: Session, rows: Sequence, seat_filter=None,
               as_json: bool = False) -> list[MatchInfo] | list[dict]:
        """MatchInfo for these matches (rows of :data:`_LISTED`), or with ``as_json`` their
        ``to_json()`` (:func:`listed_json`); ``seat_filter`` selects (at least) their seats
        (without one: the seats of these rows, by their ids)."""
        seats: dict[int, list] = defaultdict(list)
        if seat_filter is None:
            found = session.connection().execute(_LISTED_SEATS, {"ids": [m.id for m in rows]}).all()
        else:
            found = session.connection().execute(_LISTED_SEATS_OF.where(seat_filter)).all()
        for match_id, _seat_no, name, score, place in found:
            seats[match_id].append((name, score, place))
        out = []
        make = listed_json if as_json else MatchInfo  # both take a listed match's fields in order
        for match_id, game, seed, options, status, league_id, round_, position, duplicate_set, created_at, \
                finished_at, fail_reason, kind, committed, salt, spent in (tuple(m)[:len(_LISTED)] for m in rows):
            at = seats[match_id]  # (unpacked: a row's attributes by name cost more than the rest of a listing)
            out.append(make(match_id, game, seed, dict(options), status, [s[0] for s in at], [s[1] for s in at],
                            [s[2] for s in at], league_id, round_, position, duplicate_set, created_at,
                            finished_at, fail_reason, kind, committed, salt, bool(spent)))
        return out

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
        steps_json, events_json = (zlib.decompress(log.steps), zlib.decompress(log.events)) if log else (None, None)
        steps = _steps_of(json.loads(steps_json)) if log else []
        events = json.loads(events_json)["events"] if log else []
        detail = MatchDetail(
            id=m.id, game=m.game, seed=m.seed, options=dict(m.options), status=m.status,
            bots=[s.name for s in seats], scores=[s.score for s in seats],
            places=[s.place for s in seats], league_id=m.league_id, round=m.round, index=m.position,
            duplicate_set=m.duplicate_set, created_at=m.created_at, finished_at=m.finished_at,
            fail_reason=m.fail_reason, kind=m.kind, deal_commitment=m.deal_commitment, deal_salt=m.deal_salt,
            deal_spent=bool(m.spent), faults=[s.faults for s in seats],
            forfeited=[s.forfeited for s in seats], steps=steps, events=events,
            result_details=dict(m.result_details or {}), duration_s=m.duration_s, claimed_at=m.claimed_at,
            rating_changes=[RatingChange(h.seat, names.get(h.bot_id, "?"), h.game, h.rated, h.mu_before,
                                         h.sigma_before, h.mu, h.sigma) for h in history])
        if not texts:
            return detail, None, None
        return detail, log_text(steps_json, _STEPS_HEAD, steps), log_text(events_json, _EVENTS_HEAD, events)

    # ----------------------------------------------------------------------------- ratings

    def ratings(self, game: str | None = None) -> list[RatingRow]:
        """The rating table: bots with rated matches, by game, best conservative rating first
        (the query and the ranking of table.py, which ``cardarena ratings`` also reads with the
        plain SQLite driver)."""
        sql, params = ratings_query(game)
        with self._read() as session:  # columns, not table objects: a table of 1,000 bots is one fetch
            rows = [tuple(r) for r in session.execute(text(sql), params)]
        return ranked(rows)

    def rating_history(self, bot: str, game: str) -> list[RatingChange]:
        """One bot's rating after each of its matches of a game, in recording order."""
        with self._read() as session:
            b = self._bot_row(session, bot)
            q = (select(RatingHistory).join(MatchLog, MatchLog.match_id == RatingHistory.match_id)
                 .where(RatingHistory.bot_id == b.id, RatingHistory.game == game)
                 .order_by(MatchLog.seq, RatingHistory.seat))
            return [RatingChange(h.seat, bot, game, h.rated, h.mu_before, h.sigma_before, h.mu, h.sigma)
                    for h in session.exec(q)]

    def rating_histories(self, game: str) -> dict[str, list[RatingChange]]:
        """Every bot's :meth:`rating_history` in a game, in one query, every match of it (the
        web draws its charts from :meth:`rating_lines`, bounded)."""
        with self._read() as session:
            q = (select(RatingHistory, Bot.name).join(MatchLog, MatchLog.match_id == RatingHistory.match_id)
                 .join(Bot, Bot.id == RatingHistory.bot_id)
                 .where(RatingHistory.game == game).order_by(MatchLog.seq, RatingHistory.seat))
            out: dict[str, list[RatingChange]] = defaultdict(list)
            for h, name in session.exec(q):
                out[name].append(RatingChange(h.seat, name, game, h.rated, h.mu_before, h.sigma_before, h.mu, h.sigma))
            return dict(out)

    def rating_lines(self, game: str | None = None, bots: Iterable[str] | None = None,
                     points: int = 60) -> dict[tuple[str, str], list[tuple[float, float]]]:
        """Each bot's rating line, bounded: ``(bot, game)`` → (μ, σ) after its rated matches,
        oldest first, at most ``points`` of them, in one query (the web's charts).

        A line longer than ``points`` is thinned in SQL, evenly: with ``n`` rated matches and
        ``k = ⌈n / points⌉``, it keeps every ``k``-th match counted back from the last one, so the
        last (the current rating) is always there, and a chart costs the same for a bot of ten
        matches and one of a hundred thousand. Self-play seats (not rated) are left out.
        ``game`` and ``bots`` (names) restrict it; unknown names have no line.
        """
        if points < 1:
            raise LedgerError(f"a rating line needs at least one point, not {points}")
        kept = _line_statement(game is not None, bots is not None)
        params = {"game": game, "bots": list(bots or ()), "points": points}
        found: dict[tuple[str, str], list[tuple[int, float, float]]] = defaultdict(list)
        with self._read() as session:
            for name, g, back, mu, sigma in session.connection().execute(kept, params).all():
                found[name, g].append((back, mu, sigma))
        # ordered here, not in SQL: sorting a few points per bot costs less than SQLite's sort
        return {key: [(mu, sigma) for _, mu, sigma in sorted(points, reverse=True)] for key, points in found.items()}

    def _replay(self, session: Session, game: str | None, progress: Progress | None = None):
        """Rate every complete finished match again, in recording order, in memory.

        Returns (ratings by (bot, game) as [μ, σ, matches, wins, place sum], history rows by
        (match, seat), the number of matches replayed). ``progress(done, total)`` is called now
        and then (every :data:`PROGRESS_EVERY` matches, and at the end).
        """
        q = (select(MatchLog.seq, Match.id, Match.game, Seat.seat, Seat.bot_id, Seat.place)
             .join(Match, Match.id == MatchLog.match_id).join(Seat, Seat.match_id == Match.id)
             .where(Match.status == FINISHED))
        if game is not None:
            q = q.where(Match.game == game)
        state: dict[tuple[int, str], list] = {}
        history: dict[tuple[int, int], tuple] = {}
        replayed = 0

        def rate(match_id: int, g: str, seats: list[tuple[int, int, int | None]]) -> None:
            nonlocal replayed
            bot_ids = [b for _, b, _ in seats]
            places = [p for _, _, p in seats]
            if any(p is None for p in places):  # incomplete: check() reports it
                return
            replayed += 1
            start = rules.initial(g)
            current = [tuple(state[b, g][:2]) if (b, g) in state else start for b in bot_ids]
            new = rules.rate_match(g, bot_ids, places, current)
            for (seat, b, place), before, after in zip(seats, current, new):
                if after is not None:
                    row = state.setdefault((b, g), [start[0], start[1], 0, 0, 0])
                    row[0], row[1] = after
                    row[2] += 1
                    row[3] += place == 1
                    row[4] += place
                history[match_id, seat] = (b, g, after is not None, before[0], before[1],
                                           *(after if after is not None else before),
                                           state[b, g][2] if after is not None else None)

        total = 0
        if progress is not None:
            count = select(func.count()).select_from(MatchLog).join(Match, Match.id == MatchLog.match_id) \
                .where(Match.status == FINISHED)
            if game is not None:
                count = count.where(Match.game == game)
            total = session.execute(count).scalar() or 0
            progress(0, total)
        current_id, current_game, seats, seen = None, None, [], 0
        for _seq, match_id, g, seat, bot_id, place in session.execute(q.order_by(MatchLog.seq, Seat.seat)):
            if match_id != current_id:
                if current_id is not None:
                    rate(current_id, current_game, seats)
                    seen += 1
                    if progress is not None and seen % PROGRESS_EVERY == 0:
                        progress(seen, total)
                current_id, current_game, seats = match_id, g, []
            seats.append((seat, bot_id, place))
        if current_id is not None:
            rate(current_id, current_game, seats)
            seen += 1
        if progress is not None:
            progress(seen, max(total, seen))
        return state, history, replayed

    def recompute(self, game: str | None = None, progress: Progress | None = None) -> int:
        """Rebuild ratings and rating history from the finished matches, in recording order.

        Returns the number of matches replayed. The numbers are exactly those stored by
        ``record_match`` (``check`` verifies it without writing). ``progress(done, total)``
        follows the replay (the writes that follow it are one bulk insert). The bots' summaries
        (of the game, or all) are rebuilt from the facts too (:func:`.summary.rebuild`).
        """
        with self._write() as session:
            state, history, replayed = self._replay(session, game, progress)
            hist_delete, rating_delete = delete(RatingHistory), delete(Rating)
            if game is not None:
                hist_delete = hist_delete.where(RatingHistory.game == game)
                rating_delete = rating_delete.where(Rating.game == game)
            session.execute(hist_delete)
            session.execute(rating_delete)
            if state:
                session.execute(insert(Rating), [
                    {"bot_id": b, "game": g, "mu": mu, "sigma": sigma, "matches": m, "wins": w, "place_sum": ps}
                    for (b, g), (mu, sigma, m, w, ps) in state.items()])
            if history:
                session.execute(insert(RatingHistory), [
                    {"match_id": match_id, "seat": seat, "bot_id": b, "game": g, "rated": rated,
                     "mu_before": mb, "sigma_before": sb, "mu": mu, "sigma": sigma, "rated_n": n}
                    for (match_id, seat), (b, g, rated, mb, sb, mu, sigma, n) in sorted(history.items())])
            summary.rebuild(session.connection(), game)
            return replayed

    def check(self, progress: Progress | None = None) -> list[str]:
        """Every problem found in the ledger; empty when it is healthy. Writes nothing.

        ``progress(done, total)`` follows the replay of the ratings, its long part."""
        problems: list[str] = []
        with self._read() as session:
            if self._sqlite:  # the file itself first: on a damaged one, nothing below is worth reading
                damage = [line for (row,) in session.execute(text("PRAGMA quick_check(20)"))
                          for line in str(row).splitlines() if not line.startswith("*** ")]
                if damage != ["ok"]:
                    return [f"the database file is damaged: {d}" for d in damage]
            # Every finished match is complete: all seats placed, a log; nothing else has one.
            for match_id, status, seat, place, score, fault, forfeit in session.execute(
                    select(Match.id, Match.status, Seat.seat, Seat.place, Seat.score, Seat.faults, Seat.forfeited)
                    .join(Seat, Seat.match_id == Match.id, isouter=True)
                    .where(Match.status == FINISHED).order_by(Match.id, Seat.seat)):
                if seat is None:
                    problems.append(f"match {match_id} is finished but has no seats")
                elif place is None or score is None or fault is None or forfeit is None:
                    problems.append(f"match {match_id} is finished but seat {seat} has no result")
            logged = select(MatchLog.match_id)
            for (match_id,) in session.execute(select(Match.id).where(Match.status == FINISHED,
                                                                      Match.id.not_in(logged))):
                problems.append(f"match {match_id} is finished but has no event log")
            for match_id, status in session.execute(select(Match.id, Match.status).where(
                    Match.status != FINISHED, Match.id.in_(logged))):
                problems.append(f"match {match_id} is {status} but has an event log")
            for match_id, status in session.execute(select(Match.id, Match.status).where(
                    Match.status != FINISHED, Match.id.in_(select(RatingHistory.match_id)))):
                problems.append(f"match {match_id} is {status} but has rating history")
            seat_counts = dict(session.execute(select(Seat.match_id, func.count()).group_by(Seat.match_id)).all())
            for match_id, n in session.execute(select(RatingHistory.match_id, func.count())
                                               .group_by(RatingHistory.match_id)):
                if n > seat_counts.get(match_id, 0):
                    problems.append(f"match {match_id} is counted {n} times for {seat_counts.get(match_id, 0)} seats")

            # The ratings and their history are what the finished matches give, to the last bit.
            state, history, _ = self._replay(session, None, progress)
            names = dict(session.execute(select(Bot.id, Bot.name)).all())
            stored = {(r.bot_id, r.game): r for r in session.exec(select(Rating))}
            for key in sorted(stored.keys() | state.keys(), key=lambda k: (k[1], names.get(k[0], ""))):
                bot_id, g = key
                who = f"{names.get(bot_id, bot_id)} in {g}"
                row, want = stored.get(key), state.get(key)
                if want is None:
                    if row.matches or (row.mu, row.sigma) != rules.initial(g):
                        problems.append(f"rating of {who} is stored but no finished match gives it")
                elif row is None:
                    problems.append(f"rating of {who} is missing (recompute would give μ={want[0]!r})")
                else:
                    have = [row.mu, row.sigma, row.matches, row.wins, row.place_sum]
                    if have != want:
                        diff = ", ".join(f"{k} {h!r} ≠ {w!r}" for k, h, w in
                                         zip(("μ", "σ", "matches", "wins", "place sum"), have, want) if h != w)
                        problems.append(f"rating of {who} differs from its recomputation: {diff}")
            stored_history = {(h.match_id, h.seat): (h.bot_id, h.game, h.rated, h.mu_before, h.sigma_before,
                                                     h.mu, h.sigma, h.rated_n)
                              for h in session.exec(select(RatingHistory))}
            wrong = sorted({m for m, _ in stored_history.keys() ^ history.keys()} |
                           {k[0] for k in stored_history.keys() & history.keys() if stored_history[k] != history[k]})
            for match_id in wrong:
                problems.append(f"rating history of match {match_id} differs from its recomputation")

            # The bots' summaries are what the finished seats add up to (ratings/summary.py).
            conn = session.connection()
            want_sums = summary.from_facts(conn)
            have_sums = {(r.bot_id, r.game): dict(r._mapping) for r in conn.execute(select(*BotSummary.__table__.c))}
            for key in sorted(have_sums.keys() | want_sums.keys(), key=lambda k: (k[1], names.get(k[0], ""))):
                if have_sums.get(key) != want_sums.get(key):
                    problems.append(f"summary of {names.get(key[0], key[0])} in {key[1]} differs from its "
                                    "finished seats (`ratings recompute` rebuilds it)")
        return problems


@functools.cache
def _matches_statement(league: bool, game: bool, status: bool, kind: bool, bot: bool, limited: bool):
    """``Ledger.matches``'s statement, built once for each set of filters (parameters
    ``league_id``, ``game``, ``status``, ``kind``, ``bot_id``, ``limit``): newest first; a bot's
    matches through its seats' index."""
    q = select(*_LISTED)
    for used, column in ((league, "league_id"), (game, "game"), (status, "status"), (kind, "kind")):
        if used:
            q = q.where(_match[column] == bindparam(column))
    if bot:
        q = q.where(_match.id.in_(select(_seat.match_id).where(_seat.bot_id == bindparam("bot_id"))))
    q = q.order_by(_match.id.desc())
    return q.limit(bindparam("limit", type_=Integer)) if limited else q


@functools.cache
def _sqlite_text(statement) -> tuple[str, tuple[str, ...], dict]:
    """A statement compiled once for SQLite's own driver (:func:`_listed_sqlite`): its text,
    its parameters' names in their order, and the values SQLAlchemy gives those it made."""
    from sqlalchemy.dialects import sqlite
    compiled = statement.compile(dialect=sqlite.dialect())
    return str(compiled), tuple(compiled.positiontup), dict(compiled.params)


#: The seats of listed matches on SQLite (:func:`_listed_sqlite`): their ids as one JSON array.
_LISTED_SEATS_SQLITE = _LISTED_SEATS_OF.where(
    _seat.match_id.in_(select(func.json_each(bindparam("ids")).table_valued("value").c.value)))


def _iso_utc(stored: str | None) -> str | None:
    """A time as SQLite holds it, in ISO 8601 as UTC: what SQLAlchemy's reading of it
    (``UTCDateTime``: naive means UTC) and ``isoformat()`` give. The form SQLAlchemy writes
    (``2026-01-01 00:00:30.000000``, naive UTC) is cut and joined as text; any other is read."""
    if stored is None:
        return None
    if len(stored) == 26 and stored[10] == " " and stored[19] == ".":
        fraction = "" if stored.endswith("000000") else stored[19:]  # isoformat() leaves out a zero one
        return f"{stored[:10]}T{stored[11:19]}{fraction}+00:00"
    when = datetime.fromisoformat(stored)
    return (when.replace(tzinfo=timezone.utc) if when.utcoffset() is None else when.astimezone(timezone.utc)).isoformat()


def _listed_sqlite(conn, statement, params: dict) -> list[dict]:
    """``Ledger.matches(..., as_json=True)`` on SQLite: the statement's rows (:data:`_LISTED`)
    and their seats read through SQLite's own driver, in the session's transaction, without
    SQLAlchemy's rows and type conversions (most of a listing's time on SQLite: issue 15.8;
    tests/ratings/test_ledger.py holds the answers equal to ``MatchInfo.to_json()``)."""
    driver = conn.connection.driver_connection
    sql, names, made = _sqlite_text(statement)
    values = made | params
    rows = driver.execute(sql, tuple(values[n] for n in names)).fetchall()
    if not rows:
        return []
    seats_sql = _sqlite_text(_LISTED_SEATS_SQLITE)[0]
    seats: dict[int, list] = defaultdict(list)
    for match_id, _seat_no, name, score, place in driver.execute(seats_sql, (json.dumps([r[0] for r in rows]),)):
        seats[match_id].append((name, score, place))
    out = []
    for match_id, game, seed, options, status, league_id, round_, position, duplicate_set, created_at, \
            finished_at, fail_reason, kind, committed, salt, spent in rows:
        at = seats[match_id]
        d = listed_json(match_id, game, seed, json.loads(options), status, [s[0] for s in at], [s[1] for s in at],
                        [s[2] for s in at], league_id, round_, position, duplicate_set, None, None, fail_reason, kind,
                        committed, salt, spent)
        d["created_at"], d["finished_at"] = _iso_utc(created_at), _iso_utc(finished_at)
        out.append(d)
    return out


@functools.cache
def _line_statement(by_game: bool, by_bots: bool):
    """``Ledger.rating_lines``'s statement, built once for each filter (building it is a good
    part of a small query's time); parameters ``game``, ``bots`` (expanding) and ``points``.

    A rated row's place back from the bot's last rated match is ``matches − rated_n + 1``
    (``rating.matches`` counts the same rated matches), so the thinning is a filter on the index
    ``(bot_id, game, rated_n, mu, sigma)``: no window, no sort, no ``match_log`` row."""
    rh = RatingHistory.__table__.c
    points = bindparam("points", type_=Integer)
    back = _rating.matches - rh.rated_n + 1
    step = (_rating.matches + points - 1) // points
    q = (select(_bot.name, rh.game, back.label("back"), rh.mu, rh.sigma)
         .join_from(RatingHistory.__table__, Bot.__table__, _bot.id == rh.bot_id)
         .join(Rating.__table__, (_rating.bot_id == rh.bot_id) & (_rating.game == rh.game))
         .where(rh.rated_n.is_not(None), (back - 1) % step == 0))
    if by_game:
        q = q.where(rh.game == bindparam("game"))
    if by_bots:
        q = q.where(_bot.name.in_(bindparam("bots", expanding=True)))
    return q


def _status(status: str) -> str:
    if status not in STATUSES:
        raise LedgerError(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
    return status
