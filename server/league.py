"""Leagues: a schedule written to the ledger before play, played concurrently, resumable.

:func:`run_league` writes the league and *every* match (seat order, seed) to the ledger in one
transaction before any is played. :func:`play_league` claims the matches on a lease
(``Ledger.claim_next``), plays up to ``concurrency`` at once and records each with its rating
update in one transaction, through the recorder process (:mod:`cardarena.ratings.recorder`).
:func:`resume_league` and :func:`work_league` (more workers, on any machine) go on from the
ledger. Schedules come from :mod:`cardarena.server.schedule`; ``until_separated`` adds rounds
until :mod:`cardarena.server.sequential` separates the asked pairs.

The rules: nothing half-written survives (a record is one transaction). A finished match is
never played again, and no match is counted twice. A dead bot never stops the league: it is
marked absent and its seats forfeit. A match whose play raises is recorded ``failed`` and the
league goes on; a ledger that cannot record stops the league, its matches put back to
``scheduled``. Without ``seed`` every match seed derives from a secret shown only once the
league has ended (:func:`league_ended`). :func:`verify_match` audits a recorded match.

Design notes and measurements: docs/conduct.md (league).
"""
from __future__ import annotations

import abc
import asyncio
import contextlib
import dataclasses
import functools
import json
import logging
import math
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from . import deal, latency
from .games import get
from .procs import exit_text
from .referee import Referee, TimeControl
from .sequential import Separation, format_separation, matches_through, separation
from .schedule import (  # noqa: F401  (re-exported)
    ScheduleError, derive_seed, make_schedule, next_round, round_robin, round_robin_size,
)

log = logging.getLogger("cardarena.league")


class LeagueError(Exception):
    """A league that cannot be run as asked (one line, for the CLI)."""


@dataclass
class LeagueSpec:
    game: str
    bots: list[str]
    seats: int = 0
    rounds: int = 1
    seed: int | None = None          # the organizer's seed (reproducible; whoever knows it knows every hand)
    concurrency: int = 4
    move_seconds: float | None = None
    options: dict = field(default_factory=dict)
    start_timeout: float = 30.0
    bank_seconds: float | None = None
    max_faults: int | None = None
    grace_seconds: float | None = None
    matches: int | None = None       # a balanced schedule of this many matches (else a round robin)
    duplicate: bool = False          # each group plays one deal in every seat rotation
    commands: dict[str, str | None] = field(default_factory=dict)  # bot → command, kept for resume
    workdir: str | None = None       # the folder the commands are run from
    max_reconnects: int | None = None  # new streams a bot may open while a match waits for it
    gauntlet: str | None = None      # this bot at every table, against the others (docs/conduct.md)
    until_separated: bool = False    # add rounds until the asked order is known (docs/conduct.md)
    confidence: float = 0.95         # of --until-separated: family-wise, over the pairs tested
    max_matches: int | None = None   # of --until-separated: the cap (default: DEFAULT_ROUNDS rounds)
    top: int | None = None           # of --until-separated: only the order of the first K places
    secret: str | None = None        # without a seed: the league secret every match seed derives from


def schedule_key(settings: Mapping) -> int | str:
    """What a league's match seeds derive from (its settings): its secret, or the organizer's seed."""
    return settings.get("secret") or settings.get("seed") or 0


def league_ended(info, results) -> bool:
    """Nothing of the league is left to play or to play again: every match finished (a failed
    one may still be retried) and, for ``--until-separated``, no round left to add. Only then is
    its secret (or seed) shown: every match seed derives from it."""
    c = info.counts
    if c["scheduled"] or c["running"] or c["failed"]:
        return False
    return not info.settings.get("until_separated") or until_separated(info.settings, results).stopped is not None


