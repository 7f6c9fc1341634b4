#!/usr/bin/env python3
"""Duplicate's power: how many matches rank the better bot above the worse
one with 95 % confidence, in plain and in duplicate play, per game at 3 and 4 seats.

    .venv/bin/python bench/power.py                       # every game, 3 and 4 seats, 60 sets
    .venv/bin/python bench/power.py --quick               # 4 sets: a rough table in ~20 s
    .venv/bin/python bench/power.py --games scout unsorted --seats 4 --sets 200 -j 2
    .venv/bin/python bench/power.py --pairings weak --weak-p 0.7    # a weaker weak heuristic

**Tables.** Each table seats one bot A (the better) and K − 1 copies of bot B (the worse),
in-process (``play_match``). Two pairings: A the game's example heuristic
(``clients/python/strategies.for_game``, through ``StrategyBot``) against ``RandomBot``; and A
the heuristic against a weaker heuristic, which plays the heuristic's choice with probability
0.9 and a random legal action otherwise (``--weak-p``; no strategy module has a knob that
weakens it across the board, so this one rule serves every game).

**Schedules.** The matches are the ones a league plays: ``schedule.round_robin`` over the K bots
of the table, one round per set, so every round is one group in all K cyclic seat rotations (A
sits in every seat once). ``duplicate=True`` gives the K matches of a round one seed, the same
deal (a duplicate set: A held every seat's cards once); plain gives every match its own seed. So
plain and duplicate differ in the deals only, never in the seats. Each (game, seats, pairing,
design) has its own league seed (``derive_seed`` of ``--seed`` and those), so the sets are
independent; every random choice of a bot comes from a seed derived from its match's, so a run
is reproducible.

**The statistic.** In one match, A's advantage is d = (the mean place of the B seats) − (A's
place); places are the game's own (1 is best, ties share). The unit is a set: x = the mean d over
its K matches (plain: K independent deals, A rotated through the seats as in duplicate). σ is the
standard deviation of x over a design's S sets; μ is the mean of x over both designs' sets
together: the two designs draw their deals, seats and bots alike and differ only in how they
pair them, so their expected advantage is the same, and one μ keeps the noise of two separate
means out of the comparison (the table prints both means, to show that noise). The matches
needed for A to rank above B with 95 % confidence are

    n = (z · σ / μ)² × K,   z = 1.645,

the number of matches (in whole sets, averaged) at which the mean advantage is z standard errors
above 0: where the one-sided 95 % bound first excludes "B is as good" for a typical run (about
50 % of runs have separated there; 80 % need ((1.645 + 0.842) / 1.645)² ≈ 2.3 times as many,
the same factor for both designs, so the ratio stands). The ratio n plain / n duplicate, how many
times fewer matches duplicate needs, is thus the ratio of the two designs' variances of x. The
spread: a bootstrap over the sets (``--boot`` resamples, each design resampled on its own); the
table gives each n and the ratio with their 90 % bootstrap interval ("∞" where a resample's μ is
not above 0: no separation at any size).
The finding column: "within one set either way" where both n are under one set's K matches
(A wins nearly every match: separated at once, so the design hardly matters), else "duplicate
helps" where the ratio's interval lies above 1, "duplicate costs" where it lies below, else "no
clear gain".

**Short options.** Where a full game is long the bench plays a shorter one (printed with the
table; ``--full`` plays every game's defaults): Three Thirteen ``rounds=4`` (of 11: the rounds
of 3 to 6 cards). Sixth Card (to 66 points), Unsorted, Scouting and SCOUT play whole games. A
shorter game has fewer hands to even out luck, so its n differs from the full game's; the
question, whether duplicate helps, is asked of the same game in both designs.

Printed, never asserted (tests/test_power.py runs the core with tiny numbers): the load average
before and after (the machine is shared) and the table. Runs on ``-j`` worker processes
(default 2), a few minutes at the default size.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from cardarena.server.schedule import derive_seed, round_robin

GAMES = ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen")
SHORT = {"three-thirteen": {"rounds": 4}}
PAIRINGS = ("heuristic vs random", "heuristic vs weak")
DESIGNS = ("plain", "duplicate")
Z = 1.645  # one-sided 95 %


class WeakHeuristic:
    """The game's heuristic with probability ``p``, a random legal action otherwise."""

    def __init__(self, game: str, p: float, seed: int):
        from cardarena.client.strategies import for_game
        self.choose, self.p, self.rng = for_game(game), p, random.Random(seed)

    def __call__(self, decision) -> int:
        if self.rng.random() < self.p:
            return self.choose(decision.view, decision.actions_json)
        return self.rng.randrange(len(decision.actions))


