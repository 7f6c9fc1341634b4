"""League schedules: who sits where in every match of a league, and each match's seed.

A schedule is a list of :class:`~cardarena.ratings.MatchPlan` (round, index, seed, bots by seat,
duplicate set), written whole to the ledger before the first match is played. Everything here
is a pure function of the bots, the table size and the league seed: the same arguments give the
same schedule, so a league is reproducible from its settings.

Kinds: :func:`round_robin` (the default: every group of K bots in every seat rotation),
:func:`balanced` (``--matches N``: even plays, pair meetings and seats), duplicate
(``--duplicate``: each group plays one deal in all K seat rotations, a duplicate set), gauntlet
(``--gauntlet NAME``: one bot at every table) and :func:`next_round` (``--until-separated``:
one whole round at a time; duplicate sets are never split across rounds).

Seeds: a match's seed is derived from the league's key and its place in the schedule
(:func:`derive_seed`), so it does not depend on the order matches are played in. The key is the
league secret (:func:`cardarena.server.deal.new_secret`, HMAC-SHA-256) unless the organizer gave
a seed (SHA-256 of it, reproducible).

Design notes and measurements: docs/conduct.md (schedule).
"""
from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Sequence

from . import deal


class ScheduleError(ValueError):
    """A schedule that cannot be made as asked (one line, for the CLI)."""


def derive_seed(seed: int | str, *parts: int | str) -> int:
    """A 63-bit match seed from the league's key and the match's place in the schedule: with a
    league secret (hex text), HMAC-SHA-256 keyed by it; with an organizer's seed (a number),
    SHA-256 of the seed and the place, so the same ``--seed`` gives the same deals."""
    if isinstance(seed, str):
        return deal.keyed(seed, *parts)
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def check_bots(bots: Sequence[str], seats: int) -> None:
    if len(set(bots)) != len(bots):
        raise ScheduleError("a bot is named twice")
    if seats < 1:
        raise ScheduleError("tables need at least one seat")
    if len(bots) < seats:
        raise ScheduleError(f"tables of {seats} need at least {seats} bots; {len(bots)} given")


def rotations(group: Sequence[str]) -> list[list[str]]:
    """The cyclic seat rotations of a table: (a, b, c) → (a, b, c), (b, c, a), (c, a, b)."""
    group = list(group)
    return [group[k:] + group[:k] for k in range(len(group))]


def round_robin(bots: Sequence[str], seats: int, rounds: int, seed: int | str, duplicate: bool = False,
                gauntlet: str | None = None):
    """The match plans of a round robin (docs/conduct.md), or of a gauntlet's round robin."""
    check_bots(bots, seats)
    if rounds < 1:
        raise ScheduleError("rounds must be at least 1")
    plans: list = []
    for rnd in range(rounds):
        plans += round_robin_round(bots, seats, rnd, seed, duplicate, gauntlet, _next_set(plans))
    return plans


def _groups(bots: Sequence[str], seats: int, gauntlet: str | None) -> list[tuple[str, ...]]:
    """The tables of a round robin's round: every group of ``seats`` bots, or the gauntlet bot
    with every group of ``seats − 1`` others."""
    if gauntlet is None:
        return list(itertools.combinations(bots, seats))
    check_gauntlet(bots, seats, gauntlet)
    return [(gauntlet, *g) for g in itertools.combinations([b for b in bots if b != gauntlet], seats - 1)]


def check_gauntlet(bots: Sequence[str], seats: int, gauntlet: str) -> None:
    if gauntlet not in bots:
        raise ScheduleError(f"--gauntlet {gauntlet}: no such bot in the league (its bots: {', '.join(bots)})")
    if seats < 2:
        raise ScheduleError("a gauntlet needs tables of at least 2 seats")


def _next_set(plans) -> int:
    return 1 + max((p.duplicate_set for p in plans if p.duplicate_set is not None), default=-1)


def round_robin_round(bots: Sequence[str], seats: int, rnd: int, seed: int | str, duplicate: bool = False,
                      gauntlet: str | None = None, first_set: int = 0):
    """Round ``rnd`` of a round robin: every group once in every seat rotation. Its matches are
    numbered on from the rounds before (``index``), its duplicate sets from ``first_set``."""
    from cardarena.ratings import MatchPlan

    check_bots(bots, seats)
    groups = _groups(bots, seats, gauntlet)
    index = rnd * len(groups) * seats
    plans = []
    for s, group in enumerate(groups):
        set_seed = derive_seed(seed, rnd, index)  # the deal of the set: its first match's seed
        for order in rotations(group):
            plans.append(MatchPlan(round=rnd, index=index, seed=set_seed if duplicate else derive_seed(seed, rnd, index),
                                   bots=order, duplicate_set=first_set + s if duplicate else None))
            index += 1
    return plans


def round_robin_size(bots: int, seats: int, rounds: int, gauntlet: bool = False) -> int:
    """How many matches :func:`round_robin` makes, without making them."""
    from math import comb
    if gauntlet:
        return comb(bots - 1, seats - 1) * seats * rounds if bots >= seats >= 2 else 0
    return comb(bots, seats) * seats * rounds if bots >= seats else 0