def check_spec(spec: LeagueSpec) -> LeagueSpec:
    """Fill the defaults and check a league against its game; raises LeagueError in one line."""
    try:
        cls = get(spec.game)
    except KeyError as e:
        raise LeagueError(str(e)) from None
    seats = spec.seats or cls.min_players
    if not cls.min_players <= seats <= cls.max_players:
        raise LeagueError(f"{spec.game} is for {cls.min_players}–{cls.max_players} players, not {seats}")
    if len(set(spec.bots)) != len(spec.bots):
        raise LeagueError("a bot is named twice")
    if len(spec.bots) < seats:
        raise LeagueError(f"tables of {seats} need at least {seats} bots; {len(spec.bots)} given")
    if spec.rounds < 1:
        raise LeagueError("rounds must be at least 1")
    if spec.matches is not None:
        if spec.rounds != 1:
            raise LeagueError("give --rounds (a round robin) or --matches (a balanced schedule), not both")
        if spec.matches < 1:
            raise LeagueError("--matches must be at least 1")
        if spec.duplicate and spec.matches % seats:
            raise LeagueError(f"with --duplicate each deal is played in all {seats} seat rotations: "
                              f"give --matches a multiple of {seats}, not {spec.matches}")
    if spec.gauntlet is not None and spec.gauntlet not in spec.bots:
        raise LeagueError(f"--gauntlet {spec.gauntlet}: no such bot in the league (its bots: {', '.join(spec.bots)})")
    if spec.gauntlet is not None and seats < 2:
        raise LeagueError("a gauntlet needs tables of at least 2 seats")
    _check_until(spec, seats)
    size = spec.matches if spec.matches is not None else round_robin_size(
        len(spec.bots), seats, spec.rounds, spec.gauntlet is not None)
    if size > MAX_MATCHES:
        raise LeagueError(f"a league of {size:,} matches is more than one league holds ({MAX_MATCHES:,}): "
                          "play it as several leagues")
    if spec.concurrency < 1:
        raise LeagueError("concurrency must be at least 1")
    for name, value in (("move time", spec.move_seconds), ("time bank", spec.bank_seconds),
                        ("grace", spec.grace_seconds), ("start timeout", spec.start_timeout)):
        if value is not None and not math.isfinite(value):
            raise LeagueError(f"the {name} must be a finite number of seconds, not {value!r}")
        if value is not None and value < 0:
            raise LeagueError(f"the {name} cannot be negative")
    if spec.move_seconds is not None and spec.move_seconds == 0:
        raise LeagueError("the move time must be above 0")
    if spec.max_faults is not None and spec.max_faults < 0:
        raise LeagueError("max faults cannot be negative (0: never forfeit)")
    if spec.max_reconnects is not None and spec.max_reconnects < 0:
        raise LeagueError("max reconnects cannot be negative")
    try:
        check_finite(spec.options)
        options = cls.parse_options(spec.options)
    except (ValueError, OverflowError, TypeError) as e:
        raise LeagueError(str(e)) from None
    if spec.seed is not None and not isinstance(spec.seed, int):
        raise LeagueError(f"the league seed is a whole number, not {spec.seed!r}")
    # no seed given: a fresh league secret (kept once checked, so the schedule and the settings agree)
    secret = None if spec.seed is not None else spec.secret or deal.new_secret()
    return dataclasses.replace(spec, bots=list(spec.bots), seats=seats, options=options,
                               commands=dict(spec.commands), secret=secret)


#: The matches one league schedules at most: its plans are made, and written to the ledger, at
#: its start, so a mistyped --rounds must not fill the machine's memory first.
MAX_MATCHES = 1_000_000

#: Rounds ``--until-separated`` plays at most when no ``--max-matches`` is given.
DEFAULT_ROUNDS = 20


def _check_until(spec: LeagueSpec, seats: int) -> None:
    """The ``--until-separated`` settings make sense (each mistake one line)."""
    if not spec.until_separated:
        for given, flag in ((spec.top is not None, "--top"), (spec.max_matches is not None, "--max-matches"),
                            (spec.confidence != 0.95, "--confidence")):
            if given:
                raise LeagueError(f"{flag} goes with --until-separated")
        return
    if spec.top is not None and spec.gauntlet is not None:
        raise LeagueError("--top ranks a league's first places; a gauntlet asks about its bot against each "
                          "opponent: give one of --top and --gauntlet")
    if not (isinstance(spec.confidence, (int, float)) and 0 < spec.confidence < 1):
        raise LeagueError(f"--confidence is a number between 0 and 1 (0.95 for 95%), not {spec.confidence!r}")
    if spec.top is not None and not 1 <= spec.top < len(spec.bots):
        raise LeagueError(f"--top is between 1 and {len(spec.bots) - 1} (one less than the bots), not {spec.top}")
    if spec.rounds != 1:
        raise LeagueError("--until-separated adds rounds until the order is known: give --max-matches to "
                          "cap it, not --rounds")
    if spec.max_matches is not None:
        size = (spec.matches if spec.matches is not None else
                round_robin_size(len(spec.bots), seats, 1, spec.gauntlet is not None))
        if spec.max_matches < size:
            raise LeagueError(f"--max-matches {spec.max_matches} is less than one round ({size} matches)")


def check_finite(options: Mapping) -> None:
    """ValueError for a game option holding a number that is not finite (JSON's ``1e999``
    reads as infinity, ``NaN`` as not a number): no game can play with one."""
    def bad(value) -> bool:
        if isinstance(value, float):
            return not math.isfinite(value)
        if isinstance(value, (list, tuple)):
            return any(bad(v) for v in value)
        if isinstance(value, Mapping):
            return any(bad(v) for v in value.values())
        return False
    for name, value in options.items():
        if bad(value):
            raise ValueError(f"option {name}: {value!r} is not a finite number")


def league_plans(spec: LeagueSpec):
    """The schedule of a checked spec (a list of MatchPlan): with ``until_separated``, its first
    round (the others are added as it is played)."""
    try:
        key = spec.secret or spec.seed or 0
        if spec.until_separated:
            return next_round(spec.bots, spec.seats, key, 0, spec.matches, spec.duplicate, spec.gauntlet)
        return make_schedule(spec.bots, spec.seats, key, spec.rounds, spec.matches, spec.duplicate, spec.gauntlet)
    except ScheduleError as e:
        raise LeagueError(str(e)) from None


