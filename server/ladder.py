"""The arena: rated ladder matches around the clock among the bots connected to ``cardarena serve``.

``serve --ladder GAME[:SEATS][@RATE]`` (repeatable) keeps matches of each ladder going among the
registered bots that are connected, claim the game in their ``Hello.games`` (empty: every game),
are neither paused (``bot pause``) nor benched (quarantine), and have room for one more match.

Matchmaking (:func:`draw_table`): the anchor is the free bot that has waited longest; the other
seats are drawn at random, weighted by TrueSkill match quality and by how rarely the bots met
lately, from all free bots or, past ``CANDIDATES``, an even sample of them (docs/scale.md). Per
bot at most ``max_per_bot`` matches at once, fewer if its ``Hello.max_matches`` asks.
Pace: a ladder starts a match at most every ``60 / rate`` s (``serve --rate``, ``@RATE``), a bot
at most every ``3600 / Hello.max_matches_per_hour`` s, never two closer (a token bucket of one).

Quarantine (:class:`QuarantineRule`): a bot with too many faults or forfeits in its last
``window`` ladder matches is benched for ``bench_seconds`` and comes back by itself.

Shutdown (:meth:`Arena.stop`): no new match starts; running matches get ``drain_seconds`` to
finish; the rest are marked failed, never half-recorded. Several servers may share one
PostgreSQL ledger; a ladder match is claimed on a lease (``LEASE``) in this server's name.

Design notes and measurements: docs/arena.md (ladder).
"""
from __future__ import annotations

import asyncio
import logging
import math
import os
import random
import secrets
import socket
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from . import deal
from .games import get as get_game

log = logging.getLogger("cardarena.ladder")

FLOOR = 0.1
LEASE = 30.0  # seconds a ladder match's claim lasts unless its server renews it (every third)
RECENT_MEETINGS = 20
RATINGS_EVERY = 30.0  # seconds between two reads of the ladders' ratings from the ledger (own matches: at once)
REMATCH_WAIT = 0.5
CANDIDATES = 500  # free bots a table's other seats are drawn from, sampled evenly when more are free
UNPLAYED = "unplayed: the server stopped"
LADDER = "ladder"


class LadderError(ValueError):
    """A ladder given wrongly (one line for the CLI)."""


def rate_error(rate: float) -> str | None:
    """Why ``rate`` is no pace (matches a minute: a finite number, 0 or more), or None."""
    if not math.isfinite(rate) or rate < 0:
        return f"must be matches a minute, 0 (no pace) or more, not {rate:g}"
    return None


@dataclass(frozen=True)
class LadderSpec:
    game: str
    seats: int
    rate: float | None = None  # matches a minute at most; None: the arena's (serve --rate); 0: no pace

    @classmethod
    def parse(cls, text: str) -> "LadderSpec":
        """``GAME``, ``GAME:SEATS``, either with ``@RATE`` (matches a minute at most; 0: no pace);
        the table size defaults to the game's smallest, the pace to the arena's."""
        body, at, rate_text = text.strip().partition("@")
        rate = None
        if at:
            try:
                rate = float(rate_text)
            except ValueError:
                raise LadderError(f"{text!r}: the pace after @ must be matches a minute, not {rate_text!r}") from None
            if (why := rate_error(rate)) is not None:
                raise LadderError(f"{text!r}: the pace after @ {why}")
        game, sep, seats = body.partition(":")
        try:
            g = get_game(game)
        except KeyError:
            from .games import games
            raise LadderError(f"no game {game!r} (games: {', '.join(games())})") from None
        if not sep:
            return cls(game, g.min_players, rate)
        if not seats.isdigit() or not g.min_players <= int(seats) <= g.max_players:
            raise LadderError(f"{text!r}: {game} is played by {g.min_players} to {g.max_players} seats")
        return cls(game, int(seats), rate)

    def __str__(self) -> str:
        return f"{self.game}:{self.seats}"


@dataclass
class Entrant:
    """A free bot as matchmaking sees it."""
    name: str
    mu: float
    sigma: float
    matches: int = 0           # ladder matches of this game so far
    free_since: float = 0.0    # monotonic time it became free


