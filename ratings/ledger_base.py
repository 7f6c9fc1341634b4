"""The ledger's foundation: the database (engine, sessions, schema check), its errors, the
packed logs, and what every part of the ledger shares (the listed match's columns and rows).

Every operation is one transaction (``_read``, ``_write``); every database failure is raised
as one :class:`LedgerStorageError` line (:class:`LedgerUnreachable` where a retry may help).
Design notes: docs/ledger.md.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Iterator, Self

from sqlalchemy import Integer, and_, bindparam, event, exists, or_, text, update
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, create_engine, select

from cardarena.server import deal

from . import schema
from .models import (
    FINISHED, STATUSES, Bot, BotInfo, BotLog, BotSummary, BotVersion, League, Match, MatchInfo, MatchLog,
    Rating, RatingHistory, Seat, listed_json,
)


TABLES = [t.__table__ for t in (Bot, League, Match, Seat, MatchLog, Rating, RatingHistory, BotSummary, BotVersion,
                                BotLog)]


_match, _seat, _bot, _rating = Match.__table__.c, Seat.__table__.c, Bot.__table__.c, Rating.__table__.c


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
           _match.fail_reason, _match.kind, _match.deal_commitment, _match.deal_salt, _SPENT, _match.pruned_at)


#: The seats of listed matches (``Ledger._infos``): by ids (expanding ``ids``), or with a filter added.
_LISTED_SEATS_OF = (select(_seat.match_id, _seat.seat, _bot.name, _seat.score, _seat.place)
                    .join_from(Seat.__table__, Bot.__table__, _bot.id == _seat.bot_id)
                    .order_by(_seat.match_id, _seat.seat))


_LISTED_SEATS = _LISTED_SEATS_OF.where(_seat.match_id.in_(bindparam("ids", expanding=True)))


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


class NotALedgerError(LedgerError):
    """A database or file with no ledger in it, opened by a command that only reads."""


class LedgerVersionError(LedgerError):
    """A ledger of another schema version than this cardarena's (``cardarena ledger upgrade``)."""


class LedgerStorageError(Exception):
    """The database under the ledger failed (docs/ledger.md, "When the database fails")."""


class LedgerUnreachable(LedgerStorageError):
    """The database server could not be reached (docs/ledger.md): worth trying again."""


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
    """An engine for the ledger, with SQLite set up for several processes (docs/ledger.md, "Several processes, one file");
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


def _status(status: str) -> str:
    if status not in STATUSES:
        raise LedgerError(f"unknown status {status!r}: one of {', '.join(STATUSES)}")
    return status



class LedgerBase:
    """The database of one ledger and its sessions (the other parts are mixins over it)."""

    def __init__(self, where: str = ":memory:", *, echo: bool = False, mapped: int = 0, create: bool = True):
        """``mapped``: on SQLite, read up to that many bytes of the file memory-mapped (the web's
        ledger: :data:`WEB_MAPPED`), its pages then read without a system call each. ``create``:
        make the tables of a database that has none (else a :class:`LedgerError`, nothing written:
        a command that only reads)."""
        self.url = database_url(where)
        if not create and self.url.startswith("sqlite:///") and self.url != "sqlite:///:memory:":
            path = Path(self.url[len("sqlite:///"):].split("?", 1)[0])
            if path.is_file() and path.stat().st_size == 0:  # opening it would write SQLite's header
                raise NotALedgerError(f"{where} is not a ledger: it is an empty file")
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
                if not create:
                    self.engine.dispose()
                    raise NotALedgerError(f"{where} is not a ledger: it has no cardarena tables (a league, "
                                          "`bot add` or `cardarena demo` makes them)")
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

    def __enter__(self) -> Self:
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
                finished_at, fail_reason, kind, committed, salt, spent, pruned in (tuple(m)[:len(_LISTED)] for m in rows):
            at = seats[match_id]  # (unpacked: a row's attributes by name cost more than the rest of a listing)
            out.append(make(match_id, game, seed, dict(options), status, [s[0] for s in at], [s[1] for s in at],
                            [s[2] for s in at], league_id, round_, position, duplicate_set, created_at,
                            finished_at, fail_reason, kind, committed, salt, bool(spent), pruned))
        return out