def make_bot(kind: str, game: str, seed: int, weak_p: float):
    """One seat's bot: ``heuristic``, ``random`` or ``weak``."""
    from cardarena.client.strategies import for_game
    from cardarena.server.match import RandomBot, StrategyBot
    if kind == "heuristic":
        return StrategyBot(for_game(game))
    if kind == "random":
        return RandomBot(seed)
    return WeakHeuristic(game, weak_p, seed)


def table_names(a: str, b: str, seats: int) -> list[str]:
    """The bots of a table: A once, then B in every other seat (``b-1``, ``b-2``, …)."""
    return [a] + [f"{b}-{i}" for i in range(1, seats)]


def sets(seats: int, count: int, seed: int, duplicate: bool, a: str = "A", b: str = "B"):
    """The match plans of ``count`` sets as a league schedules them (module docstring): one round
    of ``round_robin`` per set, the table's K bots in their K rotations; a list per set."""
    plans = round_robin(table_names(a, b, seats), seats, count, seed, duplicate=duplicate)
    return [plans[i:i + seats] for i in range(0, len(plans), seats)]


def advantage(places: Sequence[int], a_seat: int) -> float:
    """A's advantage in one match: the mean place of the other seats less A's place."""
    others = [p for s, p in enumerate(places) if s != a_seat]
    return sum(others) / len(others) - places[a_seat]


def play_set(game: str, options: dict, plans, bot_for: Callable[[str, int], object], a: str = "A") -> list[float]:
    """Play the matches of one set; A's advantage in each, in the set's order. ``bot_for(name,
    seed)`` makes the bot of a seat (a new one per match, its random choices from ``seed``)."""
    from cardarena.server.match import play_match
    out = []
    for plan in plans:
        bots = [bot_for(name, derive_seed(plan.seed, plan.index, seat)) for seat, name in enumerate(plan.bots)]
        record = play_match(game, bots, seed=plan.seed, options=options)
        out.append(advantage(record.result.places, plan.bots.index(a)))
    return out


def _task(args) -> tuple[tuple, list[float]]:
    """One set in a worker process: (its cell, A's advantage per match)."""
    cell, game, options, plans, pairing, weak_p = args
    kinds = {"A": "heuristic", "B": "random" if pairing == PAIRINGS[0] else "weak"}
    return cell, play_set(game, options, plans, lambda name, s: make_bot(kinds[name[0]], game, s, weak_p))


def needed(xs: Sequence[float], seats: int, mu: float | None = None) -> float:
    """Matches needed for a one-sided 95 % separation, n = (z σ / μ)² × K, from the per-set
    statistics ``xs`` (module docstring), μ their mean unless given; ∞ when μ is not above 0."""
    mu = statistics.fmean(xs) if mu is None else mu
    if mu <= 0:
        return math.inf
    sigma = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return (Z * sigma / mu) ** 2 * seats


def both_needed(plain: Sequence[float], dup: Sequence[float], seats: int) -> tuple[float, float]:
    """n plain and n duplicate over the advantage of both designs together (the same in
    expectation: module docstring), so their ratio is the ratio of the designs' variances."""
    mu = (statistics.fmean(plain) + statistics.fmean(dup)) / 2
    return needed(plain, seats, mu), needed(dup, seats, mu)


def bootstrap(plain: Sequence[float], dup: Sequence[float], seats: int, resamples: int, rng: random.Random):
    """The 5th and 95th percentiles of n plain, n duplicate and their ratio over bootstrap resamples."""
    n_p, n_d, ratio = [], [], []
    for _ in range(resamples):
        p, d = both_needed(rng.choices(plain, k=len(plain)), rng.choices(dup, k=len(dup)), seats)
        n_p.append(p)
        n_d.append(d)
        r = _ratio(p, d)
        if not math.isnan(r):  # a resample without spread in either design has no ratio
            ratio.append(r)

    def band(v):
        v = sorted(v)
        return (v[int(0.05 * (len(v) - 1))], v[int(0.95 * (len(v) - 1))]) if v else (math.nan, math.nan)
    return band(n_p), band(n_d), band(ratio)


def cell_seed(seed: int, game: str, seats: int, pairing: str, design: str) -> int:
    return derive_seed(seed, "power", game, seats, pairing, design)


def run(games: Sequence[str], seat_counts: Sequence[int], n_sets: int, seed: int, jobs: int,
        full: bool, weak_p: float, pairings: Sequence[str] = PAIRINGS) -> dict[tuple, list[float]]:
    """Every set of every cell: (game, seats, pairing, design) → the per-set statistics x."""
    tasks = []
    for game in games:
        options = {} if full else SHORT.get(game, {})
        for k in seat_counts:
            for pairing in pairings:
                for design in DESIGNS:
                    cell = (game, k, pairing, design)
                    for plans in sets(k, n_sets, cell_seed(seed, *cell), design == "duplicate"):
                        tasks.append((cell, game, options, plans, pairing, weak_p))
    per_set: dict[tuple, list[float]] = {}
    done, t0 = 0, time.perf_counter()
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    try:
        for cell, ds in (pool.map(_task, tasks, chunksize=2) if pool else map(_task, tasks)):
            per_set.setdefault(cell, []).append(statistics.fmean(ds))
            done += 1
            if sys.stderr.isatty():
                sys.stderr.write(f"\r{done}/{len(tasks)} sets, {time.perf_counter() - t0:.0f} s")
    finally:
        if pool:
            pool.shutdown()
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return per_set


