"""Rating rules: how a finished match changes its bots' TrueSkill ratings.

These are the rules of every cardarena rating table. The ledger applies them in the same
transaction that records a match, and ``cardarena ratings recompute`` replays them over the
finished matches, in the order they were recorded, to exactly the same numbers.

1. One TrueSkill environment per game (:data:`SETTINGS`, the ``trueskill`` package's defaults;
   :data:`GAME_SETTINGS` for one game). Changing a setting changes every number: run ``recompute``.
2. Free-for-all: every seat is its own team, ranked by its place, in the order of recording.
3. Ties are draws; each tied seat is rated at every position of its tie group, and averaged.
4. A forfeited seat is rated by the place it was given, below every seat that did not forfeit;
   an absent seat (its bot never connected during the match) is not rated (:func:`absent_seats`).
5. Self-play is not rated: a bot that holds several seats of a match has none of them rated.
6. ``matches``, ``wins`` and the mean place count rated matches only.
7. An update TrueSkill cannot compute leaves μ and σ unchanged; it still counts as rated.
8. The table is ranked by the conservative rating μ − 3σ, then μ, then the bot's name.

:func:`update` is the whole rule as a pure function of plain floats; it is what the ledger and
``recompute`` both call, so the two cannot disagree.

Design notes and measurements: docs/ledger.md (rating).
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from math import fsum

import trueskill

#: The TrueSkill settings of every game (the ``trueskill`` package's own defaults).
SETTINGS: dict[str, float] = {
    "mu": 25.0,
    "sigma": 25.0 / 3.0,
    "beta": 25.0 / 6.0,
    "tau": 25.0 / 300.0,
    "draw_probability": 0.10,
}

#: Per-game overrides of :data:`SETTINGS`, by game id (none yet).
GAME_SETTINGS: dict[str, dict[str, float]] = {}

#: A rating as the ledger stores it: (μ, σ).
Skill = tuple[float, float]


def settings(game: str) -> dict[str, float]:
    """The TrueSkill settings of ``game``."""
    return {**SETTINGS, **GAME_SETTINGS.get(game, {})}


@lru_cache(maxsize=None)
def environment(game: str) -> trueskill.TrueSkill:
    """The TrueSkill environment of ``game`` (one per game, built once)."""
    return trueskill.TrueSkill(backend=None, **settings(game))


def initial(game: str) -> Skill:
    """The rating of a bot before its first rated match of ``game``."""
    s = settings(game)
    return (float(s["mu"]), float(s["sigma"]))


def conservative(mu: float, sigma: float) -> float:
    """μ − 3σ."""
    return mu - 3.0 * sigma


def update(ratings: Sequence[Skill], places: Sequence[int], game: str = "") -> list[Skill]:
    """The new (μ, σ) of each seat after a free-for-all match with these places (1 is best).

    Every seat is its own team; equal places are draws, and a tied seat is rated at every
    position of its tie group in turn (rule 3). Fewer than two seats: no change. Pure: the same
    floats in give the same floats out.
    """
    n = len(ratings)
    if n != len(places):
        raise ValueError(f"{n} ratings but {len(places)} places")
    unchanged = [(float(m), float(s)) for m, s in ratings]
    if n < 2:
        return unchanged
    env = environment(game)
    # The canonical chain: by place, then by rating, so seats with equal ratings are
    # interchangeable in it (the seat number only orders seats that are equal anyway).
    canon = sorted(range(n), key=lambda s: (places[s], -ratings[s][0], ratings[s][1], s))
    runs: dict[tuple, list[Skill]] = {}  # chains of equal values give equal results: run once

    def run(order: list[int]) -> list[Skill]:
        """The new ratings, position by position, of the seats chained in this order."""
        key = tuple((tuple(ratings[s]), places[s]) for s in order)
        if key not in runs:
            rated = env.rate([(env.create_rating(*ratings[s]),) for s in order],
                             ranks=[places[s] for s in order])
            runs[key] = [(float(r.mu), float(r.sigma)) for (r,) in rated]
        return runs[key]

    try:
        new = [unchanged[0]] * n
        for s, r in zip(canon, run(canon)):
            new[s] = r
        start = 0
        while start < n:
            end = start
            while end < n and places[canon[end]] == places[canon[start]]:
                end += 1
            group = canon[start:end]
            if len(group) > 1:
                head, tail = canon[:start], canon[end:]
                for seat in group:
                    rest = [s for s in group if s != seat]
                    at = [run(head + rest[:j] + [seat] + rest[j:] + tail)[start + j]
                          for j in range(len(group))]
                    new[seat] = (fsum(m for m, _ in at) / len(at), fsum(s for _, s in at) / len(at))
            start = end
    except FloatingPointError:  # rule 7
        return unchanged
    return new


#: The kind of the fault-log entry (``result_details["faults"]``) of an absent seat's forfeit.
ABSENT = "absent"


def absent_seats(fault_log: object) -> frozenset[int]:
    """The absent seats a match's fault log names (rule 4): those with an entry of kind
    :data:`ABSENT`, which the referee writes for a seat whose bot had no stream at any time of
    the match (it never played: the default policy played the seat out). A log that is no list
    names none (a match recorded without one)."""
    if not isinstance(fault_log, list):
        return frozenset()
    return frozenset(f["seat"] for f in fault_log
                     if isinstance(f, Mapping) and f.get("kind") == ABSENT and isinstance(f.get("seat"), int))


def rated_seats(bots: Sequence[object], absent: Collection[int] = ()) -> list[int]:
    """The seats that are rated: those not absent (rule 4) whose bot holds no other seat of
    the match (rule 5); none if fewer than two remain."""
    count: dict[object, int] = {}
    for b in bots:
        count[b] = count.get(b, 0) + 1
    rated = [s for s, b in enumerate(bots) if count[b] == 1 and s not in absent]
    return rated if len(rated) >= 2 else []


def rate_match(game: str, bots: Sequence[object], places: Sequence[int],
               current: Sequence[Skill], absent: Collection[int] = ()) -> list[Skill | None]:
    """Apply the rules to one match: the new rating of each seat, ``None`` for an unrated seat.

    ``current[i]`` is the rating of ``bots[i]`` before the match; ``absent``: the absent seats
    (:func:`absent_seats`). The seats rated are rated among themselves, by their places.
    """
    seats = rated_seats(bots, absent)
    out: list[Skill | None] = [None] * len(bots)
    if seats:
        new = update([current[s] for s in seats], [places[s] for s in seats], game)
        for s, r in zip(seats, new):
            out[s] = r
    return out
