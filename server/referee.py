"""The referee: conducts matches between bots connected over the ``Referee.Play`` stream.

It wraps the rules (:class:`~cardarena.server.match.Match`) with everything a tournament needs
and the rules must not know (STYLE.md 4): which bot holds which seat, deadlines, faults,
notices, forfeits, and the omniscient log. The transport (grpc.aio) lives in ``service.py``;
this module only sees *links*, one per open stream.

Conduct (DESIGN.md "Referee rules of conduct"), as implemented here — the README repeats it for
bot authors:

* **Time.** Every decision has a deadline: ``move_seconds`` plus what is left of the seat's bank
  (``bank_seconds`` per match). Time is measured by the referee from sending the decision to
  receiving the answer; the part of an answer's time beyond ``move_seconds`` is taken from the
  bank. Every decision carries ``time_left`` and ``bank_left``.
* **Faults**, each counted for the seat, answered by a ``Notice``, and never silently corrected:
  ``late`` (no answer by the deadline: the default action is played and the bank is spent),
  ``out-of-range`` (a choice that is not an index of the actions: the default is played),
  ``unknown-decision`` (an answer naming a seat the bot holds in a running match but no decision
  pending for it — a duplicate, or an invented id: nothing is played, the fault is counted),
  ``malformed`` (a message with neither hello nor answer: every decision the bot has pending
  gets the default action and a fault). An answer that arrives after its decision's deadline is
  ignored with a notice: the ``late`` fault was already counted. An answer naming a seat the bot
  does not hold is ignored with a notice and counted against the bot, not a seat.
  Decision ids are unique within a match, so a late answer is never taken for a later decision.
* **Forfeit.** After ``max_faults`` faults in a match (0: never) the seat forfeits: the default
  policy plays it out and it is placed below every seat that did not forfeit.
* **Disconnects.** A bot without a stream is not faulted for the time it is away: its pending
  decisions are held. If it connects again within ``grace_seconds`` of losing its stream, the new
  stream replaces the old one, the pending decisions are sent again with a fresh clock, and play
  goes on. If not, every seat it holds in the match forfeits. A bot that has not connected when
  a match starts is treated as away since that moment; a league marks the bots that missed its
  start timeout as away for good, so their seats forfeit at once.
* **Floods.** A connection that sends more than ``STRAY_LIMIT`` unusable messages (stray
  answers, malformed messages) is closed; notices stop after ``NOTICE_LIMIT`` of them.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardarena.v1 import referee_pb2 as pb

from . import wire
from .games import Result
from .match import Decision, Fault, Match

log = logging.getLogger("cardarena.referee")

VERSION = "0.1.0"


@dataclass(frozen=True)
class TimeControl:
    """Time rules of a match: per-decision time, an optional bank, the fault limit."""

    move_seconds: float = 2.0
    bank_seconds: float = 0.0
    max_faults: int = 3
    grace_seconds: float = 10.0   # all the time a bot may be away during one match, summed
    max_reconnects: int = 5       # streams a bot may lose and reopen during one match

    def message(self) -> pb.TimeControl:
        return pb.TimeControl(move_seconds=self.move_seconds, bank_seconds=self.bank_seconds,
                              max_faults=self.max_faults)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Link:
    """One open ``Play`` stream of a bot: an outbox the stream writer drains (:meth:`get`)."""

    def __init__(self, bot: str, peer: str = ""):
        self.bot = bot
        self.peer = peer
        self._out: deque = deque()
        self._wake: asyncio.Future | None = None
        self.closed = False
        self.games: tuple[str, ...] = ()
        self.strays = 0
        self.abort_reason = ""

    def _put(self, item) -> None:
        self._out.append(item)
        wake, self._wake = self._wake, None
        if wake is not None and not wake.done():
            wake.set_result(None)

    def send(self, msg: pb.RefereeMessage | bytes) -> None:
        """Queue a message (or one already in wire format) for the bot; dropped once closed."""
        if not self.closed:
            self._put(msg)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._put(None)

    async def get(self) -> pb.RefereeMessage | bytes | None:
        """The next message to write to the stream, in order; ``None`` once the link is closed."""
        while not self._out:
            self._wake = asyncio.get_running_loop().create_future()
            await self._wake
        return self._out.popleft()


STRAY_LIMIT = 200
NOTICE_LIMIT = 20
MALFORMED = object()  # resolves a pending decision when the bot sent a malformed message


_UNSET = object()    # a pending decision's answer before it has one
_EXPIRED = object()  # the answer a decision gets when its deadline passes


class Pending:
    """A decision sent to a bot and not yet judged: its clock, and its answer once it has one."""

    __slots__ = ("match_id", "seat", "decision_id", "n_actions", "message", "wait", "sent_at",
                 "time_left", "deadline", "answer", "answered_at")

    def __init__(self, match_id: str, seat: int, decision_id: int, n_actions: int, message: bytes,
                 wait: "_Wait", sent_at: float, time_left: float):
        self.match_id = match_id
        self.seat = seat
        self.decision_id = decision_id
        self.n_actions = n_actions
        self.message = message  # the RefereeMessage in wire format, sent again after a reconnect
        self.wait = wait
        self.sent_at = sent_at
        self.time_left = time_left
        self.deadline = sent_at + time_left
        self.answer: Any = _UNSET
        self.answered_at = 0.0

    def resolve(self, answer: Any, at: float) -> None:
        """The first answer (a choice, ``MALFORMED`` or ``_EXPIRED``) wins; later ones are ignored."""
        if self.answer is _UNSET:
            self.answer = answer
            self.answered_at = at
            self.wait.one_done()


class _Wait:
    """The decisions of one step, waited for together: the match wakes once, when the last of
    them has its answer or its deadline has passed, and one timer serves all their deadlines
    (it fires at the earliest one still open, expires what is due, and re-arms)."""

    __slots__ = ("loop", "future", "left", "pending", "timer")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.future = loop.create_future()
        self.left = 0
        self.pending: list[Pending] = []
        self.timer: asyncio.TimerHandle | None = None

    def add(self, p: Pending) -> None:
        self.pending.append(p)
        self.left += 1

    def one_done(self) -> None:
        self.left -= 1
        if self.left <= 0 and not self.future.done():
            self.future.set_result(None)

    def arm(self) -> None:
        open_ = [p.deadline for p in self.pending if p.answer is _UNSET]
        if open_:
            self.timer = self.loop.call_at(min(open_), self._fire)

    def _fire(self) -> None:
        self.timer = None
        now = self.loop.time()
        for p in self.pending:
            if p.answer is _UNSET and p.deadline <= now + 1e-6:
                p.resolve(_EXPIRED, now)
        if self.left > 0:
            self.arm()

    async def __call__(self) -> None:
        """Wait until every decision of the step is resolved."""
        if self.left > 0:
            self.arm()
            try:
                await self.future
            finally:
                self.close()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@dataclass
class BotStats:
    """Per-bot figures: decisions answered, faults, and the referee-measured latency."""

    decisions: int = 0
    faults: int = 0
    strays: int = 0
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
        self.runs: dict[str, _Run] = {}
        self._gone_since: dict[str, float] = {}

    @property
    def active_matches(self) -> int:
        return len(self.runs)

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
        self._gone_since.pop(link.bot, None)
        self._connected[link.bot].set()
        for p in self.pending[link.bot].values():
            link.send(p.message)
        log.info("bot %s connected from %s", link.bot, link.peer)

    def detach(self, link: Link) -> None:
        link.close()
        if self.links.get(link.bot) is link:
            del self.links[link.bot]
            self._gone_since[link.bot] = time.monotonic()
            self._connected[link.bot].clear()
            log.info("bot %s disconnected", link.bot)

    def mark_absent(self, bot: str) -> None:
        """The bot missed a league's start: its seats forfeit at once until it connects."""
        if bot not in self.links:
            self._gone_since[bot] = float("-inf")

    def _grace_left(self, bot: str, tc: TimeControl) -> float:
        since = self._gone_since.setdefault(bot, time.monotonic())
        return tc.grace_seconds - (time.monotonic() - since)

    async def _await_return(self, bot: str, tc: TimeControl) -> bool:
        """Wait, within the bot's grace, for a stream of ``bot``; True if it is connected."""
        if bot in self.links:
            return True
        left = self._grace_left(bot, tc)
        if left > 0:
            try:
                await asyncio.wait_for(self._connected[bot].wait(), left)
            except (TimeoutError, asyncio.TimeoutError):
                pass
        return bot in self.links

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
        if p is not None and p.seat == answer.seat:
            if p.answer is _UNSET:
                p.resolve(answer.choice, p.wait.loop.time())
                return
            if p.answer is _EXPIRED:  # its step is still waiting for other seats
                self._stray(link, pb.Notice.UNKNOWN_DECISION, answer,
                            "this answer came after the decision's deadline; the default action was played (late fault)")
                return
        run = self.runs.get(answer.match_id)
        holds = run is not None and 0 <= answer.seat < len(run.bots) and run.bots[answer.seat] == link.bot
        if holds and answer.decision_id in run.expired:
            self._stray(link, pb.Notice.UNKNOWN_DECISION, answer,
                        "this answer came after the decision's deadline; the default action was played (late fault)")
        elif holds:
            self._stray(link, pb.Notice.UNKNOWN_DECISION, answer,
                        "no decision with this id is pending for this seat (answered already, or never sent); ignored")
            self._count_fault(run, answer.seat, answer.decision_id, "unknown-decision",
                              f"answer to decision {answer.decision_id}, which is not pending")
        else:
            self._stray(link, pb.Notice.UNKNOWN_DECISION, answer,
                        "this bot holds no such seat in a running match; ignored")

    def on_malformed(self, link: Link, what: str) -> None:
        """A message the referee cannot use: the bot's pending decisions get the default action."""
        pending = [p for p in self.pending[link.bot].values() if p.answer is _UNSET]
        for p in pending:
            p.resolve(MALFORMED, p.wait.loop.time())
        if not pending:
            self._stray(link, pb.Notice.MALFORMED, None, f"{what}; ignored")
        else:
            link.strays += 1

    def _stray(self, link: Link, kind: int, answer: pb.Answer | None, message: str) -> None:
        link.strays += 1
        self.stats[link.bot].strays += 1
        if link.strays <= NOTICE_LIMIT:
            n = pb.Notice(kind=kind, message=message)
            if answer is not None:
                n.match_id, n.seat, n.decision_id = answer.match_id, answer.seat, answer.decision_id
            link.send(pb.RefereeMessage(notice=n))
        if link.strays > STRAY_LIMIT and not link.closed:
            link.abort_reason = f"more than {STRAY_LIMIT} unusable messages on this connection"
            log.warning("bot %s: %s; closing its stream", link.bot, link.abort_reason)
            link.close()

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
        if match_id in self.runs:
            raise ValueError(f"match {match_id} is being played already")
        run = _Run(match, list(bots), tc)
        game = match.game
        started = time.monotonic()
        self.runs[match_id] = run
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
                elif self._grace_left(bot, tc) <= 0:
                    self._forfeit(run, bot, "not connected when the match started, nor within the grace")
            if on_events:
                on_events(match, [ev for _, ev in match.log])
            loop = asyncio.get_running_loop()
            while not match.is_over():
                seats = match.to_act()
                # every seat to act gets its decision at once (sealed, simultaneous moves);
                # each has its own clock; once all are answered or past their deadlines, the
                # answers are judged in seat order
                wait = _Wait(loop)
                live = [s for s in seats if not run.forfeited[s]]  # a forfeited seat is not asked
                decisions = {d.seat: d for d in match.decisions(live)} if live else {}
                shared: dict | None = {} if len(live) > 1 else None  # parts of the views all share
                sent = [self._send(run, decisions[s], wait, shared) if s in decisions else None for s in seats]
                await wait()
                choices = {s: await self._collect(run, s, p) for s, p in zip(seats, sent)}
                run.decisions += len(seats)
                events = match.step(choices)
                if on_events:
                    on_events(match, events)
            result = place_forfeits_last(match.result(), run.forfeited)
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
                    results=wire.seat_results(result, list(bots), run.faults, run.forfeited),
                    events=[wire.event_message(game, d) for d in seen])))
            events_out = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                          for step, ev in match.log]
            return MatchOutcome(match_id, game_id, list(bots), seed, dict(match.options), result,
                                run.faults, run.forfeited, match.steps, events_out,
                                run.fault_log, time.monotonic() - started, run.decisions)
        finally:
            del self.runs[match_id]
            for bot in set(bots):
                for key in [k for k in self.pending[bot] if k[0] == match_id]:
                    del self.pending[bot][key]

    def _send(self, run: "_Run", d: Decision, wait: _Wait, shared: dict | None) -> Pending:
        """Send a seat's decision and start its clock."""
        match, tc, seat = run.match, run.tc, d.seat
        bot = run.bots[seat]
        bank = run.bank[seat]
        time_left = tc.move_seconds + bank
        msg = wire.decision_bytes(match.game, match.match_id, seat, d.decision_id, d.view, d.actions,
                                  d.events, time_left, bank, run.event_cache, shared)
        p = Pending(match.match_id, seat, d.decision_id, len(d.actions), msg, wait, wait.loop.time(), time_left)
        wait.add(p)
        self.pending[bot][(match.match_id, d.decision_id)] = p
        link = self.links.get(bot)
        if link is not None:
            link.send(msg)
        return p

    async def _collect(self, run: "_Run", seat: int, p: "Pending | None") -> int:
        """Judge the answer to a sent decision (its step's wait is over: it has an answer, or
        its deadline passed).

        The clock started when the decision was sent; while the bot is away its decision is
        held (no clock) within the grace, then sent again with a fresh clock.
        """
        match, tc, bot = run.match, run.tc, run.bots[seat]
        if p is None:
            return match.default_index(seat)
        loop = p.wait.loop
        try:
            while True:
                answer = p.answer
                if answer is not _EXPIRED:
                    break
                if bot in self.links:
                    run.bank[seat] = 0.0
                    run.expired.add(p.decision_id)
                    return self._fault(run, seat, p.decision_id, "late",
                                       f"no answer within {p.time_left:.3f} s; default action played")
                # the bot is away: hold the decision (no clock) until it returns, within its grace
                p.answer = _UNSET
                p.wait = hold = _Wait(loop)  # resolved by an answer that comes after a reconnect
                hold.add(p)
                if not await self._await_return(bot, tc):
                    if p.answer is _UNSET:
                        self._forfeit(run, bot, f"disconnected for more than {tc.grace_seconds:g} s")
                        return match.default_index(seat)
                if p.answer is _UNSET:  # back in time: a fresh clock (attach() sent it again)
                    p.time_left = tc.move_seconds + run.bank[seat]
                    p.sent_at = loop.time()
                    p.deadline = p.sent_at + p.time_left
                    await hold()
        finally:
            self.pending[bot].pop((p.match_id, p.decision_id), None)
        if answer is MALFORMED:
            return self._fault(run, seat, p.decision_id, "malformed",
                               "the bot sent a message with neither hello nor answer; default action played")
        elapsed = (p.answered_at or loop.time()) - p.sent_at
        st = self.stats[bot]
        st.decisions += 1
        st.latency_total += elapsed
        st.latency_max = max(st.latency_max, elapsed)
        if elapsed > tc.move_seconds:
            run.bank[seat] = max(0.0, run.bank[seat] - (elapsed - tc.move_seconds))
        if not 0 <= answer < p.n_actions:
            return self._fault(run, seat, p.decision_id, "out-of-range",
                               f"choice {answer} is not in 0…{p.n_actions - 1}; default action played")
        return answer

    def _fault(self, run: "_Run", seat: int, decision_id: int, kind: str, message: str) -> int:
        """Count a fault for the seat and return the default action's index to play."""
        self._count_fault(run, seat, decision_id, kind, message)
        return run.match.default_index(seat)

    def _count_fault(self, run: "_Run", seat: int, decision_id: int, kind: str, message: str) -> None:
        bot, tc, match = run.bots[seat], run.tc, run.match
        run.faults[seat] += 1
        self.stats[bot].faults += 1
        fault = Fault(seat, len(match.steps), kind, message)
        run.fault_log.append(fault)
        match.faults.append(fault)
        notice_kind = NOTICE_KINDS.get(kind, pb.Notice.MALFORMED)
        self.notice(bot, notice_kind, match.match_id, seat, decision_id, f"{kind}: {message}")
        log.info("match %s seat %d (%s): %s fault: %s", match.match_id, seat, bot, kind, message)
        if tc.max_faults and run.faults[seat] >= tc.max_faults and not run.forfeited[seat]:
            run.forfeited[seat] = True
            run.fault_log.append(Fault(seat, len(match.steps), "forfeit", f"{run.faults[seat]} faults"))
            self.notice(bot, pb.Notice.FORFEIT, match.match_id, seat, decision_id,
                        f"{run.faults[seat]} faults: the seat forfeits; the default policy plays it out")

    def _forfeit(self, run: "_Run", bot: str, why: str) -> None:
        for seat, b in enumerate(run.bots):
            if b == bot and not run.forfeited[seat]:
                run.forfeited[seat] = True
                run.fault_log.append(Fault(seat, len(run.match.steps), "forfeit", why))
                self.notice(bot, pb.Notice.FORFEIT, run.match.match_id, seat, 0,
                            f"the seat forfeits: {why}; the default policy plays it out")
                log.info("match %s seat %d (%s) forfeits: %s", run.match.match_id, seat, bot, why)


NOTICE_KINDS = {"late": pb.Notice.LATE, "out-of-range": pb.Notice.OUT_OF_RANGE,
                "unknown-decision": pb.Notice.UNKNOWN_DECISION, "malformed": pb.Notice.MALFORMED}


class _Run:
    """A match being played: its seats' faults, forfeits, banks, and expired decisions."""

    def __init__(self, match: Match, bots: list[str], tc: TimeControl):
        n = len(bots)
        self.match = match
        self.bots = bots
        self.tc = tc
        self.faults = [0] * n
        self.forfeited = [False] * n
        self.bank = [tc.bank_seconds] * n
        self.fault_log: list[Fault] = []
        self.expired: set[int] = set()
        self.decisions = 0
        self.event_cache: dict[int, pb.Event] = {}
