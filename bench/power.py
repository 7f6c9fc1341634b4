#!/usr/bin/env python3
"""Duplicate's power: how many matches ``--until-separated`` needs to rank the better bot above
the worse, in plain and in duplicate play, per game at 3 and 4 seats.

    .venv/bin/python bench/power.py                      # every game, 3 and 4 seats, 60 sets a cell
    .venv/bin/python bench/power.py --quick              # 4 sets: the table's shape ("too few sets")
    .venv/bin/python bench/power.py --games scout --seats 4 --sets 200 -j 2
    .venv/bin/python bench/power.py --until-separated    # whole leagues, in-process: median matches

A table seats the example heuristic (A) against K − 1 random bots or weak heuristics (B) in the
K seat rotations of a league's round robin, one deal per set in duplicate, in-process. Each
cell's sets are resampled into simulated ``--until-separated`` gauntlets, decided by the test
of cardarena.server.sequential: the table gives each design's median matches with a 90 %
bootstrap interval, their ratio, and the two designs' mean comparisons side by side.
``--until-separated`` plays whole gauntlet leagues instead (cardarena.server.league's
``until_separated`` adds every round), 20 per game and design.

The two designs' expected means are equal (each match of a duplicate set is, alone, a plain
match), so where their columns differ it is sampling noise; a row's z and the Stouffer z per
pairing show how much. Printed, never asserted (tests/test_power.py runs the core with tiny
numbers). Design notes and the figures: docs/conduct.md (sequential).
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
from cardarena.server.sequential import BETS, betting_test, per_pair_alpha

GAMES = ("sixth-card", "unsorted", "scouting", "scout", "three-thirteen")
SHORT = {"three-thirteen": {"rounds": 4}}
PAIRINGS = ("heuristic vs random", "heuristic vs weak")
DESIGNS = ("plain", "duplicate")
#: Fewer sets than this cannot stand for the results' spread (an outcome one set in 20 has is
#: likely missing), so a cell's finding is "too few sets".
MIN_SETS = 20
#: ``--until-separated``: the heuristic against two random bots at three seats, and the games' options.
LEAGUE_BOTS = ("heur", "rnd1", "rnd2")
LEAGUE_GAMES = {"sixth-card": {"rounds": 1}, "three-thirteen": {"rounds": 4}}


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
    """The match plans of ``count`` sets as a league schedules them: one round of
    ``round_robin`` per set, the table's K bots in their K rotations; a list per set."""
    plans = round_robin(table_names(a, b, seats), seats, count, seed, duplicate=duplicate)
    return [plans[i:i + seats] for i in range(0, len(plans), seats)]


def advantage(places: Sequence[int], a_seat: int) -> float:
    """A's advantage in one match: the mean place of the other seats less A's place."""
    others = [p for s, p in enumerate(places) if s != a_seat]
    return sum(others) / len(others) - places[a_seat]


def compare(places: Sequence[int], a_seat: int, b_seat: int) -> int:
    """+1 if A placed above B, −1 if below, 0 if level: what the sequential test counts."""
    return (places[a_seat] < places[b_seat]) - (places[a_seat] > places[b_seat])


def play_set(game: str, options: dict, plans, bot_for: Callable[[str, int], object],
             a: str = "A") -> tuple[list[list[int]], list[float]]:
    """Play one set's matches. Returns A's comparison with each other bot of the table in each
    match (one row per other bot, in ``table_names`` order, one column per match) and A's
    advantage in each match. ``bot_for(name, seed)`` makes a seat's bot (a new one per match)."""
    from cardarena.server.match import play_match
    others = [n for n in plans[0].bots if n != a]  # the first rotation is the table's order
    rows: list[list[int]] = [[] for _ in others]
    advantages = []
    for plan in plans:
        bots = [bot_for(name, derive_seed(plan.seed, plan.index, seat)) for seat, name in enumerate(plan.bots)]
        places = play_match(game, bots, seed=plan.seed, options=options).result.places
        me = plan.bots.index(a)
        for row, other in zip(rows, others):
            row.append(compare(places, me, plan.bots.index(other)))
        advantages.append(advantage(places, me))
    return rows, advantages


def _task(args):
    """One set in a worker process: (its cell, comparisons, advantages)."""
    cell, game, options, plans, pairing, weak_p = args
    kinds = {"A": "heuristic", "B": "random" if pairing == PAIRINGS[0] else "weak"}
    return (cell, *play_set(game, options, plans, lambda name, s: make_bot(kinds[name[0]], game, s, weak_p)))


def cell_seed(seed: int, game: str, seats: int, pairing: str, design: str) -> int:
    return derive_seed(seed, "power", game, seats, pairing, design)


