"""The referee: conducts matches between bots connected over the ``Referee.Play`` stream.

It wraps the rules (:class:`~cardarena.server.match.Match`) with everything a tournament needs
and the rules must not know (STYLE.md 4): which bot holds which seat, deadlines, faults,
notices, forfeits, and the omniscient log. The transport (grpc.aio) lives in ``service.py``;
this module only sees *links*, one per open stream.

Conduct (DESIGN.md "Referee rules of conduct"; for bot authors: docs/time-control.md): every
decision has a deadline, ``move_seconds`` plus what is left of the seat's bank. A fault
(``late``, ``out-of-range``, ``unknown-decision``, ``malformed``) is counted for the seat,
answered by a ``Notice``, and never silently corrected. After ``max_faults`` faults the seat
forfeits. A disconnected bot's decisions wait with no clock, within ``grace_seconds`` and
``max_reconnects`` per match; a bot with no stream at any time of a match is absent from it
(its forfeit is logged as kind ``absent``). A second stream with the same token replaces the
first. Unusable messages and notices are rate-limited, and a link's outbox is bounded.

Watchers (``Referee.watchers``, the live web pages) are called synchronously on the event loop
at a match's start, after each step and at its end. A watcher must return at once and never
keep the game object; one that raises is dropped. Nothing waits for a watcher.

Design notes and measurements: docs/conduct.md (referee).
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardarena.v1 import referee_pb2 as pb

from cardarena.ratings.rating import ABSENT

from . import deal, wire
from .games import Result
from .match import Decision, Fault, Match

log = logging.getLogger("cardarena.referee")

VERSION = "0.2.0"


@dataclass(frozen=True)
class TimeControl:
    """Time rules of a match: per-decision time, an optional bank, the fault limit, and the two
    limits on being away (module docstring, "Disconnects")."""

    move_seconds: float = 2.0
    bank_seconds: float = 0.0
    max_faults: int = 3
    grace_seconds: float = 10.0   # all the time a bot may be away during one match, summed
    max_reconnects: int = 10      # new streams of a bot while a decision of the match waits for it

    def message(self) -> pb.TimeControl:
        return pb.TimeControl(move_seconds=self.move_seconds, bank_seconds=self.bank_seconds,
                              max_faults=self.max_faults, grace_seconds=self.grace_seconds,
                              max_reconnects=self.max_reconnects)

    def worst_delay(self) -> float:
        """The most a bot can delay one match by disconnecting, beyond the time its decisions
        take anyway: all its time away, plus a fresh clock after each reconnect."""
        return self.grace_seconds + self.max_reconnects * (self.move_seconds + self.bank_seconds)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class _Bucket:
    """A token bucket: ``take()`` succeeds ``burst`` times at once and ``rate`` times a second
    after that (a rate limit that forgives an honest bot's rare mistakes, never a lifetime total)."""

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: float):
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


FLOOD_BURST, FLOOD_RATE = 200, 10.0    # unusable messages a stream may send (module docstring)
NOTICE_BURST, NOTICE_RATE = 20, 2.0    # notices about them
OUTBOX_MESSAGES, OUTBOX_BYTES = 2000, 8 * 1024 * 1024   # what may wait for a bot that does not read


