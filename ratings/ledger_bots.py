"""The ledger's bots: registration, tokens (stored only hashed), and their standing on the
arena's ladders (paused, benched, their recent conduct). Design notes: docs/ledger.md.
"""
from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import select


from .ledger_hosted import VERSION_NAME
from .models import FINISHED, Bot, BotInfo, BotState, Match, Seat
from .ledger_base import (
    BOT_NAME, LedgerError, _BOT_BY_NAME, _aware, _bot, _bot_info, _match, _seat, hash_token,
)


_STATES = select(_bot.name, _bot.owner, _bot.paused, _bot.benched_until, _bot.bench_reason).order_by(_bot.name)



class BotsMixin:
    """Bots and their tokens, pauses and benches."""

    def add_bot(self, name: str, owner: str | None = None) -> tuple[BotInfo, str]:
        """Register a bot; returns it and its token (shown this once, stored only hashed)."""
        if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
            raise LedgerError(f"{name!r} is not a bot name: use 1-64 letters, digits and _ . - + @ : "
                              "(starting with a letter or digit)")
        if VERSION_NAME.fullmatch(name):
            raise LedgerError(f"{name!r} is not a bot name: NAME@K names version K of a hosted bot "
                              "(`bot submit` makes them)")
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

    def bot_states(self, names: Iterable[str] | None = None, *, standing: bool = False) -> list[BotState]:
        """Every bot's owner, pause and bench, or only those of ``names`` (one query);
        ``standing``: only the bots paused or ever benched (the arena reads those once a second,
        and a ledger of thousands of bots has few)."""
        q = _STATES if names is None else _STATES.where(_bot.name.in_(bindparam("names", expanding=True)))
        if standing:
            q = q.where(_bot.paused.is_(True) | _bot.benched_until.is_not(None))
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