def time_control(spec: LeagueSpec, base: TimeControl) -> TimeControl:
    """The spec's time control, the referee's ``base`` filling what the spec leaves open."""
    return TimeControl(
        move_seconds=spec.move_seconds or base.move_seconds,
        bank_seconds=base.bank_seconds if spec.bank_seconds is None else spec.bank_seconds,
        max_faults=base.max_faults if spec.max_faults is None else spec.max_faults,
        grace_seconds=base.grace_seconds if spec.grace_seconds is None else spec.grace_seconds,
        max_reconnects=base.max_reconnects if spec.max_reconnects is None else spec.max_reconnects)


def league_settings(spec: LeagueSpec, tc: TimeControl) -> dict:
    """What the ledger keeps of a league beside its game and options (docs/conduct.md, 1)."""
    return {"seats": spec.seats, "rounds": spec.rounds, "matches": spec.matches, "duplicate": spec.duplicate,
            "seed": spec.seed, "secret": spec.secret, "bots": list(spec.bots),
            "schedule": "balanced" if spec.matches is not None else "round-robin",
            "move_seconds": tc.move_seconds, "bank_seconds": tc.bank_seconds, "max_faults": tc.max_faults,
            "grace_seconds": tc.grace_seconds, "max_reconnects": tc.max_reconnects,
            "concurrency": spec.concurrency,
            "commands": {b: spec.commands.get(b) for b in spec.bots},
            "workdir": spec.workdir or os.getcwd(),
            "gauntlet": spec.gauntlet,
            "until_separated": {"confidence": spec.confidence, "top": spec.top,
                                "max_matches": spec.max_matches or DEFAULT_ROUNDS * len(league_plans(spec))}
            if spec.until_separated else None}


def settings_time_control(settings: dict, base: TimeControl) -> TimeControl:
    """The time control a league was scheduled with (its settings), ``base`` for what is missing."""
    return TimeControl(
        move_seconds=settings.get("move_seconds") or base.move_seconds,
        bank_seconds=settings.get("bank_seconds", base.bank_seconds),
        max_faults=settings.get("max_faults", base.max_faults),
        grace_seconds=settings.get("grace_seconds", base.grace_seconds),
        max_reconnects=settings.get("max_reconnects", base.max_reconnects))


Progress = Callable[[int, int, int, int | None], None]

#: Seconds a worker's claim on a match holds (``--lease``); it is renewed every third of it
#: while the match plays (docs/conduct.md, "Several workers").
LEASE_SECONDS = 30.0


@dataclass
class LeagueStats:
    """What one process did for a league: for the CLI's summary line and bench/league.py."""

    played: int = 0          # matches played and recorded by this process
    failed: int = 0          # matches that raised (recorded as failed)
    skipped: int = 0         # played, but recorded meanwhile by another process (not counted again)
    decisions: int = 0       # decisions asked of bots in the recorded matches
    record_seconds: list[float] = field(default_factory=list)  # time of each record_match
    started: float = field(default_factory=time.monotonic)  # once the bots are waited for
    ended: float | None = None  # once the last match is recorded (or the league stopped)
    first_failure: str = ""
    absent: dict[str, str] = field(default_factory=dict)  # bot marked absent → why, in words
    matches: list[int] = field(default_factory=list)  # the ids of the matches this process recorded

    @property
    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def summary(self) -> str:
        t = self.elapsed
        rec = sorted(self.record_seconds)
        line = (f"{self.played} matches in {t:.1f} s: {self.played / t:.2f} matches/s, "
                f"{self.decisions / t:.0f} decisions/s" if t > 0 else f"{self.played} matches")
        if rec:
            line += f"; recording a match: median {rec[len(rec) // 2] * 1000:.1f} ms"
        if self.failed:
            line += f"; {self.failed} failed ({self.first_failure})"
        return line


#: The bot programs a caller started for a league, by bot name: anything with a ``returncode``
#: that is None while the program runs (:class:`cardarena.server.procs.BotProcess`).
Programs = Mapping[str, object]


async def run_league(referee: Referee, ledger, spec: LeagueSpec, progress: Progress | None = None,
                     stats: LeagueStats | None = None, plans=None, programs: Programs | None = None,
                     lease: float = LEASE_SECONDS) -> int:
    """Schedule a league in the ledger, wait for its bots, play it (as one of its workers:
    others may join with :func:`work_league`); returns the league id.

    ``programs``: the bots' programs the caller started, watched so that a program that has
    ended is marked absent at once (docs/conduct.md, 2)."""
    spec = check_spec(spec)
    plans = plans if plans is not None else league_plans(spec)
    stats = stats if stats is not None else LeagueStats()
    tc = time_control(spec, referee.time_control)
    create = asyncio.ensure_future(asyncio.to_thread(ledger.create_league, spec.game, spec.options,
                                                     league_settings(spec, tc), plans))
    try:
        league_id = await asyncio.shield(create)
    except asyncio.CancelledError:  # stopped meanwhile: the thread writes the league all the same
        league_id = await create
        if progress:
            progress(league_id, 0, len(plans), None)
        raise
    if progress:
        progress(league_id, 0, len(plans), None)  # the league is in the ledger: resumable from now on
    await _wait_or_mark_absent(referee, league_id, spec.bots, spec.start_timeout, stats, programs)
    stats.started = time.monotonic()
    await play_league(referee, ledger, league_id, spec.game, spec.options, tc, spec.concurrency, progress, stats,
                      programs, lease)
    if spec.until_separated:
        await play_until_separated(referee, ledger, league_id, tc, spec.concurrency, progress, stats, programs,
                                   lease)
    return league_id