def _fmt(n: float) -> str:
    return "∞" if math.isinf(n) else f"{n:.0f}" if n >= 10 else f"{n:.1f}"


def _ratio(plain: float, dup: float) -> float:
    """n plain / n duplicate; NaN when neither design has any spread (both n are 0)."""
    if plain == dup == 0 or math.isinf(plain) and math.isinf(dup):
        return math.nan
    return math.inf if dup == 0 else plain / dup


def _fmt_band(n: float, band: tuple[float, float]) -> str:
    return "–" if math.isnan(n) else f"{_fmt(n)} [{_fmt(band[0])}–{_fmt(band[1])}]"


def table(per_set: dict[tuple, list[float]], resamples: int, seed: int) -> list[str]:
    """The printed table: per game, seats and pairing, μ and n for both designs and the ratio."""
    rng = random.Random(seed)
    widths = (15, 6, 20, 8, 7, 8, 7, 18, 18, 18)
    head = ("game", "seats", "pairing", "μ plain", "μ dup", "σ plain", "σ dup", "n plain [90%]", "n dup [90%]",
            "ratio [90%]")
    row = lambda cells: "".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    lines = [row(head) + "finding", "-" * (sum(widths) + 16)]
    cells = sorted({c[:3] for c in per_set}, key=lambda c: (GAMES.index(c[0]) if c[0] in GAMES else 99, c[1], c[2]))
    for game, k, pairing in cells:
        plain, dup = per_set[game, k, pairing, "plain"], per_set[game, k, pairing, "duplicate"]
        n_p, n_d = both_needed(plain, dup, k)
        bp, bd, br = bootstrap(plain, dup, k, resamples, rng)
        finding = ("within one set either way" if max(n_p, n_d) < k else "duplicate helps" if br[0] > 1
                   else "duplicate costs" if br[1] < 1 else "no clear gain")
        figures = [f"{f(xs):.2f}" for f in (statistics.fmean, statistics.stdev) for xs in (plain, dup)]
        lines.append(row((game, k, pairing, *figures, _fmt_band(n_p, bp), _fmt_band(n_d, bd),
                          _fmt_band(_ratio(n_p, n_d), br))) + finding)
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    ap.add_argument("--seats", nargs="+", type=int, default=[3, 4])
    ap.add_argument("--sets", type=int, default=60, help="sets per game, seats, pairing and design (default 60)")
    ap.add_argument("--quick", action="store_true", help="4 sets (and 500 resamples): a rough table in about 20 s")
    ap.add_argument("--full", action="store_true", help="every game at its default options (no short games)")
    ap.add_argument("--pairings", nargs="+", default=["random", "weak"], choices=["random", "weak"],
                    help="the heuristic against random, against the weak heuristic, or both (default)")
    ap.add_argument("--weak-p", type=float, default=0.9, help="the weak heuristic's chance of the heuristic's choice")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    n_sets = 4 if args.quick else args.sets
    if n_sets < 2:
        ap.error("--sets must be at least 2 (a spread needs two sets)")
    if args.quick:
        args.boot = min(args.boot, 500)
    load = os.getloadavg()
    t0 = time.perf_counter()
    pairings = [p for p in PAIRINGS if p.rsplit(" ", 1)[1] in args.pairings]
    per_set = run(args.games, args.seats, n_sets, args.seed, args.jobs, args.full, args.weak_p, pairings)
    elapsed = time.perf_counter() - t0
    shorts = [f"{g} {', '.join(f'{k}={v}' for k, v in SHORT[g].items())}" for g in args.games
              if g in SHORT and not args.full]
    print(f"{n_sets} sets per cell (a set: K matches, the heuristic in every seat once), seed {args.seed}, "
          f"weak heuristic p = {args.weak_p}; short options: {'; '.join(shorts) or 'none'}")
    print(f"n: matches for the heuristic to rank above B with one-sided 95 % confidence, (z σ/μ)² × K, z = {Z}; "
          f"[5th–95th percentile of {args.boot} bootstrap resamples]; ratio: n plain / n duplicate")
    print("\n".join(table(per_set, args.boot, args.seed)))
    print(f"{sum(len(v) for v in per_set.values())} sets played in {elapsed:.0f} s on {args.jobs} processes; "
          f"load average {' '.join(f'{x:.2f}' for x in load)} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
