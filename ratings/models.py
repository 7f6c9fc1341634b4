"""The ledger's tables (SQLModel) and the plain records the :class:`~cardarena.ratings.Ledger` returns.

Tables: ``bot``, ``league``, ``match``, ``seat``, ``match_log`` (its ``seq`` is the rating order),
``rating``, ``rating_history``, ``bot_summary``, ``bot_version`` and ``bot_log``; what one row of each holds is in
docs/ledger.md.

Facts are appended and never rewritten once a match is finished: bots, leagues, matches, their
seats and their event logs (an old match's may be pruned: ``Ledger.prune``, its result kept). Ratings are derived from the facts (:mod:`cardarena.ratings.rating`)
and can be rebuilt from them at any time (``Ledger.recompute``); so are the bots' summaries
(``bot_summary``, :mod:`cardarena.ratings.summary`), which ``record_match`` keeps up to date and
``recompute`` rebuilds.

The schema has a version and migrations (:mod:`cardarena.ratings.schema`, Alembic): a change
here is a new migration under ``ratings/migrations/versions``.

A match's ``status`` goes ``scheduled`` → ``running`` (claimed by one referee process) →
``finished`` (recorded, rated) or ``failed`` (no result, no rating change). A league match is
claimed on a lease (``worker``, ``lease_until``) and may be taken over once it runs out; a
match claimed without a lease is never taken over. :data:`INDEXES` serve the web pages' reads.

Design notes and measurements: docs/ledger.md (models).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from .table import RatingRow  # noqa: F401  (one line of a rating table: defined there, light to import)

SCHEDULED, RUNNING, FINISHED, FAILED = "scheduled", "running", "finished", "failed"
STATUSES = (SCHEDULED, RUNNING, FINISHED, FAILED)
LEAGUE, LADDER, AD_HOC = "league", "ladder", "match"
KINDS = (LEAGUE, LADDER, AD_HOC)
#: A league's settings every match seed derives from: shown only once the league has ended.
SECRET_SETTINGS = ("seed", "secret")


def utcnow() -> datetime:
    """Now, in UTC (every time in the ledger is an aware UTC datetime)."""
    return datetime.now(timezone.utc)


# --------------------------------------------------------------------------------- tables


class Bot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    token_hash: str = Field(unique=True, index=True)  # hex SHA-256 of the token; never the token
    created_at: datetime = Field(default_factory=utcnow)
    owner: str | None = None
    paused: bool | None = None           # benched from the ladders by hand (`bot pause`)
    benched_until: datetime | None = None  # benched by the quarantine rule until then (UTC)
    bench_reason: str | None = None


class League(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game: str = Field(index=True)
    options: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    settings: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Match(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("league_id", "round", "index"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int | None = Field(default=None, foreign_key="league.id", index=True)
    game: str = Field(index=True)
    seed: int = Field(sa_type=BigInteger)
    deal_salt: str | None = None        # the commitment's salt (32 hex digits): secret until the deal is spent
    deal_commitment: str | None = None  # SHA-256 of game, id, seed and salt (cardarena.server.deal)
    options: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    round: int | None = None       # schedule position in a league; None for an ad-hoc match
    index: int | None = None
    duplicate_set: int | None = None  # matches of one set replay the same deal, seats rotated
    status: str = Field(default=SCHEDULED, index=True)
    kind: str | None = None          # league, ladder or match (KINDS)
    fail_reason: str | None = None
    duration_s: float | None = None
    result_details: dict | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    claimed_at: datetime | None = None
    finished_at: datetime | None = None
    worker: str | None = None          # the worker that claimed it (while running; kept once recorded)
    lease_until: datetime | None = None  # its claim holds until then (UTC); None: no lease
    pruned_at: datetime | None = None  # its step and event logs were dropped then (UTC; ``Ledger.prune``)


class Seat(SQLModel, table=True):
    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    score: float | None = None
    place: int | None = None
    faults: int | None = None
    forfeited: bool | None = None


class MatchLog(SQLModel, table=True):
    __tablename__ = "match_log"

    seq: int | None = Field(default=None, primary_key=True)  # recording order
    match_id: int = Field(foreign_key="match.id", unique=True)
    events: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    steps: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Rating(SQLModel, table=True):
    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    game: str = Field(primary_key=True)
    mu: float
    sigma: float
    matches: int = 0    # rated matches
    wins: int = 0       # rated matches with place 1 (a shared first place counts)
    place_sum: int = 0  # sum of the places of the rated matches (mean place = place_sum / matches)


class RatingHistory(SQLModel, table=True):
    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)  # a match is never counted twice

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    bot_id: int = Field(foreign_key="bot.id", index=True)
    game: str
    rated: bool          # False for a self-play seat (its bot holds several seats of the match)
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    rated_n: int | None = None  # rated: its bot's rated matches of the game so far, this one included


class BotSummary(SQLModel, table=True):
    """Derived from the finished seats, never a fact (:mod:`cardarena.ratings.summary`): kept by
    ``record_match``, rebuilt by ``recompute``, compared with the facts by ``check``."""
    __tablename__ = "bot_summary"

    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    game: str = Field(primary_key=True)
    seats: int = 0          # finished seats (a self-play match counts each seat)
    wins: int = 0           # seats placed first
    place_sum: int = 0      # sum of their places
    faults: int = 0         # sum of their faults
    forfeits: int = 0       # seats forfeited
    fault_kinds: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # kind → count
    latency: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # bin → count, merged
    latency_seats: int = 0  # seats with a latency histogram


class BotVersion(SQLModel, table=True):
    """One submission of a hosted bot (``bot submit``): its files and commands, and the bot row
    (``player``, named ``NAME@K``) its matches and ratings are kept under. ``state``: building,
    active (the one the arena runs; at most one a bot), failed (its build failed: never
    scheduled) or retired."""
    __tablename__ = "bot_version"
    __table_args__ = (UniqueConstraint("bot_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)          # the bot that submitted it
    number: int                                                     # K of NAME@K, from 1
    player_id: int = Field(foreign_key="bot.id", unique=True)      # the bot row NAME@K plays as
    sha256: str                      # of the files as submitted (a tar of them, sorted: docs/hosted.md)
    size: int                        # bytes of the files as submitted, unpacked
    created_at: datetime = Field(default_factory=utcnow)
    run: str                         # the command that starts it, in its folder
    build: str | None = None         # the command run once after the upload; None: no build
    state: str = "building"
    built_at: datetime | None = None
    build_log: str | None = None     # the tail of the build's output (the owner's to read)
    files: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # gzipped tar of what runs


class BotLog(SQLModel, table=True):
    """The tail of a hosted bot's output during one match (the owner's to read: ``bot logs``)."""
    __tablename__ = "bot_log"

    id: int | None = Field(default=None, primary_key=True)
    match_id: int | None = Field(default=None, foreign_key="match.id", index=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)   # the version's bot row (NAME@K)
    created_at: datetime = Field(default_factory=utcnow)
    text: str


#: The indexes added for the web's reads (module docstring); ``Ledger`` creates any one missing.
INDEXES = (
    Index("ix_seat_bot_match", Seat.__table__.c.bot_id, Seat.__table__.c.match_id),
    Index("ix_match_kind", Match.__table__.c.kind, Match.__table__.c.id),
    Index("ix_rating_history_line", *(RatingHistory.__table__.c[k]
                                      for k in ("bot_id", "game", "rated", "match_id", "mu", "sigma"))),
    Index("ix_rating_history_points", *(RatingHistory.__table__.c[k]
                                        for k in ("bot_id", "game", "rated_n", "mu", "sigma"))),
    Index("ix_match_prune", Match.__table__.c.pruned_at, Match.__table__.c.finished_at),
)


# --------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class MatchPlan:
    """One scheduled match of a league: its place in the schedule, its seed, its bots by seat."""

    round: int
    index: int
    seed: int
    bots: list[str]
    duplicate_set: int | None = None


@dataclass(frozen=True)
class SeatResults:
    """One match of a league with its seats' results, without its log (``Ledger.league_results``).

    Lists are by seat; the results are ``None`` until the match is finished.
    """

    match_id: int
    round: int | None
    index: int | None
    duplicate_set: int | None
    seed: int
    status: str
    bots: list[str]
    scores: list[float | None]
    places: list[int | None]
    faults: list[int | None]
    forfeited: list[bool | None]
    #: per seat: absent (forfeited, its bot never connected during the match: not rated); empty
    #: when not known (every seat then counts as present)
    absent: list[bool] = field(default_factory=list)


@dataclass(frozen=True)
class BotInfo:
    id: int
    name: str
    created_at: datetime
    owner: str | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "created_at": self.created_at.isoformat(), "owner": self.owner}


@dataclass(frozen=True)
class BotState:
    """A bot's standing on the ladders as the ledger keeps it (the arena adds playing/idle/away)."""
    name: str
    owner: str | None
    paused: bool
    benched_until: datetime | None  # UTC; in the past once the bench is over
    bench_reason: str | None

    def benched(self, now: datetime) -> bool:
        return self.benched_until is not None and self.benched_until > now