def quality(game: str, skills: Sequence[tuple[float, float]]) -> float:
    """TrueSkill's match quality of a free-for-all table (each seat its own team): the number
    ``trueskill.TrueSkill.quality`` gives, in its closed form for one player a team. The matrix
    of that formula is tridiagonal, so one pass (an LDLᵀ factorisation) gives its determinant and
    the quadratic form; the package builds general matrices of Python lists, which cost ~0.1 ms a
    call, and a ladder of thousands of free bots calls this for each of them at every table
    (bench/arena.py --simulate). tests/arena/test_matchmaking.py checks both agree."""
    from cardarena.ratings.rating import environment
    beta2 = environment(game).beta ** 2
    m = len(skills) - 1  # one comparison between each seat and the next
    pivots, form = 1.0, 0.0
    pivot = y = off = 0.0
    for j in range(m):
        var_next = skills[j + 1][1] ** 2
        diag = 2 * beta2 + skills[j][1] ** 2 + var_next
        d = skills[j][0] - skills[j + 1][0]
        if j:
            factor = off / pivot
            diag -= factor * off
            d -= factor * y
        pivot, y, off = diag, d, -beta2 - var_next
        pivots *= pivot
        form += y * y / pivot
    return math.exp(-0.5 * form) * math.sqrt(beta2 ** m * (m + 1) / pivots)


def draw_table(rng: random.Random, game: str, seats: int, free: Sequence[Entrant],
               met: Mapping[str, Counter] | None = None) -> list[str] | None:
    """A table of ``seats`` free bots (module docstring), in seat order; None if too few."""
    if len(free) < seats:
        return None
    met = met or {}
    anchor = min(free, key=lambda e: (e.free_since, e.matches, e.name))
    table = [anchor]
    rest = [e for e in free if e is not anchor]
    if len(rest) > CANDIDATES:  # a fair sample: every bot as likely to be in it, the draw's cost bounded
        rest = rng.sample(rest, CANDIDATES)
    while len(table) < seats:
        weights = []
        seated = [(t.mu, t.sigma) for t in table]
        lately = [met[t.name] for t in table if met.get(t.name)]  # whom the seated met lately
        for e in rest:
            q = quality(game, seated + [(e.mu, e.sigma)])
            meetings = sum(m.get(e.name, 0) for m in lately)
            weights.append(FLOOR + (1 - FLOOR) * q / (1 + meetings))
        pick = rng.choices(range(len(rest)), weights=weights)[0]
        table.append(rest.pop(pick))
    names = [e.name for e in table]
    rng.shuffle(names)
    return names


@dataclass(frozen=True)
class QuarantineRule:
    window: int = 10
    max_fault_rate: float = 0.10
    min_decisions: int = 20
    max_forfeits: int = 3
    bench_seconds: float = 600.0

    def judge(self, recent: Sequence[tuple[int, int, bool]]) -> str | None:
        """Why a bot must be benched, from its last matches' (decisions, faults, forfeited); or None."""
        last = list(recent)[-self.window:]
        forfeits = sum(1 for _, _, f in last if f)
        if forfeits >= self.max_forfeits:
            return f"forfeited {forfeits} of its last {len(last)} ladder matches"
        decisions = sum(d for d, _, _ in last)
        faults = sum(f for _, f, _ in last)
        if decisions >= self.min_decisions and faults > self.max_fault_rate * decisions:
            return (f"{faults} faults in {decisions} decisions ({100 * faults / decisions:.0f} %) over its last "
                    f"{len(last)} ladder matches")
        return None