# --------------------------------------------------------------------------------- balanced


def _choose_tables(n_bots: int, seats: int, n_tables: int, rng: random.Random) -> list[list[int]]:
    """Tables (sets of bot indices) with play counts within one, pairs spread greedily."""
    plays = [0] * n_bots
    pair = [[0] * n_bots for _ in range(n_bots)]
    tables = []
    order = list(range(n_bots))
    for _ in range(n_tables):
        rng.shuffle(order)
        chosen: list[int] = []
        for _ in range(seats):
            best = min((b for b in order if b not in chosen),
                       key=lambda b: (plays[b], sum(pair[b][c] for c in chosen)))
            chosen.append(best)
        for b in chosen:
            plays[b] += 1
        for a, b in itertools.combinations(chosen, 2):
            pair[a][b] += 1
            pair[b][a] += 1
        tables.append(chosen)
    _spread_pairs(tables, pair, rng)
    return tables


def _spread_pairs(tables: list[list[int]], pair: list[list[int]], rng: random.Random) -> None:
    """Swap bots between tables to lower Σ meetings² (play counts stay as they are): a descent
    that also takes sideways steps, until the pairs are within one meeting or no better swap is
    found for a while. (A simulated annealing after it was tried: it did not do better.)"""
    n = len(tables)
    n_bots = len(pair)
    if n < 2 or n_bots < 2:
        return
    seats = len(tables[0])

    def spread() -> int:  # within one: Σ meetings² is as low as it can be
        counts = [pair[u][w] for u in range(n_bots) for w in range(u + 1, n_bots)]
        return max(counts) - min(counts)

    def move(temperature: float) -> int:
        """Try one random swap; returns its change of Σ meetings² if taken, else 1 (no progress)."""
        i, j = rng.randrange(n), rng.randrange(n)
        if i == j:
            return 1
        ti, tj = tables[i], tables[j]
        pi, pj = rng.randrange(seats), rng.randrange(seats)
        a, b = ti[pi], tj[pj]
        if a == b or a in tj or b in ti:
            return 1
        change: dict[tuple[int, int], int] = {}
        for x in ti:
            if x != a:  # a leaves table i, b joins it
                change[a, x] = change.get((a, x), 0) - 1
                change[b, x] = change.get((b, x), 0) + 1
        for x in tj:
            if x != b:  # b leaves table j, a joins it
                change[b, x] = change.get((b, x), 0) - 1
                change[a, x] = change.get((a, x), 0) + 1
        delta = sum((pair[u][w] + d) ** 2 - pair[u][w] ** 2 for (u, w), d in change.items() if d)
        if delta > 0 and (temperature <= 0 or rng.random() >= math.exp(-delta / temperature)):
            return 1
        for (u, w), d in change.items():
            pair[u][w] += d
            pair[w][u] += d
        ti[pi], tj[pj] = b, a
        return delta

    def descend() -> None:
        stale, limit, tries = 0, 20 * n * seats + 200, 0
        while stale < limit:
            stale += 1
            tries += 1
            if tries % 2000 == 0 and spread() <= 1:
                return
            if move(0.0) < 0:  # a sideways step (0) walks the plateau but is no progress
                stale = 0

    if spread() <= 1:
        return
    descend()


