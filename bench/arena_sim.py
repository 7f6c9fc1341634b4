#!/usr/bin/env python3
"""The arena past one machine, simulated: ``python bench/arena.py --simulate N`` (or this file).

Real: server/ladder.py's Arena (``draw_table``, the pace, the per-bot limit, ``free_since`` and the
anchor, the rematch hold) and the ledger (SQLite in a temporary folder, or ``--db URL``, e.g. an
empty PostgreSQL database), every match made, claimed, recorded and rated as under ``serve``.
Not real: gRPC and the referee. A stand-in (:class:`SimReferee`) holds N bots' links (the
referee's ``Link``: hello said, every game) and plays each match in-process by the engines,
RandomBot in every seat (server/match.py), then keeps it running for its steps × ``--step-seconds``
of a simulated clock. The driver calls ``Arena._refresh`` (once a simulated second, as ``_run``)
and ``Arena._round`` and jumps the clock to the next match end or start due (at most ``tick``).
Ladders: ``--ladder`` (default three), each at ``--rate`` matches a minute (``GAME@R`` for one).

Printed: matches started and recorded per simulated hour; scheduling latency p50/p99 in
simulated seconds (the arena's own, from ``free_since``, and between a bot's matches); the real
CPU of each scheduling decision (``Arena._schedule`` that started a table) and per free bot;
matches and distinct opponents per bot; ledger writes per match (statements, rows,
transactions); bytes per match and a simulated day's growth, before and after pruning the logs.
"""
from __future__ import annotations

import argparse
import asyncio
import heapq
import itertools
import math
import random
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import event

from cardarena.ratings import Ledger
from cardarena.server import deal
from cardarena.server.ladder import Arena, LadderSpec
from cardarena.server.match import RandomBot, play_match
from cardarena.server.referee import Link, MatchOutcome

LADDERS = ("sixth-card:4", "scout:3", "unsorted:3")  # bench/arena.py's
RATE = 12.0  # matches a minute per ladder: serve's default pace


class SimReferee:
    """What the Arena reads of a referee (``links``, ``is_connected``, ``play``), on a simulated
    clock (``now``). ``play`` plays the match at once by the engines and then waits until
    :meth:`release` reaches its end; :attr:`parked` holds the matches so waiting."""

    def __init__(self, bots: list[str], step_seconds: float):
        self.links: dict[str, Link] = {}
        for b in bots:
            link = Link(b)
            link.hello.set()
            self.links[b] = link
        self.step_seconds = step_seconds
        self.now = 0.0
        self.parked: set[asyncio.Task] = set()
        self.changed = asyncio.Event()   # a match parked
        self.played: list[tuple[float, float, str, list[str]]] = []   # (start, end, game, bots)
        self.engine_cpu = 0.0
        self._ends: list[tuple[float, int, asyncio.Future]] = []
        self._seq = itertools.count()

    def is_connected(self, bot: str) -> bool:
        return bot in self.links

    async def play(self, game_id, bots, seed, options=None, match_id="", time_control=None, *, salt=None, **_):
        salt = salt or deal.new_salt()
        t0 = time.thread_time()
        rec = play_match(game_id, [RandomBot(seed + s) for s in range(len(bots))], seed, options, match_id)
        self.engine_cpu += time.thread_time() - t0
        seats = range(len(bots))
        answered = [sum(1 for step in rec.steps if s in step) for s in seats]
        events = [{"step": step, "seats": None if ev.seats is None else sorted(ev.seats), "data": ev.data}
                  for step, ev in rec.log]
        duration = len(rec.steps) * self.step_seconds
        out = MatchOutcome(match_id, game_id, list(bots), seed, dict(rec.options), rec.result,
                           [0] * len(bots), [False] * len(bots), rec.steps, events, [], duration,
                           rec.decisions, [[self.step_seconds] * n for n in answered], salt,
                           deal.commitment(game_id, match_id, seed, salt))
        self.played.append((self.now, self.now + duration, game_id, list(bots)))
        ended = asyncio.get_running_loop().create_future()
        heapq.heappush(self._ends, (self.now + duration, next(self._seq), ended))
        task = asyncio.current_task()
        self.parked.add(task)
        self.changed.set()
        try:
            await ended
        finally:
            self.parked.discard(task)
        return out

    def next_end(self) -> float:
        return self._ends[0][0] if self._ends else math.inf

    def release(self) -> None:
        """The matches whose end the clock has reached go on (to be recorded)."""
        while self._ends and self._ends[0][0] <= self.now:
            heapq.heappop(self._ends)[2].set_result(None)