class Link:
    """One open ``Play`` stream of a bot: an outbox the stream writer drains (:meth:`get`).

    The outbox is bounded (``OUTBOX_MESSAGES``, ``OUTBOX_BYTES``): a bot that stops reading has
    its stream cut (:meth:`abort`) instead of the referee buffering for it forever.
    """

    def __init__(self, bot: str, peer: str = "", max_messages: int = 0, max_bytes: int = 0):
        self.bot = bot
        self.peer = peer
        self.max_messages = max_messages or OUTBOX_MESSAGES
        self.max_bytes = max_bytes or OUTBOX_BYTES
        self._out: deque = deque()
        self._bytes = 0
        self._wake: asyncio.Future | None = None
        self.closed = False
        self.games: tuple[str, ...] = ()        # Hello.games: empty is every game
        self.hello: asyncio.Event = asyncio.Event()  # set once the bot has said hello
        self.max_matches = 0                          # Hello.max_matches: 0 is the server's limit
        self.max_matches_per_hour = 0                 # Hello.max_matches_per_hour: 0 is no limit
        self.strays = 0
        self.flood = _Bucket(FLOOD_RATE, FLOOD_BURST)
        self.notices = _Bucket(NOTICE_RATE, NOTICE_BURST)
        self.log_lines = _Bucket(1.0, 5)         # log lines about its undecodable messages
        self.abort_reason = ""
        self.abort_code = "RESOURCE_EXHAUSTED"   # a grpc.StatusCode name, with abort_reason
        self.task: asyncio.Task | None = None    # the stream's handler, cancelled by abort()
        self.pending_write = False               # the handler waits for a write to go out

    def _put(self, item) -> None:
        self._out.append(item)
        wake, self._wake = self._wake, None
        if wake is not None and not wake.done():
            wake.set_result(None)

    def send(self, msg: pb.RefereeMessage | bytes) -> None:
        """Queue a message (or one already in wire format) for the bot; dropped once closed."""
        if self.closed:
            return
        self._bytes += len(msg) if type(msg) is bytes else msg.ByteSize()
        if len(self._out) >= self.max_messages or self._bytes > self.max_bytes:
            self.abort(f"the bot does not read its stream: {len(self._out)} messages "
                       f"({self._bytes // 1024} KiB) waiting", cut=True)
            return
        self._put(msg)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._put(None)

    def abort(self, reason: str, code: str = "RESOURCE_EXHAUSTED", cut: bool = False) -> None:
        """End the stream with a status; ``cut``: at once, dropping what waits (the bot does not
        read, so the writer may be stuck in a write that only cancelling its task ends)."""
        if self.closed:
            return
        self.abort_reason, self.abort_code = reason, code
        (log.info if code == "UNAVAILABLE" else log.warning)("bot %s (%s): %s; closing its stream",
                                                             self.bot, self.peer, reason)
        if cut:
            self._out.clear()
            self._bytes = 0
            if self.task is not None:
                self.task.cancel()
        self.close()

    async def get(self) -> pb.RefereeMessage | bytes | None:
        """The next message to write to the stream, in order; ``None`` once the link is closed."""
        while not self._out:
            self._wake = asyncio.get_running_loop().create_future()
            await self._wake
        msg = self._out.popleft()
        if msg is not None:
            self._bytes -= len(msg) if type(msg) is bytes else msg.ByteSize()
        return msg


MALFORMED = object()  # resolves a pending decision when the bot sent a malformed message


_UNSET = object()     # a pending decision's answer before it has one
_EXPIRED = object()   # the answer a decision gets when its deadline passes
_FORFEITED = object()  # ... when its seat forfeits while the decision waits (the bot stayed away)


class Pending:
    """A decision sent to a bot and not yet judged: its clock, and its answer once it has one.

    While the bot is away the clock is stopped (``deadline`` is infinite); :meth:`restart` gives
    it a fresh one when the bot is back.
    """

    __slots__ = ("match_id", "seat", "decision_id", "n_actions", "message", "wait", "sent_at",
                 "time_left", "deadline", "answer", "answered_at")

    def __init__(self, match_id: str, seat: int, decision_id: int, n_actions: int, message: bytes,
                 wait: "_Wait", sent_at: float, time_left: float, away: bool = False):
        self.match_id = match_id
        self.seat = seat
        self.decision_id = decision_id
        self.n_actions = n_actions
        self.message = message  # the RefereeMessage in wire format, sent again after a reconnect
        self.wait = wait
        self.sent_at = sent_at
        self.time_left = time_left
        self.deadline = math.inf if away else sent_at + time_left
        self.answer: Any = _UNSET
        self.answered_at = 0.0

    def resolve(self, answer: Any, at: float) -> None:
        """The first answer (a choice, ``MALFORMED``, ``_EXPIRED`` or ``_FORFEITED``) wins;
        later ones are ignored."""
        if self.answer is _UNSET:
            self.answer = answer
            self.answered_at = at
            self.wait.one_done()

    def stop_clock(self) -> None:
        self.deadline = math.inf

    def restart(self, time_left: float) -> None:
        """A fresh clock (the bot is back); the step's timer is re-armed for it."""
        self.time_left = time_left
        self.sent_at = self.wait.loop.time()
        self.deadline = self.sent_at + time_left
        self.wait.rearm()


