"""The ledger's hosted bots: each submission of a bot's code is a version (``NAME@K``) with its
files, commands and state, playing as a bot row of its own; and the tail of a hosted bot's output
a match, for its owner. Design notes: docs/hosted.md.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import select

from .ledger_base import LedgerError, _aware, hash_token
from .models import Bot, BotLog, BotVersion, Rating, Seat, utcnow

BUILDING, ACTIVE, FAILED, RETIRED = "building", "active", "failed", "retired"
VERSION_STATES = (BUILDING, ACTIVE, FAILED, RETIRED)
#: NAME@K: the version K of the bot NAME
VERSION_NAME = re.compile(r"(?P<bot>.+)@(?P<number>[1-9]\d{0,8})")


@dataclass(frozen=True)
class VersionInfo:
    """One version of a hosted bot, without its files."""
    bot: str
    number: int
    sha256: str
    size: int
    created_at: datetime
    run: str
    build: str | None
    state: str
    built_at: datetime | None = None
    build_log: str | None = None
    matches: int = 0                                 # finished seats of NAME@K
    ratings: tuple[tuple[str, float, float], ...] = ()  # (game, μ, σ) of NAME@K

    @property
    def name(self) -> str:
        return f"{self.bot}@{self.number}"

    def to_json(self) -> dict:
        return {"name": self.name, "bot": self.bot, "version": self.number, "sha256": self.sha256,
                "size": self.size, "created_at": self.created_at.isoformat(), "run": self.run,
                "build": self.build, "state": self.state,
                "built_at": self.built_at.isoformat() if self.built_at else None, "matches": self.matches,
                "ratings": [{"game": g, "mu": mu, "sigma": s} for g, mu, s in self.ratings]}


@dataclass(frozen=True)
class LogInfo:
    match_id: int | None
    created_at: datetime
    text: str


def split_version(name: str) -> tuple[str, int]:
    """``NAME@K`` → (NAME, K); a LedgerError if it names no version."""
    m = VERSION_NAME.fullmatch(name or "")
    if m is None:
        raise LedgerError(f"{name!r} names no version: give NAME@K (`bot versions NAME` lists them)")
    return m["bot"], int(m["number"])


def is_version_name(name: str) -> bool:
    return VERSION_NAME.fullmatch(name or "") is not None


_COLUMNS = (BotVersion.number, BotVersion.sha256, BotVersion.size, BotVersion.created_at, BotVersion.run,
            BotVersion.build, BotVersion.state, BotVersion.built_at, BotVersion.build_log, BotVersion.player_id)


class HostedMixin:
    """Versions of hosted bots, and their logs."""

    def add_version(self, bot: str, files: bytes, *, sha256: str, size: int, run: str,
                    build: str | None = None) -> VersionInfo:
        """A new version of ``bot``: ``building`` when it has a build command, else ``active``
        at once (the bot's active version before it is retired)."""
        if not run or not run.strip():
            raise LedgerError("a hosted bot needs the command that runs it (--run)")
        with self._write() as session:
            parent = self._bot_row(session, bot)
            if is_version_name(parent.name) and session.exec(
                    select(BotVersion.id).where(BotVersion.player_id == parent.id)).first() is not None:
                raise LedgerError(f"{bot} is a version: submit to the bot itself")
            last = session.exec(select(func.max(BotVersion.number)).where(BotVersion.bot_id == parent.id)).one()
            number = (last or 0) + 1
            name = f"{parent.name}@{number}"
            if session.exec(select(Bot.id).where(Bot.name == name)).first() is not None:
                raise LedgerError(f"a bot named {name!r} exists: version {number} of {bot} cannot be made")
            # a version plays on tokens the hosting server gives it (Referee.mint_session_token);
            # its own row's token is one nobody ever sees
            player = Bot(name=name, token_hash=hash_token(secrets.token_urlsafe(32)), owner=parent.owner)
            session.add(player)
            session.flush()
            state = BUILDING if build else ACTIVE
            if state == ACTIVE:
                self._retire_active(session, parent.id)
            row = BotVersion(bot_id=parent.id, number=number, player_id=player.id, sha256=sha256, size=size,
                             run=run, build=build or None, state=state, files=files,
                             built_at=None if build else utcnow())
            session.add(row)
            session.flush()
            return self._version_info(session, parent.name, row)

    @staticmethod
    def _retire_active(session, bot_id: int) -> None:
        for v in session.exec(select(BotVersion).where(BotVersion.bot_id == bot_id, BotVersion.state == ACTIVE)):
            v.state = RETIRED
            session.add(v)

    def finish_build(self, name: str, ok: bool, log: str, files: bytes | None = None) -> VersionInfo:
        """The build of ``NAME@K`` ended: active (with the built ``files``) or failed."""
        bot, number = split_version(name)
        with self._write() as session:
            row = self._version_row(session, bot, number)
            if row.state != BUILDING:
                raise LedgerError(f"{name} is {row.state}, not building")
            if ok:
                self._retire_active(session, row.bot_id)
                if files is not None:
                    row.files = files
            row.state = ACTIVE if ok else FAILED
            row.build_log = log
            row.built_at = utcnow()
            session.add(row)
            return self._version_info(session, bot, row)

    def set_version_state(self, name: str, state: str) -> VersionInfo:
        """``bot activate NAME@K`` (the bot's active version retired) or ``bot retire NAME@K``."""
        bot, number = split_version(name)
        if state not in (ACTIVE, RETIRED):
            raise LedgerError(f"a version is made active or retired, not {state}")
        with self._write() as session:
            row = self._version_row(session, bot, number)
            if state == ACTIVE:
                if row.state in (BUILDING, FAILED):
                    raise LedgerError(f"{name} is {row.state}: only a version that built can be active")
                if row.state != ACTIVE:
                    self._retire_active(session, row.bot_id)
            row.state = state
            session.add(row)
            return self._version_info(session, bot, row)

    def versions(self, bot: str) -> list[VersionInfo]:
        """Every version of ``bot``, oldest first, with its finished matches and ratings."""
        with self._read() as session:
            parent = self._bot_row(session, bot)
            rows = session.exec(select(BotVersion).where(BotVersion.bot_id == parent.id)
                                .order_by(BotVersion.number)).all()
            return [self._version_info(session, parent.name, r) for r in rows]

    def version_info(self, name: str) -> VersionInfo:
        bot, number = split_version(name)
        with self._read() as session:
            return self._version_info(session, bot, self._version_row(session, bot, number))

    def version_files(self, name: str) -> bytes:
        """The gzipped tar of what ``NAME@K`` runs (after its build)."""
        bot, number = split_version(name)
        with self._read() as session:
            return self._version_row(session, bot, number).files

    def hosted_versions(self, *, states: tuple[str, ...] = (ACTIVE,)) -> list[VersionInfo]:
        """The versions in ``states`` of every bot not paused (the ones a hosting server runs)."""
        with self._read() as session:
            rows = session.exec(select(BotVersion, Bot.name).join(Bot, Bot.id == BotVersion.bot_id)
                                .where(BotVersion.state.in_(states), Bot.paused.is_not(True))
                                .order_by(Bot.name, BotVersion.number)).all()
            return [self._version_info(session, name, v, counts=False) for v, name in rows]

    def is_hosted(self, name: str) -> bool:
        """Whether ``name`` is the bot row of a hosted version (``NAME@K`` with files)."""
        if not is_version_name(name):
            return False
        with self._read() as session:
            return session.exec(select(BotVersion.id).join(Bot, Bot.id == BotVersion.player_id)
                                .where(Bot.name == name)).first() is not None

    def add_bot_log(self, player: str, match_id: int | None, text: str) -> None:
        """Keep the tail of hosted ``NAME@K``'s output during match ``match_id``."""
        with self._write() as session:
            session.add(BotLog(match_id=match_id, bot_id=self._bot_id(session, player), text=text))

    def bot_logs(self, bot: str, match_id: int | None = None, limit: int = 20) -> list[tuple[str, LogInfo]]:
        """The logs of ``bot``'s versions (or of one version, ``NAME@K``), newest first:
        (version name, log)."""
        with self._read() as session:
            if is_version_name(bot) and self.is_hosted(bot):
                ids = {self._bot_id(session, bot): bot}
            else:
                parent = self._bot_row(session, bot)
                ids = {pid: f"{parent.name}@{n}" for pid, n in session.exec(
                    select(BotVersion.player_id, BotVersion.number).where(BotVersion.bot_id == parent.id)).all()}
            q = select(BotLog).where(BotLog.bot_id.in_(list(ids))).order_by(BotLog.id.desc()).limit(limit)
            if match_id is not None:
                q = q.where(BotLog.match_id == match_id)
            return [(ids[r.bot_id], LogInfo(r.match_id, _aware(r.created_at), r.text))
                    for r in session.exec(q).all()]

    # ----- rows ----------------------------------------------------------------------------------
    def _version_row(self, session, bot: str, number: int) -> BotVersion:
        parent = self._bot_row(session, bot)
        row = session.exec(select(BotVersion).where(BotVersion.bot_id == parent.id,
                                                    BotVersion.number == number)).first()
        if row is None:
            raise LedgerError(f"{bot} has no version {number} (`bot versions {bot}` lists them)")
        return row

    @staticmethod
    def _version_info(session, bot: str, row: BotVersion, counts: bool = True) -> VersionInfo:
        matches, ratings = 0, ()
        if counts:
            matches = session.exec(select(func.count()).select_from(Seat).where(Seat.bot_id == row.player_id,
                                                                               Seat.place.is_not(None))).one()
            ratings = tuple((g, mu, s) for g, mu, s in session.exec(
                select(Rating.game, Rating.mu, Rating.sigma).where(Rating.bot_id == row.player_id)
                .order_by(Rating.game)).all())
        return VersionInfo(bot, row.number, row.sha256, row.size, _aware(row.created_at), row.run, row.build,
                           row.state, _aware(row.built_at), row.build_log, matches, ratings)
