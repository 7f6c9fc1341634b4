"""Leagues: a round-robin schedule written to the ledger before play, then played concurrently.

Schedule (round robin): for every round, every group of ``seats`` bots (combinations of the
bots, in the order given) plays once in every seat rotation: the group (a, b, c) plays as
(a, b, c), (b, c, a) and (c, a, b). With B bots and K seats that is C(B, K) × K matches per
round. Each match's seed is derived from the league seed, the round and the match's index, so a
league is reproducible from its seed.

The whole schedule is written to the ledger first; then matches are claimed one by one
(scheduled → running, atomically) and recorded with their rating update in one transaction.
"""
from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .games import get
from .referee import Referee, TimeControl


log = logging.getLogger("cardarena.league")


class LeagueError(Exception):
    """A league that cannot be run as asked (one line, for the CLI)."""


@dataclass
class LeagueSpec:
    game: str
    bots: list[str]
    seats: int = 0
    rounds: int = 1
    seed: int = 0
    concurrency: int = 4
    move_seconds: float | None = None
    options: dict = field(default_factory=dict)
    start_timeout: float = 30.0
    bank_seconds: float | None = None
    max_faults: int | None = None
    grace_seconds: float | None = None


def derive_seed(seed: int, *parts: int) -> int:
    """A 63-bit match seed from the league seed and the match's place in the schedule."""
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def round_robin(bots: Sequence[str], seats: int, rounds: int, seed: int):
    """The match plans of a round robin (see the module docstring)."""
    from cardarena.ratings import MatchPlan

    if len(set(bots)) != len(bots):
        raise LeagueError("a bot is named twice")
    if len(bots) < seats:
        raise LeagueError(f"tables of {seats} need at least {seats} bots; {len(bots)} given")
    plans = []
    index = 0
    for rnd in range(rounds):
        for group in itertools.combinations(bots, seats):
            for k in range(seats):
                order = list(group[k:] + group[:k])
                plans.append(MatchPlan(round=rnd, index=index, seed=derive_seed(seed, rnd, index),
                                       bots=order, duplicate_set=None))
                index += 1
    return plans


def check_spec(spec: LeagueSpec) -> LeagueSpec:
    """Fill the defaults and check a league against its game; raises LeagueError in one line."""
    try:
        cls = get(spec.game)
    except KeyError as e:
        raise LeagueError(str(e)) from None
    seats = spec.seats or cls.min_players
    if not cls.min_players <= seats <= cls.max_players:
        raise LeagueError(f"{spec.game} is for {cls.min_players}–{cls.max_players} players, not {seats}")
    if spec.rounds < 1:
        raise LeagueError("rounds must be at least 1")
    if spec.concurrency < 1:
        raise LeagueError("concurrency must be at least 1")
    try:
        options = cls.parse_options(spec.options)
    except ValueError as e:
        raise LeagueError(str(e)) from None
    return LeagueSpec(spec.game, list(spec.bots), seats, spec.rounds, spec.seed, spec.concurrency,
                      spec.move_seconds, options, spec.start_timeout, spec.bank_seconds, spec.max_faults,
                      spec.grace_seconds)


Progress = Callable[[int, int, int, int | None], None]


async def run_league(referee: Referee, ledger, spec: LeagueSpec, progress: Progress | None = None) -> int:
    """Schedule a league in the ledger, wait for its bots, play it; returns the league id."""
    spec = check_spec(spec)
    plans = round_robin(spec.bots, spec.seats, spec.rounds, spec.seed)
    base = referee.time_control
    tc = TimeControl(
        move_seconds=spec.move_seconds or base.move_seconds,
        bank_seconds=base.bank_seconds if spec.bank_seconds is None else spec.bank_seconds,
        max_faults=base.max_faults if spec.max_faults is None else spec.max_faults,
        grace_seconds=base.grace_seconds if spec.grace_seconds is None else spec.grace_seconds)
    settings = {"seats": spec.seats, "rounds": spec.rounds, "seed": spec.seed, "bots": spec.bots,
                "schedule": "round-robin", "move_seconds": tc.move_seconds,
                "bank_seconds": tc.bank_seconds, "max_faults": tc.max_faults, "grace_seconds": tc.grace_seconds}
    league_id = await asyncio.to_thread(ledger.create_league, spec.game, spec.options, settings, plans)
    missing = await referee.wait_for_bots(spec.bots, spec.start_timeout)
    for bot in missing:  # a league never waits forever: their seats forfeit until they connect
        log.warning("league %s: %s not connected after %g s; its seats forfeit", league_id, bot, spec.start_timeout)
        referee.mark_absent(bot)
    await play_league(referee, ledger, league_id, spec.game, spec.options, tc, spec.concurrency, progress)
    return league_id


async def play_league(referee: Referee, ledger, league_id: int, game: str, options: dict,
                      tc: TimeControl, concurrency: int, progress: Progress | None = None) -> int:
    """Play every scheduled match of a league, ``concurrency`` at a time; returns how many."""
    todo = await asyncio.to_thread(ledger.league_matches, league_id, "scheduled")
    total = len(await asyncio.to_thread(ledger.league_matches, league_id))
    done = total - len(todo)
    sem = asyncio.Semaphore(concurrency)
    played = 0
    if progress:
        progress(league_id, done, total, None)

    async def one(m) -> None:
        nonlocal done, played
        async with sem:
            if not await asyncio.to_thread(ledger.claim_match, m.id):
                return  # another process took it
            t0 = time.monotonic()
            try:
                out = await referee.play(game, list(m.bots), m.seed, options, str(m.id), tc)
            except BaseException as e:
                await asyncio.to_thread(ledger.fail_match, m.id, f"{type(e).__name__}: {e}")
                raise
            await asyncio.to_thread(
                ledger.record_match, m.id, scores=list(out.result.scores), places=list(out.result.places),
                faults=out.faults, forfeited=out.forfeited, steps=out.steps, events=out.events,
                result_details={"faults": [f.to_json() for f in out.fault_log]},
                duration_s=time.monotonic() - t0)
            done += 1
            played += 1
            if progress:
                progress(league_id, done, total, m.id)

    await asyncio.gather(*(one(m) for m in todo))
    return played