async def settle(arena: Arena, ref: SimReferee) -> None:
    """Until every match task of the arena is parked on the clock or done (its ledger threads
    have returned)."""
    while True:
        ref.changed.clear()
        # a task done but not yet dropped from arena.tasks (its callback waits for the loop) is
        # not busy: asyncio.wait would return at once for it, without ever yielding to the loop
        busy = [t for t in arena.tasks if t not in ref.parked and not t.done()]
        if not busy:
            await asyncio.sleep(0)  # the done tasks' callbacks run: they leave arena.tasks
            return
        parked = asyncio.ensure_future(ref.changed.wait())
        await asyncio.wait([*busy, parked], return_when=asyncio.FIRST_COMPLETED)
        parked.cancel()


@dataclass
class Writes:
    """The ledger's write statements, the rows they touched and its commits."""
    statements: int = 0
    rows: int = 0
    commits: int = 0

    def watch(self, ledger: Ledger) -> None:
        @event.listens_for(ledger.engine, "after_cursor_execute")
        def counted(conn, cursor, statement, parameters, context, executemany):
            if statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
                self.statements += 1
                n = cursor.rowcount
                self.rows += n if n >= 0 else (len(parameters) if executemany else 1)

        @event.listens_for(ledger.engine, "commit")
        def committed(conn):
            self.commits += 1


@dataclass
class SimReport:
    bots: list[str]
    ladders: list[str]
    hours: float
    rate: float
    max_matches: int
    step_seconds: float
    started: int = 0
    recorded: int = 0
    unplayed: int = 0
    in_ledger: int = 0                                      # finished matches the ledger holds
    by_ladder: Counter = field(default_factory=Counter)     # GAME:SEATS → matches played
    per_bot: Counter = field(default_factory=Counter)       # bot → recorded matches (every ladder)
    opponents: dict = field(default_factory=dict)           # bot → distinct opponents
    waits: list = field(default_factory=list)               # the arena's own (ArenaStats.waits), simulated s
    waits_between: list = field(default_factory=list)       # from a match's end to the bot's next start
    decision_cpu: list = field(default_factory=list)        # real CPU s of each _schedule that started a table
    decision_free: list = field(default_factory=list)       # free bots that draw saw
    idle_cpu: list = field(default_factory=list)            # real CPU s of each _schedule that started none
    refresh_cpu: list = field(default_factory=list)         # real CPU s of each Arena._refresh
    writes: Writes = field(default_factory=Writes)          # during the simulation (matches and refreshes)
    bytes_before: int | None = None                         # the ledger with its bots, before any match
    bytes_after: int | None = None                          # after the simulation
    bytes_pruned: int | None = None                         # after pruning every log and vacuuming
    engine_cpu: float = 0.0
    wall: float = 0.0
    peak_rss_mb: float = 0.0


def waits_between(played, slots: int) -> list[float]:
    """Simulated seconds from a slot coming free (a match's end) to the bot's next start; a bot's
    first ``slots`` starts, free since it connected, are left out (as bench/arena.py does)."""
    by_bot = defaultdict(list)
    for start, end, _, bots in played:
        for b in set(bots):
            by_bot[b] += [(end, 0), (start, 1)]
    out = []
    for events in by_bot.values():
        free = [None] * slots
        for at, is_start in sorted(events):
            if not is_start:
                free.append(at)
            elif free:
                since = free.pop(0)
                if since is not None:
                    out.append(at - since)
    return out