@dataclass(frozen=True)
class UntilSeparated:
    """Where an ``--until-separated`` league stands (:func:`until_separated`)."""

    separation: Separation
    rounds: int          # rounds in the ledger
    matches: int         # matches in the ledger
    max_matches: int
    next_round: list     # the plans of the round to add next; empty when it would pass the cap
    open: bool           # a match of the league is still to play

    @property
    def stopped(self) -> str | None:
        """Why the league stops: "separated", "cap", or None while it goes on."""
        if self.open:
            return None
        if self.separation.settled:
            return "separated"
        return None if self.next_round else "cap"

    def to_json(self, results) -> dict:
        """For ``league show --format json``: the state, and each asked pair with its verdict."""
        return {"confidence": self.separation.confidence, "rounds": self.rounds, "matches": self.matches,
                "max_matches": self.max_matches, "stopped": self.stopped,
                "pairs": [{**dataclasses.asdict(p), "matches": matches_through(results, p.round) if p.separated else None}
                          for p in self.separation.pairs]}

    def summary(self, results) -> str:
        """What the league found: a headline, then each asked pair (:func:`format_separation`)."""
        sep = self.separation
        known = sum(p.separated for p in sep.pairs)
        head = (f"until separated at {sep.confidence:.0%}: {known} of {len(sep.pairs)} pairs separated after "
                f"{self.matches} matches in {self.rounds} round{'s' if self.rounds != 1 else ''}")
        head += {"separated": " (every pair asked: the league stopped)",
                 "cap": f" (the cap of {self.max_matches} matches stopped the league)",
                 None: " (going on)" if not self.open else " (its last round is still being played)"}[self.stopped]
        return head + "\n" + format_separation(sep, results, self.max_matches if self.stopped == "cap" else None)


def until_separated(settings: Mapping, results) -> UntilSeparated:
    """The test of an ``--until-separated`` league (:mod:`cardarena.server.sequential`) over its
    results so far, and the round it would add next: a pure function of the ledger's facts, so
    ``league show`` and a resumed league reach the verdicts the league reached."""
    from cardarena.ratings import standings

    until = settings["until_separated"]
    bots = list(settings.get("bots") or [])
    gauntlet = settings.get("gauntlet")
    ranking = [s.bot for s in standings(results, bots).table]
    sep = separation(results, ranking, until["confidence"], gauntlet, until.get("top"))
    rounds = 1 + max((r.round or 0 for r in results), default=-1)
    cap = until["max_matches"]
    plans = next_round(bots, settings["seats"], schedule_key(settings), rounds, settings.get("matches"),
                       bool(settings.get("duplicate")), gauntlet,
                       1 + max((r.duplicate_set for r in results if r.duplicate_set is not None), default=-1))
    if len(results) + len(plans) > cap:
        plans = []
    left = any(r.status in ("scheduled", "running") for r in results)
    return UntilSeparated(sep, rounds, len(results), cap, plans, left)


async def play_until_separated(referee: Referee, ledger, league_id: int, tc: TimeControl, concurrency: int,
                               progress: Progress | None = None, stats: LeagueStats | None = None,
                               programs: Programs | None = None, lease: float = LEASE_SECONDS) -> int:
    """After a round is played: test, and while an asked pair is not separated and the cap
    allows, write the next round to the ledger and play it (docs/conduct.md, "Until
    separated"); returns how many matches this worker recorded."""
    played = 0
    while True:
        info = await asyncio.to_thread(ledger.league, league_id)
        results = await asyncio.to_thread(ledger.league_results, league_id)
        state = until_separated(info.settings, results)
        if state.stopped or state.open:
            log.info("league %s: %s", league_id, state.summary(results).splitlines()[0])
            return played
        await asyncio.to_thread(ledger.add_matches, league_id, state.next_round)
        played += await play_league(referee, ledger, league_id, info.game, info.options, tc, concurrency, progress,
                                    stats, programs, lease)


def _ended(programs: Programs | None, bot: str) -> str | None:
    """How the bot's program ended ("exited with code 3"); None while it runs, or if it has none."""
    program = (programs or {}).get(bot)
    code = getattr(program, "returncode", None)
    return None if code is None else exit_text(code)


def _absent(referee: Referee, league_id: int, bot: str, why: str, stats: LeagueStats) -> None:
    log.warning("league %s: bot %s %s: its seats forfeit", league_id, bot, why)
    stats.absent[bot] = why
    referee.mark_absent(bot)