class _Wait:
    """The decisions of one step, waited for together: the match wakes once, when the last of
    them has its answer or its deadline has passed (the match's :class:`_Clock` expires them).
    Decisions of a bot that is away have no deadline: only an answer or the seat's forfeit
    resolves them."""

    __slots__ = ("loop", "future", "left", "pending", "clock")

    def __init__(self, loop: asyncio.AbstractEventLoop, clock: "_Clock"):
        self.loop = loop
        self.future = loop.create_future()
        self.left = 0
        self.pending: list[Pending] = []
        self.clock = clock

    def add(self, p: Pending) -> None:
        self.pending.append(p)
        self.left += 1

    def one_done(self) -> None:
        self.left -= 1
        if self.left <= 0 and not self.future.done():
            self.future.set_result(None)

    def rearm(self) -> None:
        """A deadline changed: make sure the clock fires by the earliest one."""
        if not self.future.done():
            self.clock.arm(self)

    async def __call__(self) -> None:
        """Wait until every decision of the step is resolved."""
        if self.left > 0:
            self.clock.arm(self)
            await self.future


class _Clock:
    """One timer for all the deadlines of a match, step after step: it fires at the earliest
    deadline still open in the step being waited for, expires what is due, and re-arms. A step
    that ends before its deadlines leaves the timer be: the next step's deadlines are later,
    so the timer fires early, finds nothing due and re-arms for them (cheaper than a timer made
    and cancelled at every step)."""

    __slots__ = ("loop", "timer", "at", "wait")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.timer: asyncio.TimerHandle | None = None
        self.at = math.inf
        self.wait: _Wait | None = None

    def arm(self, wait: _Wait) -> None:
        self.wait = wait
        earliest = min([p.deadline for p in wait.pending if p.answer is _UNSET], default=math.inf)
        if earliest == math.inf or (self.timer is not None and self.at <= earliest):
            return
        if self.timer is not None:
            self.timer.cancel()
        self.at = earliest
        self.timer = self.loop.call_at(earliest, self._fire)

    def _fire(self) -> None:
        self.timer = None
        self.at = math.inf
        wait = self.wait
        if wait is None or wait.future.done():
            return
        now = self.loop.time()
        for p in wait.pending:
            if p.answer is _UNSET and p.deadline <= now + 1e-6:
                p.resolve(_EXPIRED, now)
        if wait.left > 0:
            self.arm(wait)

    def stop(self) -> None:
        self.wait = None
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
    #: per seat, the seconds each answered decision took (send to answer; no defaults, no lates)
    latencies: list[list[float]] = field(default_factory=list)
    deal_salt: str = ""        # the deal's salt and commitment (:mod:`cardarena.server.deal`)
    deal_commitment: str = ""


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


ENDED_KEPT = 4096  # finished matches remembered, so that a late answer to one is not a stray