@dataclass
class ArenaStats:
    """Figures for bench/arena.py and the logs."""
    started: int = 0
    finished: int = 0
    unplayed: int = 0
    decisions: int = 0
    waits: list[float] = field(default_factory=list)   # seconds from a bot being free to its next match


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Arena:
    """The ladders of one ``serve`` process over its referee and ledger (module docstring)."""

    def __init__(self, referee, ledger, ladders: Sequence[LadderSpec], *, max_per_bot: int = 2,
                 rule: QuarantineRule = QuarantineRule(), time_control=None, drain_seconds: float = 30.0,
                 tick: float = 0.1, rng: random.Random | None = None,
                 on_change: Callable[[], None] | None = None, lease_seconds: float = LEASE,
                 rate: float = 0.0, clock: Callable[[], float] = time.monotonic):
        self.referee, self.ledger = referee, ledger
        self.worker = f"{socket.gethostname()}:{os.getpid()}"  # this server, on its claims (leases)
        self.lease_seconds = lease_seconds
        self.playing_ids: set[int] = set()     # ladder matches of this server being played (leased)
        self._settling: set[int] = set()       # of those, the ones whose end this server is writing
        self._lease_task: asyncio.Task | None = None
        self.ladders = list(ladders)
        self.rate = rate      # matches a minute of a ladder whose spec gives none; 0: no pace
        self.clock = clock    # seconds, monotonic: the pace, free times and rematch waits read it
        self._next_start: dict[str, float] = {}   # game → when its ladder may start a match (clock)
        self._bot_next: dict[str, float] = {}     # bot → when it may start one (Hello.max_matches_per_hour)
        self.max_per_bot = max_per_bot
        self.rule = rule
        self.time_control = time_control
        self.drain_seconds = drain_seconds
        self.tick = tick
        self.rng = rng or random.Random(secrets.randbits(64))
        self.on_change = on_change
        self.running: dict[str, int] = defaultdict(int)      # bot → its ladder matches now
        self.free_since: dict[str, float] = {}
        self.recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=rule.window))
        self.met: dict[str, Counter] = defaultdict(Counter)
        self.history: dict[str, deque] = defaultdict(lambda: deque(maxlen=RECENT_MEETINGS))
        self.last_table: dict[tuple[str, str], frozenset] = {}   # (game, bot) → the bots of its last match
        self.benched: dict[str, tuple[datetime, str]] = {}   # bot → (until, why), UTC
        self.paused: set[str] = set()
        self.held: set[str] = set()   # bots not to seat now (a hosted bot's sandbox between matches)
        #: told of each ladder match made (its id, its bots by seat) and of its end (id or None)
        self.on_seated: Callable[[int, list[str]], None] | None = None
        self.on_played: Callable[[int | None, list[str]], None] | None = None
        self.tasks: dict[asyncio.Task, list[str]] = {}
        self.stats = ArenaStats()
        self._stopping = False
        self._loop_task: asyncio.Task | None = None
        self._wake = asyncio.Event()
        self._refresh_at = 0.0
        self._turn = 0
        self._ratings: dict[str, dict[str, tuple[float, float]]] = {}   # game → bot → (μ, σ)
        self._ratings_at = 0.0   # when the ratings are next read from the ledger (clock)
        self._matches: Counter = Counter()   # (game, bot) → ladder matches played here

    # ----- state from the ledger ------------------------------------------------------------
    def _load(self) -> None:
        """Pauses, bench times and recent conduct from the ledger; matches a killed server left."""
        self._clean()
        self._refresh()
        came_back = {s.name: s.benched_until for s in self.ledger.bot_states() if s.benched_until is not None}
        for bot, rows in self.ledger.recent_conduct(LADDER, self.rule.window).items():
            since = came_back.get(bot)  # its window starts when its last bench ends (or will end)
            self.recent[bot].extend((d, f, fo) for d, f, fo, at in rows if since is None or at >= since)

    def _clean(self) -> None:
        """Ladder matches left running by a server that is gone, marked failed (UNPLAYED): those of
        a server of this machine whose process is dead (at once), and any whose lease ran out
        (a server elsewhere that stopped renewing); never those another live server plays, nor
        this server's own (a renewal late on a busy machine is no reason to fail them)."""
        cleaned = self.ledger.fail_running_matches(LADDER, UNPLAYED, alive=self._alive, mine=self.worker)
        if cleaned:
            log.info("%d ladder matches left running by a server that is gone marked failed (%s)", cleaned, UNPLAYED)

    def _alive(self, worker: str) -> bool:
        """Whether the server that claimed a match may still play it (its lease decides for
        servers of other machines)."""
        host, _, pid = worker.rpartition(":")
        if host != socket.gethostname() or not pid.isdigit():
            return True
        if int(pid) == os.getpid():
            return True
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    async def _keep_leases(self) -> None:
        """Every third of the lease, from :meth:`start` until :meth:`stop` has settled the last
        match (the drain too): renew this server's leases, and clean up after gone servers."""
        while True:
            try:
                await self._renew()
            except Exception:  # noqa: BLE001 - a busy or unreachable ledger: next time
                log.exception("renewing the ladder matches' leases")
            await asyncio.sleep(self.lease_seconds / 3)

    async def _renew(self) -> None:
        """One renewal. A match the ledger no longer lets this server renew is lost only if it is
        still played here and this server is not writing its end itself: both sets change on the
        event loop only, and a match joins ``_settling`` before the thread that finishes it
        starts (docs/arena.md, "Leases on one server")."""
        ids = set(self.playing_ids)
        kept = set(await asyncio.to_thread(self._renew_and_clean, ids))
        for lost in sorted(ids - kept):
            if lost in self.playing_ids and lost not in self._settling:
                log.warning("ladder match %s is no longer this server's (its lease ran out)", lost)

    def _renew_and_clean(self, ids: set[int]) -> list[int]:
        """In a thread: renew the leases of ``ids``, the ones still this server's; then clean up."""
        kept = self.ledger.renew_leases(self.worker, ids, self.lease_seconds) if ids else []
        self._clean()
        return kept

    def _refresh(self) -> None:
        """The bots' states (in a thread, once a second) and, every ``RATINGS_EVERY`` seconds, the
        ladders' ratings from the ledger: this server's own matches update them as they are
        recorded, so the ledger's are for what other servers and `ratings recompute` changed (a
        ladder of 10,000 rated bots reads 10,000 rows a game)."""
        self._refresh_states()
        now = self.clock()
        if now >= self._ratings_at:
            self._ratings_at = now + RATINGS_EVERY
            for game in {spec.game for spec in self.ladders}:
                self._ratings[game] = {r.bot: (r.mu, r.sigma) for r in self.ledger.ratings(game)}

    def _refresh_states(self) -> None:
        states = self.ledger.bot_states(standing=True)  # the paused and benched: all it needs
        now = utcnow()
        benched = {s.name: (s.benched_until, s.bench_reason or "") for s in states
                   if s.benched_until is not None and s.benched_until > now}
        for bot, (until, why) in self.benched.items():  # benched here, maybe not yet written
            if until > now and bot not in benched:
                benched[bot] = (until, why)
        self.paused = {s.name for s in states if s.paused}
        self.benched = benched

    def state_of(self, bot: str) -> str:
        """playing, idle, away, paused or benched (the bot's page and ``bot list``)."""
        if bot in self.paused:
            return "paused"
        if bot in self.benched:
            return "benched"
        if self.running.get(bot):
            return "playing"
        return "idle" if self.referee.is_connected(bot) else "away"

    # ----- the loop --------------------------------------------------------------------------
    def start(self) -> asyncio.Task:
        self._load()
        self._loop_task = asyncio.create_task(self._run(), name="arena")
        self._lease_task = asyncio.create_task(self._keep_leases(), name="arena leases")
        return self._loop_task

    def wake(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while not self._stopping:
            now = self.clock()
            if now >= self._refresh_at:  # `bot pause/resume` by another process, bench ends
                self._refresh_at = now + 1.0
                try:
                    await asyncio.to_thread(self._refresh)
                except Exception:  # noqa: BLE001 - a busy ledger: try again next second
                    log.exception("reading the bots' states")
            self._round()
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self._until_due(self.clock()))
            except asyncio.TimeoutError:
                pass

    def _round(self) -> None:
        """One turn of the loop after its refresh: benches that are over end, then tables start
        until none can (bench/arena_sim.py calls it on a simulated clock, in place of ``_run``)."""
        now_utc = utcnow()
        for bot in [b for b, (until, _) in self.benched.items() if until <= now_utc]:
            del self.benched[bot]  # the bench is over: back at once, its page and `bot list` too
        # one table at a time, ladder after ladder, so that no ladder takes every free bot
        # (the ladder that starts the round turns, too)
        self._turn = (self._turn + 1) % len(self.ladders)
        order = self.ladders[self._turn:] + self.ladders[:self._turn]
        while not self._stopping and sum(self._schedule(spec) for spec in order):
            pass

    def _until_due(self, now: float) -> float:
        """The loop's wait: ``tick``, or less when a ladder's or a bot's pace lets a match start
        sooner (so a paced start is not late by up to a tick)."""
        due = [t - now for t in (*self._next_start.values(), *self._bot_next.values()) if t > now]
        return min([self.tick, *due])

    def pace(self, spec: LadderSpec) -> float:
        """Matches a minute the ladder starts at most; 0: no pace."""
        return self.rate if spec.rate is None else spec.rate

    def _hourly(self, bot: str) -> int:
        """Matches an hour the bot asked for at most (``Hello.max_matches_per_hour``); 0: no limit."""
        return max(0, getattr(self.referee.links.get(bot), "max_matches_per_hour", 0) or 0)

    def _limit(self, bot: str) -> int:
        link = self.referee.links.get(bot)
        asked = getattr(link, "max_matches", 0) or 0
        return min(self.max_per_bot, asked) if asked > 0 else self.max_per_bot

    def _plays(self, spec: LadderSpec, bot: str) -> bool:
        """Connected, said hello, claims the game, neither paused nor benched (free or not)."""
        link = self.referee.links.get(bot)
        return (link is not None and link.hello.is_set() and (not link.games or spec.game in link.games)
                and bot not in self.paused and bot not in self.benched and bot not in self.held)

    def _free(self, spec: LadderSpec, now: float) -> list[str]:
        return [bot for bot in list(self.referee.links)
                if self._plays(spec, bot) and self.running[bot] < self._limit(bot)
                and self._bot_next.get(bot, now) <= now]

    def _rematch_held(self, spec: LadderSpec, table: Sequence[str], since: Mapping[str, float], now: float) -> bool:
        """The table its bots have just left, while another bot of the ladder may soon be free
        (module docstring, "Matchmaking"): held back."""
        seated = frozenset(table)
        if any(self.last_table.get((spec.game, b)) != seated for b in table):
            return False
        if now - min(since[b] for b in table) >= REMATCH_WAIT:
            return False
        return any(b not in seated and self._plays(spec, b) for b in list(self.referee.links))

    def _schedule(self, spec: LadderSpec) -> bool:
        """Start one match of the ladder if its pace allows one now and enough of its bots are
        free; whether it did."""
        now = self.clock()
        if now < self._next_start.get(spec.game, now):
            return False
        free = self._free(spec, now)
        if len(free) < spec.seats:
            return False
        ratings, start = self._ratings.get(spec.game, {}), _initial(spec.game)
        entrants = [Entrant(b, *ratings.get(b, start), matches=self._matches.get((spec.game, b), 0),
                            free_since=self.free_since.setdefault(b, now)) for b in free]
        table = draw_table(self.rng, spec.game, spec.seats, entrants, self.met)
        since = {e.name: e.free_since for e in entrants}
        if self._rematch_held(spec, table, since, now):
            return False
        if (pace := self.pace(spec)) > 0:  # the next start one interval after this one, whenever this is
            self._next_start[spec.game] = now + 60.0 / pace
        for b in table:
            if (hourly := self._hourly(b)) > 0:
                self._bot_next[b] = now + 3600.0 / hourly
            self.stats.waits.append(now - since[b])
            self.running[b] += 1
            self.free_since.pop(b, None)
            if self.running[b] < self._limit(b):
                self.free_since[b] = now  # a slot is still free: it waits from now
        task = asyncio.create_task(self._play(spec, table), name=f"ladder {spec} {table}")
        self.tasks[task] = table
        self.stats.started += 1
        return True

    async def _play(self, spec: LadderSpec, bots: list[str]) -> None:
        from .league import record_args
        match_id = claimed = None
        try:
            # the deal from the CSPRNG, never from the table draws' generator (its output is public)
            seed, salt = deal.new_seed(), deal.new_salt()
            # made and claimed in one transaction; a stop that cancels this task while the ledger
            # is making it waits for the id, so that the match is marked unplayed, not left running
            creating = asyncio.ensure_future(asyncio.to_thread(
                self.ledger.create_match, spec.game, seed, {}, bots, kind=LADDER,
                claim_for=self.worker, lease_s=self.lease_seconds, deal_salt=salt))
            try:
                match_id = await asyncio.shield(creating)
            except asyncio.CancelledError:
                match_id = await creating
                raise
            claimed = match_id
            self.playing_ids.add(claimed)
            if self.on_seated:
                self.on_seated(claimed, bots)
            t0 = time.monotonic()
            out = await self.referee.play(spec.game, bots, seed, {}, str(match_id), self.time_control, salt=salt)
            self._settling.add(claimed)  # before the thread that ends it: no renewal takes it for lost
            recording = asyncio.ensure_future(asyncio.to_thread(self.ledger.record_match, match_id,
                                                                worker=self.worker, **record_args(out, t0)))
            match_id = None  # from here it is recorded whole, even if the server stops meanwhile
            try:
                changes = await asyncio.shield(recording)
            except asyncio.CancelledError:
                await recording
                raise
            ratings = self._ratings.setdefault(spec.game, {})
            for c in changes or ():
                if c.rated:
                    ratings[c.bot] = (c.mu, c.sigma)
            self.stats.finished += 1
            self.stats.decisions += out.decisions
            self._after(spec, bots, out)
        except asyncio.CancelledError:
            if match_id is not None:
                self._settling.add(match_id)
                await asyncio.to_thread(self._unplayed, match_id)
            raise
        except Exception:  # noqa: BLE001 - one match's trouble never stops the arena
            log.exception("ladder match %s of %s", match_id, bots)
            if match_id is not None:
                self._settling.add(match_id)
                await asyncio.to_thread(self._unplayed, match_id, "failed: see the server's log")
        finally:
            self.playing_ids.discard(claimed)
            self._settling.discard(claimed)
            now = self.clock()
            for b in bots:
                self.running[b] -= 1
                self.free_since.setdefault(b, now)
            self.tasks.pop(asyncio.current_task(), None)
            if self.on_played:
                self.on_played(claimed, bots)
            self.wake()
            if self.on_change:
                self.on_change()

    def _unplayed(self, match_id: int, why: str = UNPLAYED) -> None:
        try:
            self.ledger.fail_match(match_id, why, worker=self.worker)
        except Exception:  # noqa: BLE001
            log.exception("marking ladder match %s failed", match_id)
        self.stats.unplayed += 1

    def _after(self, spec: LadderSpec, bots: list[str], out) -> None:
        """Meetings, and the quarantine rule for every bot of the finished match."""
        for s, b in enumerate(bots):
            self._matches[(spec.game, b)] += 1
            for o in bots:
                if o != b:
                    self.met[b][o] += 1
            self.history[b].append([o for o in bots if o != b])
            self.last_table[(spec.game, b)] = frozenset(bots)
            if len(self.history[b]) == self.history[b].maxlen:  # forget the meetings that fell out
                for o in self.history[b][0]:
                    self.met[b][o] = max(0, self.met[b][o] - 1)
        seats_of: dict[str, list[int]] = defaultdict(list)
        for s, b in enumerate(bots):
            seats_of[b].append(s)
        for b, seats in seats_of.items():
            if b in self.benched:  # a match it was drawn for before its bench: the window after it is fresh
                continue
            decisions = sum(1 for step in out.steps for s in seats if s in step)
            faults = sum(out.faults[s] for s in seats)
            self.recent[b].append((decisions, faults, any(out.forfeited[s] for s in seats)))
            why = self.rule.judge(self.recent[b])
            if why:
                until = utcnow() + timedelta(seconds=self.rule.bench_seconds)
                self.benched[b] = (until, why)
                self.recent[b].clear()
                log.warning("bot %s is benched until %s UTC: %s", b, until.isoformat(timespec="seconds"), why)
                asyncio.ensure_future(asyncio.to_thread(self._record_bench, b, until, why))

    def _record_bench(self, bot: str, until: datetime, why: str) -> None:
        try:
            self.ledger.bench_bot(bot, until, why)
        except Exception:  # noqa: BLE001 - the bench holds in this process all the same
            log.exception("recording the bench of %s", bot)

    # ----- shutdown --------------------------------------------------------------------------
    async def stop(self) -> None:
        """No new match; running ones get ``drain_seconds`` to finish, the rest are unplayed."""
        self._stopping = True
        self.wake()
        if self._loop_task is not None:
            await asyncio.gather(self._loop_task, return_exceptions=True)
        tasks = list(self.tasks)
        if tasks:
            log.info("waiting up to %g s for %d ladder matches to finish", self.drain_seconds, len(tasks))
            done, pending = await asyncio.wait(tasks, timeout=self.drain_seconds)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._lease_task is not None:  # renewed through the drain; every match is settled now
            self._lease_task.cancel()
            await asyncio.gather(self._lease_task, return_exceptions=True)


def _initial(game: str) -> tuple[float, float]:
    from cardarena.ratings.rating import initial
    return initial(game)


def snapshot(arena: Arena | None, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each bot's arena state for the pages: state, and while benched until when and why."""
    out = {}
    for n in names:
        if arena is None:
            continue
        entry: dict[str, Any] = {"state": arena.state_of(n), "matches_now": arena.running.get(n, 0)}
        if n in arena.benched:
            until, why = arena.benched[n]
            entry.update(benched_until=until.isoformat(timespec="seconds"), bench_reason=why)
        out[n] = entry
    return out