async def _drive(ledger: Ledger, rep: SimReport, seed: int | None, progress) -> None:
    ref = SimReferee(rep.bots, rep.step_seconds)
    specs = [LadderSpec.parse(text) for text in rep.ladders]
    arena = Arena(ref, ledger, specs, max_per_bot=rep.max_matches, rate=rep.rate, clock=lambda: ref.now,
                  rng=random.Random(seed) if seed is not None else None)
    schedule, free = arena._schedule, arena._free
    seen = [0]

    def counted_free(spec, now):
        bots = free(spec, now)
        seen[0] = len(bots)
        return bots

    def timed_schedule(spec):
        seen[0] = 0
        t0 = time.thread_time()
        started = schedule(spec)
        cpu = time.thread_time() - t0
        if started:
            rep.decision_cpu.append(cpu)
            rep.decision_free.append(seen[0])
        else:
            rep.idle_cpu.append(cpu)
        return started

    arena._free, arena._schedule = counted_free, timed_schedule
    arena._load()
    end = rep.hours * 3600.0
    shown = time.monotonic()
    while True:
        ref.release()
        await settle(arena, ref)
        if ref.now >= end:
            break
        if ref.now >= arena._refresh_at:  # as Arena._run: the bots' states and ratings once a second
            arena._refresh_at = ref.now + 1.0
            t0 = time.thread_time()
            arena._refresh()
            rep.refresh_cpu.append(time.thread_time() - t0)
        arena._round()
        await settle(arena, ref)
        ref.now = min(ref.now + arena._until_due(ref.now), ref.next_end(), max(end, ref.now))
        if progress and time.monotonic() - shown > 30:
            shown = time.monotonic()
            progress(f"simulated {ref.now / 3600:.2f} of {rep.hours:g} h: {arena.stats.started} matches started")
    arena._stopping = True  # no new match; the running ones play out on the clock
    while arena.tasks:
        ref.now = max(ref.now, ref.next_end())
        ref.release()
        await settle(arena, ref)
    rep.started, rep.recorded, rep.unplayed = arena.stats.started, arena.stats.finished, arena.stats.unplayed
    rep.waits = list(arena.stats.waits)
    rep.waits_between = waits_between(ref.played, rep.max_matches)
    rep.engine_cpu = ref.engine_cpu
    for (_, bot), n in arena._matches.items():  # the arena's own count: matches recorded
        rep.per_bot[bot] += n
    met = defaultdict(set)
    for _, _, game, bots in ref.played:
        rep.by_ladder[f"{game}:{len(bots)}"] += 1
        for b in bots:
            met[b].update(o for o in bots if o != b)
    rep.opponents = {b: len(met[b]) for b in rep.bots}


def simulate(bots: int, ladders: list[str] | None = None, hours: float = 1.0, rate: float = RATE,
             max_matches: int = 2, step_seconds: float = 0.1, db: str | None = None, seed: int | None = None,
             prune: bool = True, progress=None) -> SimReport:
    """Run the simulation (module docstring) and return its figures."""
    rep = SimReport([f"sim{i:05d}" for i in range(bots)], list(ladders or LADDERS), hours, rate,
                    max_matches, step_seconds)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        where = db or str(Path(tmp) / "arena.db")
        ledger = Ledger(where)
        for name in rep.bots:
            ledger.add_bot(name, owner="simulation")
        ledger.reclaim()  # the WAL checkpointed: the file as the matches find it
        rep.bytes_before = ledger.storage_bytes()
        rep.writes.watch(ledger)
        try:
            asyncio.run(_drive(ledger, rep, seed, progress))
        finally:
            ledger.close()
        ledger = Ledger(where)
        try:
            rep.bytes_after = ledger.storage_bytes()
            rep.in_ledger = ledger.counts()["matches"]["finished"]
            if prune:  # as `ledger prune --older-than 0`: every log dropped, the space given back
                ledger.prune(0)
                ledger.reclaim()
                rep.bytes_pruned = ledger.storage_bytes()
        finally:
            ledger.close()
    rep.wall = time.monotonic() - t0
    rep.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return rep