def _pool_map(fn, tasks, jobs: int, what: str):
    """``map`` over ``jobs`` worker processes, with a progress line on a terminal."""
    pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
    t0 = time.perf_counter()
    try:
        for done, out in enumerate(pool.map(fn, tasks, chunksize=2) if pool else map(fn, tasks), 1):
            if sys.stderr.isatty():
                sys.stderr.write(f"\r{done}/{len(tasks)} {what}, {time.perf_counter() - t0:.0f} s")
            yield out
    finally:
        if pool:
            pool.shutdown()
        if sys.stderr.isatty():
            sys.stderr.write("\n")


def run(games: Sequence[str], seat_counts: Sequence[int], n_sets: int, seed: int, jobs: int,
        full: bool, weak_p: float, pairings: Sequence[str] = PAIRINGS) -> dict[tuple, list[tuple]]:
    """Every set of every cell: (game, seats, pairing, design) → [(comparisons, advantages)]."""
    tasks = []
    for game in games:
        options = {} if full else SHORT.get(game, {})
        for k in seat_counts:
            for pairing in pairings:
                for design in DESIGNS:
                    cell = (game, k, pairing, design)
                    for plans in sets(k, n_sets, cell_seed(seed, *cell), design == "duplicate"):
                        tasks.append((cell, game, options, plans, pairing, weak_p))
    per_set: dict[tuple, list[tuple]] = {}
    for cell, rows, advs in _pool_map(_task, tasks, jobs, "sets"):
        per_set.setdefault(cell, []).append((rows, advs))
    return per_set


# ------------------------------------------------------------- the sequential test, simulated