class Referee:
    """Hosts matches for connected bots. One per server process; many matches at once."""

    def __init__(self, authenticate: Callable[[str], str | None] | None = None,
                 time_control: TimeControl = TimeControl(), outbox: tuple[int, int] = (OUTBOX_MESSAGES, OUTBOX_BYTES)):
        self._authenticate = authenticate or (lambda token: None)
        self.outbox = outbox  # (messages, bytes) that may wait for one stream (Link)
        self._sessions: dict[str, tuple[str, bool]] = {}  # token's hash → (bot, unix only)
        self.time_control = time_control
        self.links: dict[str, Link] = {}
        self._connected: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.pending: dict[str, dict[tuple[str, int], Pending]] = defaultdict(dict)
        self.stats: dict[str, BotStats] = defaultdict(BotStats)
        self.runs: dict[str, _Run] = {}
        self._gone_since: dict[str, float] = {}
        self._ended: OrderedDict[str, tuple[list[str], set[int], int]] = OrderedDict()
        self.watchers: set[Callable[[str, "_Run", list], None]] = set()  # module docstring, "Watchers"

    @property
    def active_matches(self) -> int:
        return len(self.runs)

    # ----- identity ------------------------------------------------------------------------
    def mint_session_token(self, bot: str, unix_only: bool = False) -> str:
        """A token valid while this referee runs, for a bot the caller starts itself;
        ``unix_only``: valid only on a stream that came over a Unix socket (a hosted bot's, from
        its sandbox: a token it prints into its log opens nothing from outside)."""
        token = secrets.token_urlsafe(32)
        self._sessions[token_hash(token)] = (bot, unix_only)
        return token

    def revoke_session_token(self, token: str) -> None:
        """The token opens no new stream from now on (a stream it opened goes on)."""
        self._sessions.pop(token_hash(token), None)

    def authenticate(self, token: str, peer: str = "") -> str | None:
        """The bot name a token belongs to on a stream from ``peer`` (grpc's ``context.peer()``),
        or None. Never logs the token."""
        if not token:
            return None
        h = token_hash(token)
        for known, (bot, unix_only) in self._sessions.items():
            if hmac.compare_digest(known, h):
                return bot if not unix_only or peer.startswith("unix:") else None
        return self._authenticate(token)

    # ----- links ---------------------------------------------------------------------------
    def attach(self, link: Link) -> None:
        """A new stream of a bot: it replaces any open one (module docstring), and gets again
        the decisions still waiting for the bot."""
        bot = link.bot
        old = self.links.get(bot)
        replaced = old is not None and old is not link
        if replaced:
            log.warning("bot %s: a new stream from %s replaces its stream from %s", bot, link.peer, old.peer)
            old.send(pb.RefereeMessage(notice=pb.Notice(
                kind=pb.Notice.REPLACED,
                message=f"a new connection of this bot (from {link.peer}) replaces this one")))
            old.abort(f"replaced by a new connection of this bot from {link.peer}", code="ABORTED")
        else:
            log.info("bot %s connected from %s", bot, link.peer)
        self.links[bot] = link
        self._gone_since.pop(bot, None)
        self._connected[bot].set()
        for run in list(self.runs.values()):
            if bot in run.bots:
                self._back(run, link)

    def detach(self, link: Link) -> None:
        link.close()
        bot = link.bot
        if self.links.get(bot) is link:
            del self.links[bot]
            self._gone_since[bot] = time.monotonic()
            self._connected[bot].clear()
            log.info("bot %s disconnected from %s%s", bot, link.peer,
                     f" ({link.abort_reason})" if link.abort_reason else "")
            for run in list(self.runs.values()):
                if bot in run.bots:
                    self._away(run, bot)

    def _away(self, run: "_Run", bot: str) -> None:
        """``bot`` has no stream during ``run``: its clocks stop, its away budget runs."""
        if bot in run.away_since or all(run.forfeited[s] for s in run.seats_of(bot)):
            return
        loop = asyncio.get_running_loop()
        for p in self.pending[bot].values():
            if p.match_id == run.match.match_id and p.answer is _UNSET:
                p.stop_clock()
        run.away_since[bot] = loop.time()
        left = run.tc.grace_seconds - run.away_spent[bot]
        run.away_timer[bot] = loop.call_later(max(0.0, left), self._away_too_long, run, bot)

    def _away_too_long(self, run: "_Run", bot: str) -> None:
        run.away_timer.pop(bot, None)
        if self.runs.get(run.match.match_id) is not run or bot not in run.away_since:
            return
        spent = run.away_spent[bot] + asyncio.get_running_loop().time() - run.away_since[bot]
        self._forfeit(run, bot, f"away for {spent:.1f} s in this match (the grace is {run.tc.grace_seconds:g} s "
                                "in all)")

    def _back(self, run: "_Run", link: Link) -> None:
        """A stream of one of ``run``'s bots opened: count the reconnect, send again what waits."""
        bot, tc = link.bot, run.tc
        if all(run.forfeited[s] for s in run.seats_of(bot)):
            return
        since = run.away_since.pop(bot, None)
        if since is not None:
            run.away_spent[bot] += asyncio.get_running_loop().time() - since
            timer = run.away_timer.pop(bot, None)
            if timer is not None:
                timer.cancel()
        held = [p for p in self.pending[bot].values() if p.match_id == run.match.match_id and p.answer is _UNSET]
        if bot not in run.seen:  # its first stream in this match
            run.seen.add(bot)
            link.send(run.start_message(bot))
        elif held:  # a reconnect costs a match something only if a decision of it waited
            run.reconnects[bot] += 1
            if run.reconnects[bot] > tc.max_reconnects:
                self._forfeit(run, bot, f"{run.reconnects[bot]} new streams while a decision of this match "
                                        f"waited for it (at most {tc.max_reconnects})")
                return
        for p in held:
            link.send(p.message)
            if since is not None:  # held while it was away: a fresh clock
                p.restart(tc.move_seconds + run.bank[p.seat])

    def mark_absent(self, bot: str) -> None:
        """The bot missed a league's start: its seats forfeit at once until it connects."""
        if bot not in self.links:
            self._gone_since[bot] = float("-inf")

    def _away_for_good(self, bot: str, tc: TimeControl) -> bool:
        """Away since longer than the grace (or marked absent): its seats forfeit at a start."""
        since = self._gone_since.setdefault(bot, time.monotonic())
        return time.monotonic() - since > tc.grace_seconds

    def is_connected(self, bot: str) -> bool:
        return bot in self.links

    async def wait_for_bots(self, bots: Sequence[str], timeout: float) -> list[str]:
        """Wait until every bot has a link; returns the ones still missing at the timeout."""
        waits = [asyncio.ensure_future(self._connected[b].wait()) for b in set(bots)]
        try:
            if waits:
                await asyncio.wait(waits, timeout=timeout)
        finally:
            for w in waits:
                w.cancel()
        return sorted(b for b in set(bots) if b not in self.links)

    # ----- what bots send ------------------------------------------------------------------
    def on_answer(self, link: Link, answer: pb.Answer) -> None:
        """An answer from a bot's stream; only a pending decision of that bot can take it."""
        p = self.pending[link.bot].get((answer.match_id, answer.decision_id))
        if p is not None and p.seat == answer.seat and p.answer is _UNSET:
            p.resolve(answer.choice, p.wait.loop.time())
            return
        run = self.runs.get(answer.match_id)
        if run is None:
            ended = self._ended.get(answer.match_id)
            if ended is not None and 0 <= answer.seat < len(ended[0]) and ended[0][answer.seat] == link.bot:
                # the first late answer to a decision the match made: told, not counted (a decision
                # id past its last is invented, and counted: the set of ids told stays bounded)
                if answer.decision_id not in ended[1] and 0 < answer.decision_id <= ended[2]:
                    ended[1].add(answer.decision_id)
                    self._tell(link, pb.Notice.UNKNOWN_DECISION, answer,
                               "the match has ended; this answer came too late and is ignored")
                    return
                self._unusable(link, pb.Notice.UNKNOWN_DECISION, answer, "an answer sent again; ignored")
                return
            self._unusable(link, pb.Notice.UNKNOWN_DECISION, answer,
                           "this bot holds no such seat in a running match; ignored")
            return
        holds = 0 <= answer.seat < len(run.bots) and run.bots[answer.seat] == link.bot
        if not holds:
            self._unusable(link, pb.Notice.UNKNOWN_DECISION, answer,
                           "this bot holds no such seat in a running match; ignored")
        elif run.sent.get(answer.decision_id) != answer.seat:
            self._unusable(link, pb.Notice.UNKNOWN_DECISION, answer,
                           "no decision with this id was sent to this seat; ignored")
            self._count_fault(run, answer.seat, answer.decision_id, "unknown-decision",
                              f"answer to decision {answer.decision_id}, which was never sent to this seat")
        elif ((p is not None and p.answer is _EXPIRED) or answer.decision_id in run.expired) \
                and answer.decision_id not in run.late_told:
            # punished once, as the late fault: the answer itself is only told about
            run.late_told.add(answer.decision_id)
            self._tell(link, pb.Notice.UNKNOWN_DECISION, answer,
                       "this answer came after the decision's deadline; the default action was played (late fault)")
        else:  # answered already: a duplicate, or the same answer sent again after a reconnect
            self._unusable(link, pb.Notice.UNKNOWN_DECISION, answer,
                           "this decision has its answer already; ignored (no fault)")

    def on_malformed(self, link: Link, what: str) -> None:
        """A message the referee cannot use: the bot's pending decisions get the default action."""
        pending = [p for p in self.pending[link.bot].values() if p.answer is _UNSET]
        for p in pending:
            p.resolve(MALFORMED, p.wait.loop.time())
        if link.log_lines.take():
            log.warning("bot %s (%s): %s", link.bot, link.peer, what)
        self._unusable(link, pb.Notice.MALFORMED, None, f"{what}; ignored", notify=not pending)

    def on_stray(self, link: Link, what: str) -> None:
        """A message with nothing to act on (a hello again): told about and counted against the
        stream's flood rate, as an unusable answer is; no fault."""
        self._unusable(link, pb.Notice.MALFORMED, None, what)

    def _tell(self, link: Link, kind: int, answer: pb.Answer | None, message: str) -> None:
        """A notice about a message of the bot, within the notice rate."""
        if link.notices.take():
            n = pb.Notice(kind=kind, message=message)
            if answer is not None:
                n.match_id, n.seat, n.decision_id = answer.match_id, answer.seat, answer.decision_id
            link.send(pb.RefereeMessage(notice=n))

    def _unusable(self, link: Link, kind: int, answer: pb.Answer | None, message: str,
                  notify: bool = True) -> None:
        """A message nothing can use: counted against the stream's flood rate."""
        link.strays += 1
        self.stats[link.bot].strays += 1
        if not link.flood.take():
            link.abort(f"more than {FLOOD_BURST} unusable messages at once, or more than {FLOOD_RATE:g} a "
                       "second, on this connection")
        elif notify:
            self._tell(link, kind, answer, message)

    def notice(self, bot: str, kind: int, match_id: str, seat: int, decision_id: int, message: str) -> None:
        link = self.links.get(bot)
        if link is not None:
            link.send(pb.RefereeMessage(notice=pb.Notice(
                kind=kind, match_id=match_id, seat=seat, decision_id=decision_id, message=message)))

    # ----- matches -------------------------------------------------------------------------
    async def play(self, game_id: str, bots: Sequence[str], seed: int,
                   options: Mapping[str, Any] | None = None, match_id: str = "",
                   time_control: TimeControl | None = None,
                   on_events: Callable[[Match, list], None] | None = None, *,
                   salt: str | None = None,
                   reveal: bool | Callable[[], Awaitable[bool]] = True, sealed: bool = False) -> MatchOutcome:
        """Play one match; ``bots[i]`` holds seat ``i``. Returns the outcome to record.

        Every bot's MatchStart carries the deal's commitment (``salt``: the ledger's, else a new
        one); its MatchEnd the seed and salt if ``reveal`` (or what it answers, asked once the
        game is over: whether the deal is spent, see :mod:`cardarena.server.deal`). ``sealed``: the
        deal is played at other tables too (a duplicate set): watchers show no table of it."""
        tc = time_control or self.time_control
        match = Match(game_id, len(bots), seed, options, match_id)
        if match_id in self.runs:
            raise ValueError(f"match {match_id} is being played already")
        salt = salt or deal.new_salt()
        run = _Run(match, list(bots), tc, deal.commitment(game_id, match_id, seed, salt))
        run.sealed = sealed
        game = match.game
        started = time.monotonic()
        self.runs[match_id] = run
        try:
            run.opts = wire.struct(match.options)
            for bot in dict.fromkeys(bots):
                link = self.links.get(bot)
                if link is not None:
                    run.seen.add(bot)
                    link.send(run.start_message(bot))
                elif self._away_for_good(bot, tc):
                    self._forfeit(run, bot, "not connected when the match started, nor within the grace")
                else:
                    self._away(run, bot)
            if on_events:
                on_events(match, [ev for _, ev in match.log])
            self._notify("start", run, [ev for _, ev in match.log])
            loop = asyncio.get_running_loop()
            clock = run.clock = _Clock(loop)
            forfeited, send, collect, notify = run.forfeited, self._send, self._collect, self._notify
            while not match.is_over():
                seats = match.to_act()
                # every seat to act gets its decision at once (sealed, simultaneous moves);
                # each has its own clock; once all are answered or past their deadlines, the
                # answers are judged in seat order
                wait = _Wait(loop, clock)
                live = [s for s in seats if not forfeited[s]]  # a forfeited seat is not asked
                sent: dict[int, Pending] = {}
                if live:
                    decisions = match.decisions(live)
                    # the parts of the views all share, encoded once
                    shared = wire.StepViews(game, [d.view for d in decisions]) if len(decisions) > 1 else None
                    for d in decisions:
                        sent[d.seat] = send(run, d, wait, shared)
                await wait()
                choices = {s: collect(run, s, sent.get(s)) for s in seats}
                run.decisions += len(seats)
                events = match.step(choices)
                if on_events:
                    on_events(match, events)
                notify("step", run, events)
            result = run.result = place_forfeits_last(match.result(), run.forfeited)
            shown = reveal if isinstance(reveal, bool) else await self._spent(match_id, reveal)
            proof = {"seed": str(seed), "deal_salt": salt} if shown else {}
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
                    events=[wire.event_message(game, d) for d in seen], **proof)))
            events_out = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                          for step, ev in match.log]
            return MatchOutcome(match_id, game_id, list(bots), seed, dict(match.options), result,
                                run.faults, run.forfeited, match.steps, events_out,
                                run.fault_log, time.monotonic() - started, run.decisions, run.latencies,
                                salt, run.commitment)
        finally:
            if run.clock is not None:
                run.clock.stop()
            self._notify("end", run, [])
            del self.runs[match_id]
            for timer in run.away_timer.values():
                timer.cancel()
            self._ended[match_id] = (list(bots), set(), max(run.sent, default=0))
            while len(self._ended) > ENDED_KEPT:
                self._ended.popitem(last=False)
            for bot in set(bots):
                for key in [k for k in self.pending[bot] if k[0] == match_id]:
                    del self.pending[bot][key]

    @staticmethod
    async def _spent(match_id: str, ask: Callable[[], Awaitable[bool]]) -> bool:
        """Whether a match's deal is spent, asked of the ledger; not known (it cannot be reached):
        not spent, so the end reveals nothing (the ledger shows the deal once it is)."""
        try:
            return bool(await ask())
        except Exception as e:  # noqa: BLE001 - the match is over; only its proof waits
            log.info("match %s: whether its deal is spent is not known (%s): its end reveals no seed", match_id, e)
            return False

    def _notify(self, kind: str, run: "_Run", events: list) -> None:
        """Tell the watchers (module docstring, "Watchers"); a failing one is dropped."""
        if not self.watchers:
            return
        for watcher in list(self.watchers):
            try:
                watcher(kind, run, events)
            except Exception:
                log.exception("match %s: a watcher failed at %s; it is dropped", run.match.match_id, kind)
                self.watchers.discard(watcher)

    def _send(self, run: "_Run", d: Decision, wait: _Wait, shared: "wire.StepViews | None") -> Pending:
        """Send a seat's decision and start its clock (held, with no clock, if the bot is away)."""
        match, seat, decision_id = run.match, d.seat, d.decision_id
        match_id = match.match_id
        bot = run.bots[seat]
        bank = run.bank[seat]
        time_left = run.tc.move_seconds + bank
        msg = wire.decision_bytes(match.game, match_id, seat, decision_id, d.view, d.actions,
                                  d.events, time_left, bank, run.event_cache, shared)
        link = self.links.get(bot)
        p = Pending(match_id, seat, decision_id, len(d.actions), msg, wait, wait.loop.time(), time_left,
                    away=link is None)
        wait.add(p)
        run.sent[decision_id] = seat
        self.pending[bot][(match_id, decision_id)] = p
        if link is not None:
            link.send(msg)
        return p

    def _collect(self, run: "_Run", seat: int, p: "Pending | None") -> int:
        """Judge the answer to a sent decision (its step's wait is over: it has an answer, its
        deadline passed, or its seat forfeited while the bot was away)."""
        match, tc, bot = run.match, run.tc, run.bots[seat]
        if p is None:
            return match.default_index(seat)
        self.pending[bot].pop((p.match_id, p.decision_id), None)
        answer = p.answer
        if answer is _FORFEITED:
            return match.default_index(seat)
        if answer is _EXPIRED:
            run.bank[seat] = 0.0
            run.expired.add(p.decision_id)
            return self._fault(run, seat, p.decision_id, "late",
                               f"no answer within {p.time_left:.3f} s; default action played")
        if answer is MALFORMED:
            return self._fault(run, seat, p.decision_id, "malformed",
                               "the bot sent a message with neither hello nor answer; default action played")
        elapsed = p.answered_at - p.sent_at
        st = self.stats[bot]
        st.decisions += 1
        st.latency_total += elapsed
        st.latency_max = max(st.latency_max, elapsed)
        run.latencies[seat].append(elapsed)
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
        """Every seat ``bot`` holds in the match forfeits; what waits for it gets the default.
        A bot that had no stream at any time of the match is absent: its seats never played, and
        their forfeits are logged as kind ``absent`` (not rated: rule 4 of ``ratings/rating.py``)."""
        kind = "forfeit" if bot in run.seen else ABSENT
        for seat in run.seats_of(bot):
            if not run.forfeited[seat]:
                run.forfeited[seat] = True
                run.fault_log.append(Fault(seat, len(run.match.steps), kind, why))
                self.notice(bot, pb.Notice.FORFEIT, run.match.match_id, seat, 0,
                            f"the seat forfeits: {why}; the default policy plays it out")
                log.info("match %s seat %d (%s) forfeits: %s", run.match.match_id, seat, bot, why)
        for p in list(self.pending[bot].values()):
            if p.match_id == run.match.match_id and p.answer is _UNSET:
                p.resolve(_FORFEITED, p.wait.loop.time())