def percentile(values, q: float) -> float:
    """The nearest-rank ``q`` percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def spread(values) -> str:
    values = list(values)
    if not values:
        return "none"
    return f"min {min(values)}, median {statistics.median(values):g}, max {max(values)}"


def seconds(values) -> str:
    if not values:
        return "none"
    return (f"p50 {percentile(values, 50):,.1f} s, p99 {percentile(values, 99):,.1f} s, "
            f"max {max(values):,.1f} s over {len(values)} starts")


def print_report(rep: SimReport) -> None:
    n, hours = len(rep.bots), rep.hours
    print(f"arena simulated: {n} bots on {', '.join(rep.ladders)}, at most {rep.max_matches} matches a bot, "
          f"pace {rep.rate:g} a minute a ladder (unless @RATE), {hours:g} simulated h in {rep.wall:,.0f} s wall")
    print(f"  matches played in-process by the engines (RandomBot seats, {rep.engine_cpu:,.1f} s CPU), "
          f"no gRPC; {rep.step_seconds:g} simulated s a step; the real ledger and matchmaker")
    print(f"matches: {rep.started} started, {rep.recorded} recorded ({rep.in_ledger} finished in the ledger; "
          f"{rep.recorded / hours:,.0f} a simulated hour: "
          + ", ".join(f"{g} {c / hours:,.0f}" for g, c in sorted(rep.by_ladder.items()))
          + f"), {rep.unplayed} unplayed")
    print(f"scheduling latency (simulated): every start, from free_since (the arena's): {seconds(rep.waits)}")
    print(f"  from a match's end to the bot's next start: {seconds(rep.waits_between)}")
    if rep.decision_cpu:
        cpu, free = rep.decision_cpu, rep.decision_free
        per_bot = 1e6 * sum(cpu) / max(sum(free), 1)
        print(f"CPU a scheduling decision (one table drawn, real): mean {1e3 * statistics.mean(cpu):,.2f} ms, "
              f"p50 {1e3 * percentile(cpu, 50):,.2f} ms, p99 {1e3 * percentile(cpu, 99):,.2f} ms over "
              f"{len(cpu)}, among {statistics.mean(free):,.0f} free bots on average ({per_bot:.1f} µs a free bot)")
    if rep.idle_cpu:
        print(f"  a scheduling call that started nothing: mean {1e6 * statistics.mean(rep.idle_cpu):,.1f} µs "
              f"over {len(rep.idle_cpu)}")
    if rep.refresh_cpu:
        print(f"  Arena._refresh (bot states and ratings, once a second): mean "
              f"{1e3 * statistics.mean(rep.refresh_cpu):,.2f} ms over {len(rep.refresh_cpu)}")
    busy = sum(rep.decision_cpu) + sum(rep.idle_cpu) + sum(rep.refresh_cpu)
    print(f"  the matchmaker's CPU a simulated hour: {busy / hours:,.1f} s ({100 * busy / (3600 * hours):.2f} % "
          "of a core at this pace)")
    print(f"matches per bot: {spread(rep.per_bot.get(b, 0) for b in rep.bots)}; never seated: "
          f"{sum(1 for b in rep.bots if not rep.per_bot.get(b))}")
    print(f"distinct opponents per bot: {spread(rep.opponents.values())}")
    if rep.recorded:
        w = rep.writes
        print(f"ledger writes a match: {w.statements / rep.recorded:.1f} statements, {w.rows / rep.recorded:.1f} rows, "
              f"{w.commits / rep.recorded:.1f} commits (the once-a-second refresh's reads not counted)")
    if rep.recorded and rep.bytes_before and rep.bytes_after:
        per = (rep.bytes_after - rep.bytes_before) / rep.recorded
        day = rep.recorded / hours * 24
        line = (f"ledger: {rep.bytes_after:,} bytes ({rep.bytes_before:,} with the bots alone), {per:,.0f} a match; "
                f"a simulated day ({day:,.0f} matches): {per * day / 1e6:,.1f} MB")
        if rep.bytes_pruned is not None:
            pruned = max(rep.bytes_pruned - rep.bytes_before, 0) / rep.recorded
            line += (f"; after `ledger prune --older-than 0`: {pruned:,.0f} a match, {pruned * day / 1e6:,.1f} MB a "
                     "day once its logs are pruned")
        print(line)
    print(f"this process's peak RSS: {rep.peak_rss_mb:,.0f} MB")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--simulate", type=int, metavar="N", required=True, help="bots")
    p.add_argument("--sim-hours", type=float, default=1.0, help="simulated hours (default 1)")
    p.add_argument("--ladder", action="append", help=f"GAME[:SEATS][@RATE] (repeat; default {' '.join(LADDERS)})")
    p.add_argument("--rate", type=float, default=RATE, help=f"matches a minute a ladder (default {RATE:g})")
    p.add_argument("--max-matches", type=int, default=2, help="matches a bot at once (serve --max-matches)")
    p.add_argument("--step-seconds", type=float, default=0.1, help="simulated seconds a step of a match takes")
    p.add_argument("--db", help="a ledger URL to fill (an empty one; default: SQLite in a temporary folder)")
    p.add_argument("--seed", type=int, help="seed of the table draws (the deals come from the CSPRNG)")
    p.add_argument("--no-prune", action="store_true", help="skip measuring the ledger after pruning")
    args = p.parse_args(argv)
    if args.simulate < 2 or not args.sim_hours > 0 or not 0 < args.rate < math.inf:
        p.error("--simulate: 2 bots or more; --sim-hours and --rate: above 0")
    rep = simulate(args.simulate, args.ladder, args.sim_hours, args.rate, args.max_matches, args.step_seconds,
                   args.db, args.seed, not args.no_prune, progress=lambda line: print(line, file=sys.stderr))
    print_report(rep)


if __name__ == "__main__":
    main()