def _assignment(cost: list[list[float]]) -> list[int]:
    """Min-cost assignment of rows to columns of a square matrix (Hungarian method, O(n³)).

    Returns ``col[row]``.
    """
    n = len(cost)
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (n + 1)
    p, way = [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    col = [0] * n
    for j in range(1, n + 1):
        col[p[j] - 1] = j - 1
    return col


def _seat_tables(tables: list[list[int]], n_bots: int, seats: int, rng: random.Random) -> list[list[int]]:
    """Each table as bots by seat, rotating seats fairly (docs/conduct.md, point 3)."""
    count = [[0] * seats for _ in range(n_bots)]
    seated = []
    for table in tables:
        table = list(table)
        rng.shuffle(table)
        # the marginal cost of a seat grows with how often the bot sat there (convex: spreads)
        col = _assignment([[count[b][s] for s in range(seats)] for b in table])
        order = [0] * seats
        for b, s in zip(table, col):
            order[s] = b
            count[b][s] += 1
        seated.append(order)
    # swaps of two bots' seats within a table while Σ count² falls
    improved = True
    while improved:
        improved = False
        for order in seated:
            for s, t in itertools.combinations(range(seats), 2):
                a, b = order[s], order[t]
                before = count[a][s] ** 2 + count[a][t] ** 2 + count[b][s] ** 2 + count[b][t] ** 2
                after = ((count[a][s] - 1) ** 2 + (count[a][t] + 1) ** 2 +
                         (count[b][s] + 1) ** 2 + (count[b][t] - 1) ** 2)
                if after < before:
                    count[a][s] -= 1; count[a][t] += 1
                    count[b][t] -= 1; count[b][s] += 1
                    order[s], order[t] = b, a
                    improved = True
    return seated


def balanced(bots: Sequence[str], seats: int, matches: int, seed: int | str, duplicate: bool = False,
             gauntlet: str | None = None, rnd: int = 0, first_set: int = 0):
    """``matches`` match plans with even plays, pair meetings and seats (docs/conduct.md); with
    ``gauntlet``, that bot at every table (docs/conduct.md, "Gauntlet"). ``rnd`` > 0 makes
    another round of ``matches`` (``--until-separated``), numbered on from the rounds before."""
    from cardarena.ratings import MatchPlan

    check_bots(bots, seats)
    if matches < 1:
        raise ScheduleError("--matches must be at least 1")
    if duplicate and matches % seats:
        raise ScheduleError(f"with --duplicate each deal is played in all {seats} seat rotations: "
                            f"give --matches a multiple of {seats}, not {matches}")
    rng = random.Random(derive_seed(seed, "balanced", len(bots), seats, matches, *([rnd] if rnd else [])))
    bots = list(bots)
    start = rnd * matches
    others = bots
    if gauntlet is not None:
        check_gauntlet(bots, seats, gauntlet)
        others = [b for b in bots if b != gauntlet]
    table_seats = seats if gauntlet is None else seats - 1
    n_tables = matches // seats if duplicate else matches
    tables = [[others[b] for b in t] for t in _choose_tables(len(others), table_seats, n_tables, rng)]
    if duplicate:
        plans = []
        for s, table in enumerate(tables):
            set_seed = derive_seed(seed, rnd, start + len(plans))
            group = table if gauntlet is None else [gauntlet, *table]
            for order in rotations(group):
                plans.append(MatchPlan(round=rnd, index=start + len(plans), seed=set_seed, bots=order,
                                       duplicate_set=first_set + s))
        return plans
    index = {b: i for i, b in enumerate(bots)}
    if gauntlet is None:
        seated = _seat_tables([[index[b] for b in t] for t in tables], len(bots), seats, rng)
    else:
        seated = _seat_gauntlet([[index[b] for b in t] for t in tables], index[gauntlet], len(bots), seats)
    return [MatchPlan(round=rnd, index=start + i, seed=derive_seed(seed, rnd, start + i), bots=[bots[b] for b in order])
            for i, order in enumerate(seated)]


def _seat_gauntlet(tables: list[list[int]], bot: int, n_bots: int, seats: int) -> list[list[int]]:
    """The gauntlet bot in seat i mod K at the i-th table (every seat equally often over each K
    tables); the others in the other seats by least-sat assignment, as :func:`_seat_tables`."""
    count = [[0] * seats for _ in range(n_bots)]
    seated = []
    for i, table in enumerate(tables):
        mine = i % seats
        free = [s for s in range(seats) if s != mine]
        col = _assignment([[count[b][s] for s in free] for b in table])
        order = [bot] * seats
        for b, c in zip(table, col):
            order[free[c]] = b
            count[b][free[c]] += 1
        seated.append(order)
    return seated


def make_schedule(bots: Sequence[str], seats: int, seed: int | str, rounds: int = 1, matches: int | None = None,
                  duplicate: bool = False, gauntlet: str | None = None):
    """A balanced schedule of ``matches`` matches when given, else a round robin of ``rounds``;
    with ``gauntlet``, that bot at every table."""
    if matches is not None:
        return balanced(bots, seats, matches, seed, duplicate, gauntlet)
    return round_robin(bots, seats, rounds, seed, duplicate, gauntlet)


def next_round(bots: Sequence[str], seats: int, seed: int | str, rnd: int, matches: int | None = None,
               duplicate: bool = False, gauntlet: str | None = None, first_set: int = 0):
    """Round ``rnd`` of a league that grows a round at a time (``--until-separated``): one round
    of the round robin, or ``matches`` more balanced matches. Round 0 is the schedule
    :func:`make_schedule` makes with one round."""
    if matches is not None:
        return balanced(bots, seats, matches, seed, duplicate, gauntlet, rnd, first_set)
    return round_robin_round(bots, seats, rnd, seed, duplicate, gauntlet, first_set)


def describe(plans, bots: Sequence[str], seats: int) -> dict:
    """Figures of a schedule: matches per bot, meetings per pair, seats per bot (for people and tests)."""
    plays = {b: 0 for b in bots}
    seat_counts = {b: [0] * seats for b in bots}
    pairs = {pair: 0 for pair in itertools.combinations(bots, 2)}
    index = {b: i for i, b in enumerate(bots)}
    for p in plans:
        for s, b in enumerate(p.bots):
            plays[b] += 1
            seat_counts[b][s] += 1
        for a, b in itertools.combinations(p.bots, 2):
            pairs[(a, b) if index[a] < index[b] else (b, a)] += 1
    return {"matches": len(plans), "plays": plays, "pairs": pairs, "seats": seat_counts}