async def _wait_or_mark_absent(referee: Referee, league_id: int, bots: Sequence[str], timeout: float,
                               stats: LeagueStats, programs: Programs | None = None) -> None:
    """Wait for the league's bots; those still missing at the timeout, and those whose program
    ended before connecting (not waited for), are marked away for good, so the referee forfeits
    their seats at once (until they connect) and the league goes on."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    waiting = sorted(set(bots))
    while True:
        waiting = [b for b in waiting if not referee.is_connected(b)]
        for bot in list(waiting):
            how = _ended(programs, bot)
            if how is not None:
                waiting.remove(bot)
                _absent(referee, league_id, bot, f"never connected: its program {how}", stats)
        left = deadline - loop.time()
        if not waiting or left <= 0:
            break
        await asyncio.sleep(min(left, 0.05))  # the connections and the programs, looked at 20 times a second
    for bot in waiting:
        _absent(referee, league_id, bot, f"not connected after {timeout:g} s (--start-timeout)", stats)


async def _watch_programs(referee: Referee, league_id: int, programs: Programs, stats: LeagueStats,
                          every: float = 0.2) -> None:
    """During the league: a bot whose program ends (a crash) is marked absent once its stream
    is gone, so its seats in later matches forfeit at once instead of waiting for it."""
    while True:
        for bot in programs:
            if bot in stats.absent or referee.is_connected(bot):
                continue
            how = _ended(programs, bot)
            if how is not None:
                _absent(referee, league_id, bot, f"left during the league: its program {how}", stats)
        await asyncio.sleep(every)


def prepare_resume(ledger, league_id: int, stale_after: float | None = None, retry_failed: bool = False) -> tuple[int, int]:
    """Put a league's interrupted matches (and, if asked, failed ones) back to ``scheduled``.

    Returns (running matches reset, failed matches rescheduled).
    """
    reset = ledger.reset_stale(league_id, older_than_s=stale_after)
    retried = ledger.retry_failed(league_id) if retry_failed else 0
    return reset, retried


async def resume_league(referee: Referee, ledger, league_id: int, concurrency: int | None = None,
                        progress: Progress | None = None, stats: LeagueStats | None = None,
                        start_timeout: float = 30.0, stale_after: float | None = None,
                        retry_failed: bool = False, programs: Programs | None = None) -> int:
    """Go on with an interrupted league (docs/conduct.md, 5); returns how many matches it played."""
    await asyncio.to_thread(prepare_resume, ledger, league_id, stale_after, retry_failed)
    stats = stats if stats is not None else LeagueStats()
    played = await work_league(referee, ledger, league_id, concurrency, progress, stats, start_timeout, programs)
    info = await asyncio.to_thread(ledger.league, league_id)
    if info.settings.get("until_separated"):
        tc = settings_time_control(info.settings, referee.time_control)
        j = concurrency or info.settings.get("concurrency") or 4
        played += await play_until_separated(referee, ledger, league_id, tc, j, progress, stats, programs)
    return played


async def work_league(referee: Referee, ledger, league_id: int, concurrency: int | None = None,
                      progress: Progress | None = None, stats: LeagueStats | None = None,
                      start_timeout: float = 30.0, programs: Programs | None = None,
                      lease: float = LEASE_SECONDS, worker: str | None = None) -> int:
    """Join a league as one more worker (docs/conduct.md, "Several workers"): wait for its bots,
    then claim, play and record its matches until none is left to claim; returns how many it
    recorded. Unlike :func:`resume_league` it resets nothing: a match another worker holds is
    left to it, unless its lease runs out."""
    stats = stats if stats is not None else LeagueStats()
    info = await asyncio.to_thread(ledger.league, league_id)
    tc = settings_time_control(info.settings, referee.time_control)
    bots = info.settings.get("bots") or []
    await _wait_or_mark_absent(referee, league_id, bots, start_timeout, stats, programs)
    stats.started = time.monotonic()
    j = concurrency or info.settings.get("concurrency") or 4
    return await play_league(referee, ledger, league_id, info.game, info.options, tc, j, progress, stats, programs,
                             lease, worker)


async def play_league(referee: Referee, ledger, league_id: int, game: str, options: dict,
                      tc: TimeControl, concurrency: int, progress: Progress | None = None,
                      stats: LeagueStats | None = None, programs: Programs | None = None,
                      lease: float = LEASE_SECONDS, worker: str | None = None) -> int:
    """Claim and play the league's matches, ``concurrency`` at a time, until none is left to
    claim (docs/conduct.md, 3 and "Several workers"); returns how many this worker recorded.

    The first error that is not a match's own (the ledger cannot record, the recorder is
    gone) stops the league: the other matches are stopped and put back, and it is raised."""
    from cardarena.ratings import LedgerError

    stats = stats if stats is not None else LeagueStats()
    worker = worker or worker_name()
    info = await asyncio.to_thread(ledger.league, league_id)
    total = info.total
    done = info.counts["finished"] + info.counts["failed"]
    sem = asyncio.Semaphore(concurrency)
    ahead = asyncio.Semaphore(2 * concurrency)
    played = 0
    if progress:
        progress(league_id, done, total, None)
    # The league's ledger writes (claims, renewals, records) go to the recorder process, in order;
    # with an in-memory ledger, to one thread (SQLite takes one writer at a time anyway, and
    # threads queueing for its lock and for the GIL cost the referee time).
    writes = await Recorder.start(ledger) if Recorder.can_serve(ledger) else _Writer(ledger)
    loop = asyncio.get_running_loop()
    held: set[int] = set()  # the matches this worker holds a lease on
    set_turns: dict[int, asyncio.Lock] = {}  # a duplicate set's rotations, one at a time
    tasks: list[asyncio.Future] = []
    failure = loop.create_future()  # the first error that stops the league

    async def guard(coro) -> None:
        try:
            await coro
        except Exception as e:
            if not failure.done():
                failure.set_exception(e)
            raise

    async def claim() -> Claimed | None:
        """The next match to play; with none claimable while other workers hold leased matches
        (which may run out), it waits for them."""
        while True:
            got = await writes.claim_next(league_id, worker, lease)
            if got is not None:
                return Claimed(*got)
            # a claim of ours that is not being played (its answer was lost with the database)
            if await writes.call("unplayed", league_id, worker=worker, playing=sorted(held)):
                continue
            if not await writes.call("others", league_id, worker=worker):
                return None
            await asyncio.sleep(min(1.0, lease / 3))

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(lease / 3)
            ids = sorted(held)
            if not ids:
                continue
            kept = set(await writes.call("renew", 0, worker=worker, match_ids=ids, lease_s=lease))
            for match_id in ids:
                if match_id not in kept and match_id in held:
                    held.discard(match_id)
                    log.warning("league %s match %s: the lease of worker %s ran out and another worker claimed "
                                "the match; the result played here will be dropped", league_id, match_id, worker)

    async def one(m: Claimed) -> None:
        nonlocal done, played
        dup = m.duplicate_set is not None
        try:
            # the rotations of a duplicate set take turns (in claim order): a bot seated at two
            # tables of one deal at once would see at the other what its opponent holds at this
            async with (set_turns.setdefault(m.duplicate_set, asyncio.Lock()) if dup else _NO_TURN), sem:
                t0 = time.monotonic()
                # a plain match's deal is spent with it; a duplicate set's once its other rotations are too
                spent = functools.partial(writes.call, "rest_of_set_finished", m.id) if dup else True
                out = await referee.play(game, list(m.bots), m.seed, options, str(m.id), tc, salt=m.salt,
                                         reveal=spent, sealed=dup)
        except (asyncio.CancelledError, KeyboardInterrupt):
            # stopped cleanly: the match goes back to the schedule, to be played again
            held.discard(m.id)
            _release(ledger, m.id, worker)
            raise
        except Exception as e:
            held.discard(m.id)
            reason = f"{type(e).__name__}: {e}"
            log.exception("league %s match %s failed", league_id, m.id)
            try:
                await writes.call("fail", m.id, reason=reason, worker=worker)
            except LedgerError as refused:  # taken over meanwhile: the other worker plays it
                log.warning("league %s match %s: %s", league_id, m.id, refused)
                return
            stats.failed += 1
            stats.first_failure = stats.first_failure or f"match {m.id}: {reason}"
            done += 1
            if progress:
                progress(league_id, done, total, m.id)
            return
        finally:
            ahead.release()
        # recorded outside the slot: the next match starts while this one is written
        held.discard(m.id)  # the record itself checks the lease is still ours
        try:
            stats.record_seconds.append(await writes.record(m.id, worker=worker, **record_args(out, t0)))
        except LedgerError as e:  # taken over, or recorded meanwhile by another process: counted once, there
            log.warning("league %s match %s: %s", league_id, m.id, e)
            stats.skipped += 1
            return
        stats.decisions += out.decisions
        stats.played += 1
        stats.matches.append(m.id)
        done += 1
        played += 1
        if progress:
            progress(league_id, done, total, m.id)

    async def produce() -> None:
        # A match is claimed before a slot to play it is free (at most `concurrency` ahead), so
        # that a claim, queued behind records in the recorder, never holds up the next match.
        while True:
            await ahead.acquire()
            try:
                m = await claim()
            except BaseException:
                ahead.release()
                raise
            if m is None:
                ahead.release()
                return
            held.add(m.id)
            tasks.append(asyncio.ensure_future(guard(one(m))))

    async def everything() -> None:
        await guard(produce())
        await asyncio.gather(*tasks)

    main = asyncio.ensure_future(everything())
    beat = asyncio.ensure_future(guard(heartbeat()))
    watcher = asyncio.create_task(_watch_programs(referee, league_id, programs, stats)) if programs else None
    try:
        await asyncio.wait({main, failure}, return_when=asyncio.FIRST_COMPLETED)
        if failure.done():
            failure.result()
        main.result()
    finally:
        # after an error the other matches stop (each is put back); when stopped, the same
        others = [main, beat, *tasks, *([watcher] if watcher else [])]
        for t in others:
            t.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        if failure.done() and not failure.cancelled():
            failure.exception()  # raised above, or after the stop: retrieved either way
        await writes.close()
        stats.ended = time.monotonic()
    return played


_NO_TURN = contextlib.nullcontext()


@dataclass(frozen=True)
class Claimed:
    """A match a worker claimed: what it needs to play it."""
    id: int
    seed: int
    bots: list[str]
    salt: str | None = None
    duplicate_set: int | None = None


def worker_name() -> str:
    """This process as a worker of a league: ``HOST:PID`` (the ``worker`` of its leases)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _release(ledger, match_id: int, worker: str | None = None) -> None:
    """Put an interrupted match back to ``scheduled``; if the ledger cannot even write that (a
    full disk), the match stays ``running`` and ``league resume`` (or, once its lease has run
    out, another worker) replays it all the same."""
    try:
        ledger.release_match(match_id, worker)
    except Exception as e:  # noqa: BLE001 - never hide the interruption behind its clean-up
        log.info("match %s stays running (`league resume` replays it): %s", match_id, e)