NOTICE_KINDS = {"late": pb.Notice.LATE, "out-of-range": pb.Notice.OUT_OF_RANGE,
                "unknown-decision": pb.Notice.UNKNOWN_DECISION, "malformed": pb.Notice.MALFORMED}


class _Run:
    """A match being played: its seats' faults, forfeits and banks, the decisions sent and
    expired, and per bot its time away and its reconnects."""

    def __init__(self, match: Match, bots: list[str], tc: TimeControl, commitment: str = ""):
        n = len(bots)
        self.match = match
        self.commitment = commitment
        self.sealed = False  # the deal is played at other tables too: no watcher shows its table
        self.bots = bots
        self.tc = tc
        self.faults = [0] * n
        self.forfeited = [False] * n
        self.bank = [tc.bank_seconds] * n
        self.latencies: list[list[float]] = [[] for _ in range(n)]
        self.fault_log: list[Fault] = []
        self.sent: dict[int, int] = {}       # decision id → the seat it was sent to
        self.expired: set[int] = set()
        self.late_told: set[int] = set()     # expired decisions whose late answer was told about
        self.decisions = 0
        self.event_cache: dict[int, bytes] = {}  # wire.decision_bytes: each event's bytes, by its dict's id
        self.clock: _Clock | None = None     # the timer of its deadlines (Referee.play)
        self.opts = None
        self.seen: set[str] = set()          # bots that had a stream during the match
        self.away_since: dict[str, float] = {}
        self.away_spent: dict[str, float] = defaultdict(float)
        self.away_timer: dict[str, asyncio.TimerHandle] = {}
        self.reconnects: dict[str, int] = defaultdict(int)
        self.result: Result | None = None    # set when the match is over (forfeits placed last)

    def seats_of(self, bot: str) -> list[int]:
        return [s for s, b in enumerate(self.bots) if b == bot]

    def start_message(self, bot: str) -> pb.RefereeMessage:
        m = self.match
        return pb.RefereeMessage(match_start=pb.MatchStart(
            match_id=m.match_id, game=m.game_id, seats=self.seats_of(bot),
            players=[pb.Player(seat=s, bot=b) for s, b in enumerate(self.bots)], options=self.opts,
            time_control=self.tc.message(), deal_commitment=self.commitment))