def sets_to_separate(sets_played: Sequence[Sequence[Sequence[int]]], duplicate: bool, alpha: float) -> int | None:
    """The sets (rounds) after which a gauntlet whose rounds were ``sets_played`` (each: per
    pair, its matches' comparisons) had every pair separated, by the league's own test
    (``betting_test``; plain: one result per match, duplicate: one per set); None if never."""
    pairs = len(sets_played[0]) if sets_played else 0
    k = len(sets_played[0][0]) if sets_played else 1
    last = 0
    for p in range(pairs):
        if duplicate:
            results = [sum(s[p]) / len(s[p]) for s in sets_played]
        else:
            results = [d for s in sets_played for d in s[p]]
        _, at, _ = betting_test(results, alpha)
        if at is None:
            return None
        last = max(last, at if duplicate else -(-at // k))
    return last


def simulate(data: Sequence, duplicate: bool, alpha: float, draws: Callable[[int], "object"], n: int,
             cap_sets: int):
    """``sets_to_separate`` for ``n`` gauntlets at once (numpy), their t-th round being the
    observed set ``draws(t)[i]`` for gauntlet i; ``cap_sets + 1`` where not within ``cap_sets``."""
    import numpy as np
    comps = np.asarray(data, dtype=float)                      # (sets, pairs, K)
    steps = comps.mean(axis=2, keepdims=True) if duplicate else comps
    lam = np.asarray(BETS)
    grow = np.concatenate([1 + steps[..., None] * lam, 1 - steps[..., None] * lam], axis=3)  # (sets, pairs, k, 2 bets)
    pairs = comps.shape[1]
    capital = np.full((n, pairs, 2 * len(lam)), 0.5 / len(lam))  # the A-side shares, then the B-side ones
    separated = np.zeros((n, pairs), dtype=bool)
    done_at = np.full(n, cap_sets + 1)
    threshold = 1 / alpha
    active = np.arange(n)
    with np.errstate(over="ignore"):  # a separated pair's capital may grow past floats: inf, still separated
        for t in range(1, cap_sets + 1):
            idx = np.asarray(draws(t))[active]
            for j in range(steps.shape[2]):
                capital *= grow[idx, :, j]
                separated |= capital.sum(axis=2) >= threshold
            done = separated.all(axis=1)
            done_at[active[done]] = t
            if done.any():
                active, capital, separated = active[~done], capital[~done], separated[~done]
            if not active.size:
                break
    return done_at


def predict(data: Sequence, duplicate: bool, confidence: float, resamples: int, leagues: int, cap: int,
            rng: random.Random) -> list[float]:
    """Median matches to separate every pair of the table's gauntlet (A against each B seat),
    from ``leagues`` simulated gauntlets a resample: first for the observed sets, then for
    ``resamples`` bootstrap resamples of them; ∞ where the median passes ``cap`` matches."""
    import numpy as np
    gen = np.random.default_rng(rng.getrandbits(63))
    n_sets, pairs, k = len(data), len(data[0]), len(data[0][0])
    boot = np.vstack([np.arange(n_sets)[None, :], gen.integers(n_sets, size=(resamples, n_sets))])
    owner = np.repeat(np.arange(resamples + 1), leagues)
    done = simulate(data, duplicate, per_pair_alpha(confidence, pairs),
                    lambda t: boot[owner, gen.integers(n_sets, size=owner.size)], owner.size, cap // k)
    medians = np.median(done.reshape(resamples + 1, leagues), axis=1) * k
    return [math.inf if m > cap else float(m) for m in medians]


def band(values: Sequence[float]) -> tuple[float, float]:
    """The 5th and 95th percentiles."""
    v = sorted(values)
    return (v[int(0.05 * (len(v) - 1))], v[-1 - int(0.05 * (len(v) - 1))]) if v else (math.nan, math.nan)


def mean_and_se(xs: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf)


def difference_z(plain: Sequence[float], dup: Sequence[float]) -> float:
    """(mean plain − mean duplicate) over its standard error, from per-set values."""
    (mp, sp), (md, sd) = mean_and_se(plain), mean_and_se(dup)
    se = math.hypot(sp, sd)
    return (mp - md) / se if se > 0 else 0.0


def _fmt(n: float) -> str:
    return "∞" if math.isinf(n) else f"{n:.0f}" if n >= 10 else f"{n:.1f}"


def _fmt_band(n: float, b: tuple[float, float]) -> str:
    """``n [low–high]``; ``n`` alone without an interval, "–" without ``n``."""
    if math.isnan(n):
        return "–"
    return _fmt(n) if math.isnan(b[0]) else f"{_fmt(n)} [{_fmt(b[0])}–{_fmt(b[1])}]"


def finding(n_sets: int, plain: Sequence[float], dup: Sequence[float], ratio_band: tuple[float, float]) -> str:
    """"too few sets" (under ``MIN_SETS``, or an interval reaching past the cap), else whether
    duplicate's median is clearly below plain's (its 90 % interval of the ratio above 1)."""
    if n_sets < MIN_SETS or any(math.isinf(x) or math.isnan(x) for x in (*band(plain[1:]), *band(dup[1:]))):
        return "too few sets"
    if ratio_band[0] > 1:
        return "duplicate helps"
    return "duplicate costs" if ratio_band[1] < 1 else "no clear difference"


def table(per_set: dict[tuple, list[tuple]], confidence: float, resamples: int, leagues: int, cap: int,
          seed: int) -> list[str]:
    """The printed table: per game, seats and pairing, the designs' mean comparisons side by side
    and the median matches their simulated gauntlets need, then the means' differences."""
    rng = random.Random(seed)
    widths = (15, 6, 20, 6, 8, 8, 7, 19, 19, 19)
    head = ("game", "seats", "pairing", "sets", "d plain", "d dup", "z", "plain [90%]", "dup [90%]",
            "plain/dup [90%]")
    row = lambda cells: "".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    lines = [row(head) + "finding", "-" * (sum(widths) + 20)]
    cells = sorted({c[:3] for c in per_set}, key=lambda c: (GAMES.index(c[0]) if c[0] in GAMES else 99, c[1], c[2]))
    z_rows: list[tuple[str, float, float]] = []  # (pairing, z of d, z of the advantage)
    for game, k, pairing in cells:
        plain, dup = per_set[game, k, pairing, "plain"], per_set[game, k, pairing, "duplicate"]
        d_p = [statistics.fmean(d for r in rows for d in r) for rows, _ in plain]
        d_d = [statistics.fmean(d for r in rows for d in r) for rows, _ in dup]
        z_rows.append((pairing, difference_z(d_p, d_d),
                       difference_z([statistics.fmean(a) for _, a in plain], [statistics.fmean(a) for _, a in dup])))
        n = min(len(plain), len(dup))
        boot = resamples if n >= MIN_SETS else 0  # too few sets for a finding: no interval either
        n_p = predict([rows for rows, _ in plain], False, confidence, boot, leagues, cap, rng)
        n_d = predict([rows for rows, _ in dup], True, confidence, boot, leagues, cap, rng)
        ratios = [p / d for p, d in zip(n_p[1:], n_d[1:]) if not (math.isinf(p) and math.isinf(d))]
        r0 = n_p[0] / n_d[0] if not (math.isinf(n_p[0]) and math.isinf(n_d[0])) else math.nan
        lines.append(row((game, k, pairing, n, f"{statistics.fmean(d_p):+.2f}", f"{statistics.fmean(d_d):+.2f}",
                          f"{z_rows[-1][1]:+.1f}", _fmt_band(n_p[0], band(n_p[1:])), _fmt_band(n_d[0], band(n_d[1:])),
                          _fmt_band(r0, band(ratios)))) + finding(n, n_p, n_d, band(ratios)))
    lines.append("")
    for pairing in dict.fromkeys(p for p, _, _ in z_rows):
        for what, col in (("comparison d", 1), ("advantage in places", 2)):
            zs = [z[col] for z in z_rows if z[0] == pairing]
            lines.append(f"{pairing}, plain − duplicate mean {what}: plain larger in {sum(z > 0 for z in zs)} of "
                         f"{len(zs)} rows, |z| ≥ 2 in {sum(abs(z) >= 2 for z in zs)}, all together z = "
                         f"{sum(zs) / math.sqrt(len(zs)):+.1f} (Stouffer)")
    lines.append("The designs' expected means are equal (each match of a duplicate set is, alone, a plain match): "
                 "a difference is sampling noise (docs/conduct.md, sequential).")
    return lines


# -------------------------------------------------------------- whole --until-separated leagues


def league_settings(duplicate: bool, seed: int, confidence: float, cap: int) -> dict:
    """The settings ``until_separated`` reads: a gauntlet of the heuristic against two random
    bots at three seats, rounds of the round robin."""
    return {"bots": list(LEAGUE_BOTS), "seats": 3, "gauntlet": LEAGUE_BOTS[0], "duplicate": duplicate,
            "seed": seed, "matches": None,
            "until_separated": {"confidence": confidence, "top": None, "max_matches": cap}}


def play_league(game: str, options: dict, settings: dict) -> tuple[int, str]:
    """Play a gauntlet in-process as ``league run --until-separated`` does: a round at a time,
    each added by ``until_separated`` on the results so far. Returns the matches played and why
    it stopped ("separated", "cap"; "(wrong way)" added if a random bot was separated above)."""
    from cardarena.client.strategies import for_game
    from cardarena.ratings import SeatResults
    from cardarena.server.league import until_separated
    from cardarena.server.match import RandomBot, StrategyBot, play_match
    results: list = []
    while True:
        state = until_separated(settings, results)
        if state.stopped:
            wrong = any(p.separated and p.ordered()[0] != LEAGUE_BOTS[0] for p in state.separation.pairs)
            return len(results), state.stopped + (" (wrong way)" if wrong else "")
        for plan in state.next_round:
            bots = [StrategyBot(for_game(game)) if name == LEAGUE_BOTS[0] else
                    RandomBot(derive_seed(plan.seed, plan.index, seat)) for seat, name in enumerate(plan.bots)]
            res = play_match(game, bots, seed=plan.seed, options=options).result
            n = len(plan.bots)
            results.append(SeatResults(len(results), plan.round, plan.index, plan.duplicate_set, plan.seed, "finished",
                                       list(plan.bots), list(res.scores), list(res.places), [0] * n, [False] * n))


def _league_task(args):
    game, design, i, seed, confidence, cap = args
    settings = league_settings(design == "duplicate", derive_seed(seed, "league", game, design, i), confidence, cap)
    return (game, design), play_league(game, LEAGUE_GAMES[game], settings)


def fewest_matches(duplicate: bool, confidence: float, pairs: int = 2, seats: int = 3) -> int:
    """The matches a gauntlet needs if A places above every opponent in every match."""
    alpha = per_pair_alpha(confidence, pairs)
    for n in range(1, 1000):
        if sets_to_separate([[[1] * seats] * pairs] * n, duplicate, alpha) is not None:
            return n * seats
    return math.inf


def leagues_table(games: Sequence[str], leagues: int, confidence: float, cap: int, seed: int, jobs: int) -> list[str]:
    """Median matches of whole ``--until-separated`` gauntlets, plain and duplicate, per game."""
    tasks = [(g, d, i, seed, confidence, cap) for g in games for d in DESIGNS for i in range(leagues)]
    found: dict[tuple, list] = {}
    for key, out in _pool_map(_league_task, tasks, jobs, "leagues"):
        found.setdefault(key, []).append(out)
    widths = (16, 12, 24, 28, 11)
    row = lambda cells: "".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    lines = [row(("game", "options", "plain: median [q1–q3]", "duplicate: median [q1–q3]", "dup/plain"))
             + "fewest possible plain/dup; not separated by the cap", "-" * 120]
    for g in games:
        cols, medians = [], []
        for d in DESIGNS:
            ms = sorted(m for m, why in found[g, d])
            q = statistics.quantiles(ms, n=4) if len(ms) > 1 else ms * 3
            medians.append(statistics.median(ms))
            cols.append(f"{medians[-1]:.0f} [{q[0]:.0f}–{q[2]:.0f}]")
        capped = {d: sum(why != "separated" for _, why in found[g, d]) for d in DESIGNS}
        opts = ", ".join(f"{k}={v}" for k, v in LEAGUE_GAMES[g].items())
        lines.append(row((g, opts, *cols, f"{medians[1] / medians[0]:.2f}")) +
                     f"{fewest_matches(False, confidence)}/{fewest_matches(True, confidence)}; "
                     f"{capped['plain']}/{capped['duplicate']} of {leagues}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=None, choices=GAMES,
                    help=f"default: every game ({', '.join(LEAGUE_GAMES)} with --until-separated)")
    ap.add_argument("--seats", nargs="+", type=int, default=[3, 4])
    ap.add_argument("--sets", type=int, default=60, help="sets per game, seats, pairing and design (default 60)")
    ap.add_argument("--quick", action="store_true", help="4 sets a cell: the table's shape in about 20 s (too few sets "
                    "for a finding)")
    ap.add_argument("--full", action="store_true", help="every game at its default options (no short games)")
    ap.add_argument("--pairings", nargs="+", default=["random", "weak"], choices=["random", "weak"],
                    help="the heuristic against random, against the weak heuristic, or both (default)")
    ap.add_argument("--weak-p", type=float, default=0.9, help="the weak heuristic's chance of the heuristic's choice")
    ap.add_argument("--confidence", type=float, default=0.95, help="of the gauntlets, as --confidence (default 0.95)")
    ap.add_argument("--cap", type=int, default=3000, help="matches a simulated gauntlet may play (default 3000)")
    ap.add_argument("--simulate", type=int, default=200, help="simulated gauntlets a resample (default 200)")
    ap.add_argument("--boot", type=int, default=100, help="bootstrap resamples of a cell's sets (default 100)")
    ap.add_argument("--until-separated", action="store_true",
                    help="play whole --until-separated gauntlets in-process (the heuristic against two random bots, "
                         "3 seats) and print the median matches, plain and duplicate")
    ap.add_argument("--leagues", type=int, default=20, help="with --until-separated: leagues per game and design")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    t0 = time.perf_counter()
    if args.until_separated:
        games = args.games or list(LEAGUE_GAMES)
        unknown = [g for g in games if g not in LEAGUE_GAMES]
        if unknown:
            ap.error(f"--until-separated plays {', '.join(LEAGUE_GAMES)}, not {', '.join(unknown)}")
        cap = max(args.cap, 3)
        print(f"--until-separated --gauntlet heur: the heuristic against two random bots, 3 seats, a round robin's "
              f"rounds (plain: 3 matches; duplicate: one set of 3), at {args.confidence:.0%} (each pair at "
              f"{per_pair_alpha(args.confidence, 2):.3g}), cap {cap} matches, {args.leagues} leagues per game and "
              f"design, seed {args.seed}; matches until both pairs are separated")
        print("\n".join(leagues_table(games, args.leagues, args.confidence, cap, args.seed, args.jobs)))
        played = 2 * len(games) * args.leagues
    else:
        n_sets = 4 if args.quick else args.sets
        if n_sets < 2:
            ap.error("--sets must be at least 2")
        games = args.games or list(GAMES)
        pairings = [p for p in PAIRINGS if p.rsplit(" ", 1)[1] in args.pairings]
        per_set = run(games, args.seats, n_sets, args.seed, args.jobs, args.full, args.weak_p, pairings)
        shorts = [f"{g} {', '.join(f'{k}={v}' for k, v in SHORT[g].items())}" for g in games
                  if g in SHORT and not args.full]
        print(f"{n_sets} sets per cell (a set: K matches, the heuristic in every seat once), seed {args.seed}, "
              f"weak heuristic p = {args.weak_p}; short options: {'; '.join(shorts) or 'none'}")
        print(f"d: the heuristic's mean comparison with a B seat (+1 above, −1 below), z: (d plain − d dup) over its "
              f"standard error. plain, dup: median matches of simulated --until-separated gauntlets (the heuristic "
              f"against each B seat, {args.confidence:.0%}), {args.simulate} a resample of the sets, "
              f"[5th–95th percentile over {args.boot} resamples], ∞ past {args.cap} matches")
        print("\n".join(table(per_set, args.confidence, args.boot, args.simulate, args.cap, args.seed)))
        played = sum(len(v) for v in per_set.values())
    print(f"{played} {'leagues' if args.until_separated else 'sets'} in {time.perf_counter() - t0:.0f} s on "
          f"{args.jobs} processes; load average {' '.join(f'{x:.2f}' for x in load)} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
