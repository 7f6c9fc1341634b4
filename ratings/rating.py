"""Rating rules: how a finished match changes its bots' TrueSkill ratings.

These are the rules of every cardarena rating table. The ledger applies them in the same
transaction that records a match, and ``cardarena ratings recompute`` replays them over the
finished matches, in the order they were recorded, to exactly the same numbers.

1. **One TrueSkill environment per game.** A bot has a separate rating in every game it plays;
   ratings of different games never mix. Every game uses the ``trueskill`` package's defaults
   (:data:`SETTINGS`): μ₀ = 25, σ₀ = 25/3, β = 25/6 (the skill gap that gives a 76 % chance of
   winning), τ = 25/300 (the dynamic factor that keeps σ from collapsing, so a bot that
   improves can climb) and a draw probability of 10 %. :data:`GAME_SETTINGS` may override them
   for one game; none does yet. Changing a setting changes every number: run ``recompute``.
2. **Free-for-all.** Every seat is its own team; its rank is its place (1 is best), so a
   two-player match is an ordinary duel and a five-player match ranks all five seats in one
   update (TrueSkill's multi-team factor graph). Ratings depend on the order of the matches:
   it is the order in which they were recorded.
3. **Ties are draws.** Seats with equal places drew with each other. TrueSkill's free-for-all
   model is a chain of the seats in place order, so between tied seats it must pick an order,
   and the tied seat next to the better seats would lose a little more than its partner (the
   "rating surprise" of ties). cardarena takes that arbitrary order out: each tied seat is
   rated once at every position of its tie group (the others of the group in a fixed order,
   by rating), and its new μ and σ are the means of those results. So two tied seats that
   started with equal ratings end with exactly equal μ and σ, in any match. A match without
   ties costs one TrueSkill update; a tie of k seats adds up to k² − k more (equal ratings
   share a computation), so ten seats all tied with ten different ratings take ~0.15 s.
4. **Forfeits.** A forfeited seat is rated by the place it was given; the referee places every
   forfeited seat below every seat that did not forfeit, so a forfeit rates as a loss to all of
   them.
5. **Self-play is not rated.** A bot that holds several seats of one match learns nothing about
   its skill by beating itself, so none of its seats is rated for that match. The other seats
   are rated among themselves by their places (if at least two remain); otherwise nothing
   changes. The match is still recorded, and its history rows say ``rated = False``.
6. **Counts.** ``matches``, ``wins`` (place 1, shared or not) and the mean place (in the whole
   match) count rated matches only, so they describe the same matches as μ and σ.
7. **Numerical limits.** If TrueSkill cannot compute an update (the ``trueskill`` package raises
   ``FloatingPointError`` for astronomically unlikely upsets), the match leaves μ and σ
   unchanged; it still counts as a rated match. This is deterministic, so ``recompute``
   agrees.
8. The table is ranked by the **conservative rating** μ − 3σ (the skill the bot has with about
   99.9 % confidence, as Battlesnake and Xbox leaderboards do), then μ, then the bot's name.

:func:`update` is the whole rule as a pure function of plain floats; it is what the ledger and
``recompute`` both call, so the two cannot disagree.
"""
from __future__ import annotations

from collections.abc import Sequence
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


def rated_seats(bots: Sequence[object]) -> list[int]:
    """The seats that are rated: those whose bot holds no other seat of the match (rule 5)."""
    count: dict[object, int] = {}
    for b in bots:
        count[b] = count.get(b, 0) + 1
    rated = [s for s, b in enumerate(bots) if count[b] == 1]
    return rated if len(rated) >= 2 else []


def rate_match(game: str, bots: Sequence[object], places: Sequence[int],
               current: Sequence[Skill]) -> list[Skill | None]:
    """Apply the rules to one match: the new rating of each seat, ``None`` for an unrated seat.

    ``current[i]`` is the rating of ``bots[i]`` before the match.
    """
    seats = rated_seats(bots)
    out: list[Skill | None] = [None] * len(bots)
    if seats:
        new = update([current[s] for s in seats], [places[s] for s in seats], game)
        for s, r in zip(seats, new):
            out[s] = r
    return out