@dataclass(frozen=True)
class LeagueInfo:
    id: int
    game: str
    options: dict
    settings: dict
    created_at: datetime
    counts: dict[str, int]  # matches by status, every status present

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> bool:
        """No match is left to play (every match finished or failed)."""
        return self.counts[SCHEDULED] == 0 and self.counts[RUNNING] == 0

    @property
    def organizer_seeded(self) -> bool:
        """Its seeds derive from a seed the organizer gave (``--seed``; or a league of a
        cardarena that had no league secrets): whoever knows that seed knows every hand."""
        return not self.settings.get("secret")

    def to_json(self, reveal: bool = False) -> dict:
        """The league as JSON: its seed and secret only with ``reveal`` (once the league has
        ended: nothing still to be played derives from them)."""
        settings = dict(self.settings)
        if not reveal:
            for key in SECRET_SETTINGS:
                if settings.get(key) is not None:
                    settings[key] = None
        return {"id": self.id, "game": self.game, "options": self.options, "settings": settings,
                "organizer_seeded": self.organizer_seeded,
                "created_at": self.created_at.isoformat(), "counts": dict(self.counts), "total": self.total}


@dataclass(frozen=True)
class MatchInfo:
    """A match as listed: who sits where and, once finished, the scores and places."""

    id: int
    game: str
    seed: int
    options: dict
    status: str
    bots: list[str]
    scores: list[float | None]
    places: list[int | None]
    league_id: int | None = None
    round: int | None = None
    index: int | None = None
    duplicate_set: int | None = None
    created_at: datetime | None = None
    finished_at: datetime | None = None
    fail_reason: str | None = None
    kind: str | None = None
    deal_commitment: str | None = None
    deal_salt: str | None = None
    #: the deal is spent: the match is finished and so is every match that shares its deal
    #: (a duplicate set's rotations); only then are ``seed`` and ``deal_salt`` public
    deal_spent: bool = False
    #: when its step and event logs were pruned (``Ledger.prune``; its result, ratings and deal
    #: are kept), None while it has them
    pruned_at: datetime | None = None

    @property
    def pruned(self) -> bool:
        return self.pruned_at is not None

    def to_json(self) -> dict:
        """The fields of a listed match as JSON (a :class:`MatchDetail` adds its own): a shallow
        copy, never a deep one (``asdict`` would copy every event of a detail's log). The seed
        and the salt only once the deal is spent (``deal_spent``); the commitment always."""
        return listed_json(self.id, self.game, self.seed, dict(self.options), self.status, list(self.bots),
                           list(self.scores), list(self.places), self.league_id, self.round, self.index,
                           self.duplicate_set, self.created_at, self.finished_at, self.fail_reason, self.kind,
                           self.deal_commitment, self.deal_salt, self.deal_spent, self.pruned_at)


