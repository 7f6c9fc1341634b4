"""The referee: conducts matches between bots connected over the ``Referee.Play`` stream.

It wraps the rules (:class:`~cardarena.server.match.Match`) with everything a tournament needs
and the rules must not know (STYLE.md 4): which bot holds which seat, deadlines, faults,
notices, and the omniscient log. The transport (grpc.aio) lives in ``service.py``; this module
only sees *links*, one per open stream.

Conduct (DESIGN.md "Referee rules of conduct"), as implemented here:

* Every decision has a deadline: ``move_seconds`` plus whatever is left of the seat's bank
  (``bank_seconds`` per match). Time is measured by the referee from sending the decision to
  receiving the answer; the part of an answer's time beyond ``move_seconds`` is taken from the
  bank. The decision carries ``time_left`` and ``bank_left``.
* A **fault** is: no answer by the deadline (``late``), or a choice that is not an index of the
  decision's actions (``out-of-range``). The game's default action is played for the seat, the
  bot gets a ``Notice`` saying what happened, and the fault is counted for the seat.
* An answer whose ids name no pending decision of this bot (a late answer to an expired
  decision, a duplicate, another bot's decision) is never applied to anything: the bot gets an
  ``UNKNOWN_DECISION`` notice. Decision ids are unique within a match, so a late answer can
  never be taken for a later decision.
* After ``max_faults`` faults in a match (0: never) the seat **forfeits**: the default policy
  plays it out and it is placed below every seat that did not forfeit.
* A bot that connects again (a new stream with the same identity) replaces its old stream and is
  sent its pending decisions again; their deadlines keep running.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardarena.v1 import referee_pb2 as pb

from . import wire
from .games import Result
from .match import Fault, Match

log = logging.getLogger("cardarena.referee")

VERSION = "0.1.0"


@dataclass(frozen=True)
class TimeControl:
    """Time rules of a match: per-decision time, an optional bank, the fault limit."""

    move_seconds: float = 2.0
    bank_seconds: float = 0.0
    max_faults: int = 3
    grace_seconds: float = 10.0

    def message(self) -> pb.TimeControl:
        return pb.TimeControl(move_seconds=self.move_seconds, bank_seconds=self.bank_seconds,
                              max_faults=self.max_faults)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Link:
    """One open ``Play`` stream of a bot: an outbox the stream writer drains."""

    def __init__(self, bot: str, peer: str = ""):
        self.bot = bot
        self.peer = peer
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.closed = False
        self.games: tuple[str, ...] = ()

    def send(self, msg: pb.RefereeMessage) -> None:
        if not self.closed:
            self.outbox.put_nowait(msg)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(None)


@dataclass
class Pending:
    match_id: str
    seat: int
    decision_id: int
    n_actions: int
    message: pb.RefereeMessage
    future: asyncio.Future


@dataclass
class BotStats:
    """Per-bot figures: decisions answered, faults, and the referee-measured latency."""

    decisions: int = 0
    faults: int = 0
    latency_total: float = 0.0
    latency_max: float = 0.0

    @property
    def latency_mean(self) -> float:
        return self.latency_total / self.decisions if self.decisions else 0.0


@dataclass
class MatchOutcome:
    """A finished match as the ledger records it."""

    match_id: str
    game_id: str
    bots: list[str]
    seed: int
    options: dict
    result: Result
    faults: list[int]
    forfeited: list[bool]
    steps: list[dict[int, int]]
    events: list[dict]
    fault_log: list[Fault]
    duration: float
    decisions: int


def place_forfeits_last(result: Result, forfeited: Sequence[bool]) -> Result:
    """Places with every forfeited seat below every seat that did not forfeit.

    Within each group the game's own order holds (ties still share a place).
    """
    if not any(forfeited):
        return result
    n = len(result.places)
    key = [(1 if forfeited[s] else 0, result.places[s]) for s in range(n)]
    places = tuple(1 + sum(1 for o in key if o < key[s]) for s in range(n))
    return Result(result.scores, places, result.higher_is_better, {**result.details, "forfeited": list(forfeited)})


class Referee:
    """Hosts matches for connected bots. One per server process; many matches at once."""

    def __init__(self, authenticate: Callable[[str], str | None] | None = None,
                 time_control: TimeControl = TimeControl()):
        self._authenticate = authenticate or (lambda token: None)
        self._sessions: dict[str, str] = {}
        self.time_control = time_control
        self.links: dict[str, Link] = {}
        self._connected: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.pending: dict[str, dict[tuple[str, int], Pending]] = defaultdict(dict)
        self.stats: dict[str, BotStats] = defaultdict(BotStats)
        self.active_matches = 0

    # ----- identity ------------------------------------------------------------------------
    def mint_session_token(self, bot: str) -> str:
        """A token valid while this referee runs, for a bot the caller starts itself."""
        token = secrets.token_urlsafe(32)
        self._sessions[token_hash(token)] = bot
        return token

    def authenticate(self, token: str) -> str | None:
        """The bot name a token belongs to, or None. Never logs the token."""
        if not token:
            return None
        h = token_hash(token)
        for known, bot in self._sessions.items():
            if hmac.compare_digest(known, h):
                return bot
        return self._authenticate(token)

    # ----- links ---------------------------------------------------------------------------
    def attach(self, link: Link) -> None:
        old = self.links.get(link.bot)
        if old is not None and old is not link:
            old.send(pb.RefereeMessage(notice=pb.Notice(
                kind=pb.Notice.INFO, message="a new connection of this bot replaces this one")))
            old.close()
        self.links[link.bot] = link
        self._connected[link.bot].set()
        for p in self.pending[link.bot].values():
            link.send(p.message)
        log.info("bot %s connected from %s", link.bot, link.peer)

    def detach(self, link: Link) -> None:
        link.close()
        if self.links.get(link.bot) is link:
            del self.links[link.bot]
            self._connected[link.bot].clear()
            log.info("bot %s disconnected", link.bot)

    def is_connected(self, bot: str) -> bool:
        return bot in self.links

    async def wait_for_bots(self, bots: Sequence[str], timeout: float) -> list[str]:
        """Wait until every bot has a link; returns the ones still missing at the timeout."""
        async def one(bot: str) -> None:
            await self._connected[bot].wait()
        try:
            await asyncio.wait_for(asyncio.gather(*(one(b) for b in set(bots))), timeout)
        except (TimeoutError, asyncio.TimeoutError):
            pass
        return sorted(b for b in set(bots) if b not in self.links)

    def on_answer(self, link: Link, answer: pb.Answer) -> None:
        """An answer from a bot's stream; only a pending decision of that bot can take it."""
        p = self.pending[link.bot].get((answer.match_id, answer.decision_id))
        if p is None or p.seat != answer.seat or p.future.done():
            link.send(pb.RefereeMessage(notice=pb.Notice(
                kind=pb.Notice.UNKNOWN_DECISION, match_id=answer.match_id, seat=answer.seat,
                decision_id=answer.decision_id,
                message="no decision of this bot is pending with these ids (expired, answered, or never sent); ignored")))
            return
        p.future.set_result(answer.choice)

    def notice(self, bot: str, kind: int, match_id: str, seat: int, decision_id: int, message: str) -> None:
        link = self.links.get(bot)
        if link is not None:
            link.send(pb.RefereeMessage(notice=pb.Notice(
                kind=kind, match_id=match_id, seat=seat, decision_id=decision_id, message=message)))

    # ----- matches -------------------------------------------------------------------------
    async def play(self, game_id: str, bots: Sequence[str], seed: int,
                   options: Mapping[str, Any] | None = None, match_id: str = "",
                   time_control: TimeControl | None = None,
                   on_events: Callable[[Match, list], None] | None = None) -> MatchOutcome:
        """Play one match; ``bots[i]`` holds seat ``i``. Returns the outcome to record."""
        tc = time_control or self.time_control
        match = Match(game_id, len(bots), seed, options, match_id)
        game = match.game
        n = len(bots)
        state = _SeatState(n, tc)
        started = time.monotonic()
        decisions = 0
        self.active_matches += 1
        try:
            opts = wire.struct(match.options)
            players = [pb.Player(seat=s, bot=b) for s, b in enumerate(bots)]
            for bot in dict.fromkeys(bots):
                link = self.links.get(bot)
                if link is not None:
                    link.send(pb.RefereeMessage(match_start=pb.MatchStart(
                        match_id=match_id, game=game_id,
                        seats=[s for s, b in enumerate(bots) if b == bot],
                        players=players, options=opts, time_control=tc.message())))
            if on_events:
                on_events(match, [ev for _, ev in match.log])
            while not match.is_over():
                seats = match.to_act()
                if len(seats) == 1:
                    s = seats[0]
                    choices = {s: await self._ask(match, s, bots[s], state, tc)}
                else:
                    picked = await asyncio.gather(*(self._ask(match, s, bots[s], state, tc) for s in seats))
                    choices = dict(zip(seats, picked))
                decisions += len(seats)
                events = match.step(choices)
                if on_events:
                    on_events(match, events)
            result = place_forfeits_last(match.result(), state.forfeited)
            for bot in dict.fromkeys(bots):
                link = self.links.get(bot)
                if link is None:
                    continue
                seen: list = []
                for s, b in enumerate(bots):
                    if b == bot:
                        seen.extend(match.take_events(s))
                link.send(pb.RefereeMessage(match_end=pb.MatchEnd(
                    match_id=match_id, status="finished",
                    results=wire.seat_results(result, list(bots), state.faults, state.forfeited),
                    events=[wire.event_message(game, d) for d in seen])))
            events_out = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                          for step, ev in match.log]
            return MatchOutcome(match_id, game_id, list(bots), seed, dict(match.options), result,
                                state.faults, state.forfeited, match.steps, events_out,
                                state.fault_log, time.monotonic() - started, decisions)
        finally:
            self.active_matches -= 1

    async def _ask(self, match: Match, seat: int, bot: str, state: "_SeatState", tc: TimeControl) -> int:
        if state.forfeited[seat]:
            return match.default_index(seat)
        d = match.decision(seat)
        bank = state.bank[seat]
        time_left = tc.move_seconds + bank
        msg = wire.decision_message(match.game, match.match_id, seat, d.decision_id, d.view, d.actions,
                                    d.events, time_left, bank)
        loop = asyncio.get_running_loop()
        p = Pending(match.match_id, seat, d.decision_id, len(d.actions), msg, loop.create_future())
        key = (match.match_id, d.decision_id)
        self.pending[bot][key] = p
        link = self.links.get(bot)
        if link is not None:
            link.send(msg)
        t0 = loop.time()
        try:
            choice = await asyncio.wait_for(p.future, time_left)
        except (TimeoutError, asyncio.TimeoutError):
            state.bank[seat] = 0.0
            return self._fault(match, seat, bot, state, tc, d.decision_id, "late",
                               f"no answer within {time_left:.3f} s; default action played")
        finally:
            self.pending[bot].pop(key, None)
        elapsed = loop.time() - t0
        st = self.stats[bot]
        st.decisions += 1
        st.latency_total += elapsed
        st.latency_max = max(st.latency_max, elapsed)
        if elapsed > tc.move_seconds:
            state.bank[seat] = max(0.0, bank - (elapsed - tc.move_seconds))
        if not 0 <= choice < len(d.actions):
            return self._fault(match, seat, bot, state, tc, d.decision_id, "out-of-range",
                               f"choice {choice} is not in 0…{len(d.actions) - 1}; default action played")
        return choice

    def _fault(self, match: Match, seat: int, bot: str, state: "_SeatState", tc: TimeControl,
               decision_id: int, kind: str, message: str) -> int:
        state.faults[seat] += 1
        self.stats[bot].faults += 1
        fault = Fault(seat, len(match.steps), kind, message)
        state.fault_log.append(fault)
        match.faults.append(fault)
        notice_kind = {"late": pb.Notice.LATE, "out-of-range": pb.Notice.OUT_OF_RANGE}.get(kind, pb.Notice.MALFORMED)
        self.notice(bot, notice_kind, match.match_id, seat, decision_id, message)
        log.info("match %s seat %d (%s): %s fault: %s", match.match_id, seat, bot, kind, message)
        if tc.max_faults and state.faults[seat] >= tc.max_faults and not state.forfeited[seat]:
            state.forfeited[seat] = True
            self.notice(bot, pb.Notice.FORFEIT, match.match_id, seat, decision_id,
                        f"{state.faults[seat]} faults: the seat forfeits; the default policy plays it out")
        return match.default_index(seat)


@dataclass
class _SeatState:
    n: int
    tc: TimeControl
    faults: list[int] = field(init=False)
    forfeited: list[bool] = field(init=False)
    bank: list[float] = field(init=False)
    fault_log: list[Fault] = field(default_factory=list)

    def __post_init__(self):
        self.faults = [0] * self.n
        self.forfeited = [False] * self.n
        self.bank = [self.tc.bank_seconds] * self.n