def record_args(out, t0: float) -> dict:
    """``Ledger.record_match``'s keyword arguments for a played match (plain data only)."""
    return dict(scores=list(out.result.scores), places=list(out.result.places), faults=list(out.faults),
                forfeited=list(out.forfeited), steps=out.steps, events=out.events,
                result_details={"faults": [f.to_json() for f in out.fault_log],
                                "engine_version": get(out.game_id).engine_version,
                                "latency": [latency.histogram(seat) for seat in out.latencies]},
                duration_s=time.monotonic() - t0, deal_salt=out.deal_salt or None,
                deal_commitment=out.deal_commitment or None)


class RecorderError(Exception):
    """The recorder process failed or stopped: the league cannot record its matches."""


class _Writes(abc.ABC):
    """The league's ledger writes, as the recorder's requests (:mod:`cardarena.ratings.recorder`):
    through the recorder process (:class:`Recorder`) or one thread (:class:`_Writer`)."""

    @abc.abstractmethod
    async def call(self, kind: str, match_id: int, **kwargs):
        """Carry out one request of ``kind`` on ``match_id`` (or a league id) and return its answer."""

    async def claim_next(self, league_id: int, worker: str, lease: float):
        """``Ledger.claim_next``: (match id, seed, bots) or None. Stopped while waiting, it
        waits for the claim's answer and releases the match again if the claim went through,
        so an interrupted league never leaves a match ``running`` that nobody plays (until its
        lease ran out)."""
        call = asyncio.ensure_future(self.call("claim_next", league_id, worker=worker, lease_s=lease))
        try:
            return await asyncio.shield(call)
        except asyncio.CancelledError:
            try:
                got = await call
                if got is not None:
                    await self.call("release", got[0], worker=worker)
            except Exception as e:  # noqa: BLE001 - the stop goes on; the lease runs out by itself
                log.info("a claim of league %s may stay running until its lease runs out: %s", league_id, e)
            raise

    async def record(self, match_id: int, **kwargs) -> float:
        """Record a match; returns the seconds it took. Raises ``LedgerError`` as
        ``Ledger.record_match`` would."""
        return await self.call("record", match_id, **kwargs)

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish the writes still asked for, then stop."""


class _Writer(_Writes):
    """The writes of a league on an in-memory ledger (no other process can open it): one
    thread carries out the recorder's requests with the recorder's own code."""

    def __init__(self, ledger):
        self.ledger = ledger
        self.claimed: set[int] = set()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="cardarena-ledger")

    async def call(self, kind: str, match_id: int, **kwargs):
        from cardarena.ratings.recorder import carry_out
        return await asyncio.get_running_loop().run_in_executor(self.pool, carry_out, self.ledger, kind, match_id,
                                                                kwargs, self.claimed)

    async def close(self) -> None:
        self.pool.shutdown(wait=False)


class Recorder(_Writes):
    """The league's side of the recorder process (:mod:`cardarena.ratings.recorder`).

    ``record`` (and every other request) sends a played match and waits for its answer without
    blocking the event loop: the pipe is written and read by the loop itself, no thread. If the process dies, every
    waiting and later record raises :class:`RecorderError`, which ends the league with that
    message; matches not recorded stay ``running`` for ``league resume``.
    """

    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self._next = 0
        self._waiting: dict[int, asyncio.Future] = {}
        self._failure = ""
        self._reader = asyncio.create_task(self._read())

    @staticmethod
    def can_serve(ledger) -> bool:
        """A ledger another process can open: a file or a server, not an in-memory database."""
        url = getattr(ledger, "url", "")
        return bool(url) and url not in ("sqlite://", "sqlite:///:memory:")

    @classmethod
    async def start(cls, ledger) -> "Recorder":
        # the URL (it may hold a database password) goes in the environment, not on a command
        # line every user of the machine can read
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cardarena.ratings.recorder",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "CARDARENA_RECORDER_DB": ledger.url})
        return cls(proc)

    async def _read(self) -> None:
        from cardarena.ratings.recorder import decode

        out = self.proc.stdout
        try:
            while True:
                head = await out.readexactly(4)
                request_id, status, value = decode(await out.readexactly(int.from_bytes(head, "big")))
                future = self._waiting.pop(request_id, None)
                if future is not None and not future.done():
                    future.set_result((status, value))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        code = await self.proc.wait()
        self._fail(f"the ledger recorder stopped (exit code {code})")

    def _fail(self, message: str) -> None:
        self._failure = self._failure or message
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(RecorderError(self._failure))
        self._waiting.clear()

    def _send(self, request_id: int, kind: str, match_id: int, kwargs: dict) -> None:
        from cardarena.ratings.recorder import encode

        if not self.proc.stdin.is_closing():
            self.proc.stdin.write(encode((request_id, kind, match_id, kwargs)))

    async def call(self, kind: str, match_id: int, **kwargs):
        from cardarena.ratings import LedgerError, LedgerStorageError

        if self._failure:
            raise RecorderError(self._failure)
        self._next += 1
        future = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        try:
            self._send(self._next, kind, match_id, kwargs)
            await self.proc.stdin.drain()
        except ConnectionError:
            self._fail("the ledger recorder stopped reading")
        status, value = await future
        if status == "ok":
            return value
        if status == "ledger":
            raise LedgerError(value)
        name, _, message = value.partition(": ")  # the recorder's "TypeName: message" form
        if name in ("LedgerStorageError", "LedgerUnreachable"):  # the database failed (a full disk, a
            raise LedgerStorageError(message)                    # server unreachable for too long)
        raise RecorderError(f"{kind} of match {match_id}: {value}")

    async def close(self, timeout: float = 60.0) -> None:
        """Let the recorder finish what it was sent, then end it."""
        if not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        except (TimeoutError, asyncio.TimeoutError):
            self.proc.kill()
            self._reader.cancel()


# ----------------------------------------------------------------------------- audits


def _plain(value):
    """JSON as the ledger stores it (tuples as lists, sets as sorted lists)."""
    from cardarena.ratings.ledger import _jsonable
    return json.loads(json.dumps(value, default=_jsonable))


class NotReplayable(LeagueError):
    """A match recorded by another version of its game's rules engine (``Game.engine_version``):
    this release's replay of it may differ without the record being wrong."""