def listed_json(id, game, seed, options, status, bots, scores, places, league_id, round, index, duplicate_set,
                created_at, finished_at, fail_reason, kind, deal_commitment, deal_salt, spent,
                pruned_at=None) -> dict:
    """A listed match as JSON (``MatchInfo.to_json``) from its fields' values, in MatchInfo's
    order (a listing of the ledger builds it straight from its rows, no MatchInfo made), its
    times in ISO 8601; the values are taken as given, never copied. ``seed`` and ``deal_salt``
    are None until the deal is spent: they deal every hand. ``pruned``: its step and event logs
    were dropped (at ``pruned_at``), its result, ratings and deal kept."""
    spent = bool(spent)
    return {"id": id, "game": game, "seed": seed if spent else None, "options": options, "status": status,
            "bots": bots, "scores": scores, "places": places, "league_id": league_id, "round": round,
            "index": index, "duplicate_set": duplicate_set,
            "created_at": created_at.isoformat() if created_at else None,
            "finished_at": finished_at.isoformat() if finished_at else None, "fail_reason": fail_reason,
            "kind": kind, "deal_commitment": deal_commitment, "deal_salt": deal_salt if spent else None,
            "deal_spent": spent, "pruned": pruned_at is not None,
            "pruned_at": pruned_at.isoformat() if pruned_at else None}


@dataclass(frozen=True)
class RatingChange:
    """What one seat's match did to its bot's rating in the match's game."""

    seat: int
    bot: str
    game: str
    rated: bool
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float

    @property
    def delta_mu(self) -> float:
        return self.mu - self.mu_before

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MatchDetail(MatchInfo):
    """Everything the ledger holds of one match: results, faults, the steps and the full log."""

    faults: list[int | None] = field(default_factory=list)
    forfeited: list[bool | None] = field(default_factory=list)
    #: per seat: absent (forfeited, its bot never connected during the match: its fault log's
    #: entry of kind ``absent``); not rated (:mod:`.rating`, rule 4)
    absent: list[bool] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    result_details: dict = field(default_factory=dict)
    duration_s: float | None = None
    claimed_at: datetime | None = None
    rating_changes: list[RatingChange] = field(default_factory=list)

    def to_json(self) -> dict:
        """As :meth:`MatchInfo.to_json`, with the steps and the omniscient log only once the deal
        is spent (a finished rotation of a duplicate set would deal the others' hands)."""
        d = super().to_json()
        shown = self.deal_spent
        d.update(faults=list(self.faults), forfeited=list(self.forfeited), absent=list(self.absent),
                 steps=self.steps if shown else [],
                 events=self.events if shown else [],
                 result_details=self.result_details, duration_s=self.duration_s,
                 claimed_at=self.claimed_at.isoformat() if self.claimed_at else None,
                 rating_changes=[c.to_json() for c in self.rating_changes])
        return d