def _deal_problems(m) -> list[str]:
    """The match's deal checked against its commitment (none recorded: nothing to check)."""
    if m.deal_commitment and not deal.verify(m.game, m.id, m.seed, m.deal_salt or "", m.deal_commitment):
        return [f"the deal does not match its commitment: seed {m.seed} and salt {m.deal_salt} give "
                f"{deal.commitment(m.game, m.id, m.seed, m.deal_salt or '')}, the bots were sent "
                f"{m.deal_commitment}"]
    return []


def verify_match(m) -> list[str]:
    """Replay a recorded match (a MatchDetail) from its seed and steps; every difference found
    between the replay and the recorded events and result. Empty: the record is exact. Raises
    :class:`NotReplayable` for a match recorded by another engine version (records without one
    were made by version 1). A pruned match (its steps and events dropped: ``Ledger.prune``)
    cannot be replayed: only its deal is checked against its commitment."""
    from .match import Match
    from .referee import place_forfeits_last

    if m.status != "finished":
        raise LeagueError(f"match {m.id} is {m.status}; only a finished match can be verified")
    if getattr(m, "pruned_at", None) is not None:
        return _deal_problems(m)
    recorded = (m.result_details or {}).get("engine_version", 1)
    current = get(m.game).engine_version
    if recorded != current:
        raise NotReplayable(f"match {m.id} was recorded by version {recorded} of the {m.game} rules engine and "
                            f"this release has version {current}: its replay may differ, so it is not verified here")
    problems: list[str] = _deal_problems(m)
    try:
        match = Match(m.game, len(m.bots), m.seed, m.options, str(m.id))
    except Exception as e:
        return [f"the game cannot be set up from the recorded seed and options: {type(e).__name__}: {e}"]
    for i, choices in enumerate(m.steps):
        if match.is_over():
            problems.append(f"the game is over after step {i}, but {len(m.steps)} steps are recorded")
            break
        try:
            match.step({int(s): int(c) for s, c in choices.items()})
        except Exception as e:
            problems.append(f"step {i + 1} does not replay: {type(e).__name__}: {e}")
            return problems
    if not problems and not match.is_over():
        problems.append(f"the game is not over after the {len(m.steps)} recorded steps")
    replayed = _plain([{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                       for step, ev in match.log])
    recorded = m.events
    if len(replayed) != len(recorded):
        problems.append(f"{len(recorded)} events are recorded, the replay makes {len(replayed)}")
    for k, (want, have) in enumerate(zip(replayed, recorded)):
        if want != have:
            problems.append(f"event {k} (step {have.get('step')}) differs: recorded {json.dumps(have, ensure_ascii=False)}, "
                            f"replayed {json.dumps(want, ensure_ascii=False)}")
            break
    if match.is_over():
        result = match.result()
        forfeited = [bool(f) for f in (m.forfeited or [False] * len(m.bots))]
        result = place_forfeits_last(result, forfeited)
        if [float(s) for s in result.scores] != [float(s) if s is not None else None for s in m.scores]:
            problems.append(f"the scores are recorded as {list(m.scores)}, the replay gives {list(result.scores)}")
        if list(result.places) != list(m.places):
            problems.append(f"the places are recorded as {list(m.places)}, the replay gives {list(result.places)}")
    return problems
