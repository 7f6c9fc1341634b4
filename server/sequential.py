"""Is bot A better than bot B? A sequential test that may be looked at after every round.

``league run --until-separated`` adds rounds until the order it was asked about is known; this
module says, from a league's results alone, which pairs are known. Pure functions, no I/O: the
league (:mod:`cardarena.server.league`) calls them after every round and ``league show`` calls
them again on the ledger's results, to the same verdicts.

For a pair (A, B), each set that seated both (a complete duplicate set, else a finished match)
gives one result ``d`` in [−1, 1], in schedule order: the mean over its matches of +1 (A placed
above B), −1 (below), 0 (level). The test is testing by betting (a mixture of constant bets,
:data:`BETS`, hedged on both sides); a pair is *separated* once its evidence reaches ``1 / α``,
and the verdict is then final. ``confidence = 1 − α`` is family-wise over every pair the league
can ask about (Bonferroni, :func:`per_pair_alpha`): the chance that any pair is declared
separated wrongly, or at all between two equal bots, is at most α, however often the league is
looked at (:func:`evidence` says why). Pairs not separated before ``--max-matches`` are
reported as not separated by the cap.

Design notes and measurements: docs/conduct.md (sequential).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The constant bets λ mixed by :func:`evidence`: small bets win slowly against a small edge,
#: large ones quickly against a large edge; the mixture does nearly as well as the best of them.
#: 15/16 is for duplicate sets against a clear edge, whose results are rarely −1.
BETS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 3 / 4, 15 / 16)

ABOVE, BELOW = "above", "below"


def per_pair_alpha(confidence: float, pairs: int) -> float:
    """The level each pair is tested at: ``(1 − confidence) / pairs`` (Bonferroni)."""
    if not 0 < confidence < 1:
        raise ValueError(f"the confidence is a number between 0 and 1 (0.95 for 95 %), not {confidence!r}")
    return (1 - confidence) / max(pairs, 1)


def evidence(outcomes: Iterable[float], bets: Sequence[float] = BETS) -> Iterable[tuple[float, float]]:
    """After each set's result ``d`` (in [−1, 1]), the capital of the gamblers who bet on A and
    of those who bet on B; their sum is the evidence. Each side starts with ½, shared equally
    among ``bets``; a bet λ multiplies its A-side share by ``1 + λ·d`` and its B-side share by
    ``1 − λ·d``.

    Why it is valid, however often it is looked at: if A is no better than B (each set's
    expected result, given the sets before, is at most 0), each A-side share is a nonnegative
    supermartingale (``E[1 + λ·d | past] ≤ 1``, and ``1 + λ·d > 0`` as every λ < 1), and so is
    their sum, which starts at ½; by Ville's inequality it ever reaches ½ of ``1 / α``, which a
    verdict "A above B" needs, with chance at most α. Between equal bots (expected result 0)
    the evidence is a martingale from 1, which ever reaches ``1 / α`` with chance at most α.
    Only each set's mean is assumed, not how its matches are related: the matches of a
    duplicate set (one deal) may be as correlated as the deal makes them."""
    up = [0.5 / len(bets)] * len(bets)
    down = list(up)
    for d in outcomes:
        if not -1 <= d <= 1:
            raise ValueError(f"a set's result lies between -1 and +1, not {d!r}")
        if d:
            up = [c * (1 + lam * d) for c, lam in zip(up, bets)]
            down = [c * (1 - lam * d) for c, lam in zip(down, bets)]
        yield sum(up), sum(down)


def betting_test(outcomes: Sequence[float], alpha: float,
                 bets: Sequence[float] = BETS) -> tuple[int, int | None, float]:
    """(verdict, at, evidence): verdict +1 (A above B), −1 (B above A) or 0 (not separated);
    ``at`` the number of results after which the evidence first reached ``1 / alpha`` (None if
    it did not); the evidence then, or after the last result."""
    threshold = 1 / alpha
    last = 1.0
    for t, (up, down) in enumerate(evidence(outcomes, bets), 1):
        last = up + down
        if last >= threshold:
            return (1 if up > down else -1), t, last
    return 0, None, last


# ------------------------------------------------------------------------ leagues' results


def _placed(r) -> bool:
    return r.status == "finished" and all(p is not None for p in r.places)


def _compare(r, a: str, b: str) -> int:
    """+1 if a placed above b in match r, −1 if below, 0 if level."""
    pa, pb = r.places[r.bots.index(a)], r.places[r.bots.index(b)]
    return (pa < pb) - (pa > pb)


def set_result(comparisons: Sequence[int]) -> float:
    """A set's result for a pair: the mean of its matches' comparisons (+1 above, −1 below,
    0 level), in [−1, 1]; a single match's is its comparison."""
    return sum(comparisons) / len(comparisons)


def paired_outcomes(results: Sequence, a: str, b: str) -> list[tuple[int, float]]:
    """(round, d) for every set that seated both a and b, in schedule order (module docstring):
    a complete duplicate set (d its :func:`set_result`), or a finished match outside duplicate
    sets (d +1, −1 or 0)."""
    out: list[tuple[tuple, int, float]] = []  # (order, round, d)
    sets: dict[int, list] = {}
    for r in results:
        if a not in r.bots or b not in r.bots:
            continue
        if r.duplicate_set is not None:
            sets.setdefault(r.duplicate_set, []).append(r)
        elif _placed(r):
            out.append(((r.round or 0, r.index or 0, r.match_id), r.round or 0, _compare(r, a, b)))
    for matches in sets.values():
        if all(_placed(r) for r in matches):
            first = min(matches, key=lambda r: (r.round or 0, r.index or 0, r.match_id))
            rnd = max(r.round or 0 for r in matches)
            out.append(((first.round or 0, first.index or 0, first.match_id), rnd,
                        set_result([_compare(r, a, b) for r in matches])))
    out.sort()
    return [(rnd, d) for _, rnd, d in out]


@dataclass(frozen=True)
class PairTest:
    """One pair under test: its sets so far, the evidence, and the verdict. A set counts as
    ``above`` when its result is positive (bot placed above other in more of its matches than
    below), ``below`` when negative, ``level`` when 0; ``mean`` is the mean result, what the
    test bets on."""

    bot: str
    other: str
    sets: int           # sets that seated both
    above: int          # sets whose result d > 0
    below: int          # d < 0
    level: int          # d = 0
    mean: float         # the mean d of these sets (0 before any)
    evidence: float     # at the verdict, or now
    threshold: float    # 1 / (the pair's α)
    verdict: str | None  # ABOVE (bot above other), BELOW, or None: not separated
    round: int | None   # the round whose results separated the pair

    @property
    def separated(self) -> bool:
        return self.verdict is not None

    def ordered(self) -> tuple[str, str]:
        """(the better, the worse) once separated."""
        return (self.bot, self.other) if self.verdict != BELOW else (self.other, self.bot)


def test_pair(results: Sequence, a: str, b: str, alpha: float) -> PairTest:
    """The betting test (module docstring) of a against b over the league's results."""
    paired = paired_outcomes(results, a, b)
    ds = [d for _, d in paired]
    verdict, at, ev = betting_test(ds, alpha)
    seen = ds if at is None else ds[:at]
    return PairTest(a, b, len(seen), sum(d > 0 for d in seen), sum(d < 0 for d in seen), sum(d == 0 for d in seen),
                    sum(seen) / len(seen) if seen else 0.0, ev, 1 / alpha,
                    {1: ABOVE, -1: BELOW}.get(verdict), None if at is None else paired[at - 1][0])


test_pair.__test__ = False  # not a pytest test, despite its name


def pairs_asked(ranking: Sequence[str], gauntlet: str | None = None, top: int | None = None) -> list[tuple[str, str]]:
    """The pairs whose order a league asks for: the gauntlet bot with each opponent; else every
    adjacent pair of the ranking, or with ``top`` K those of its first K + 1 places (the order
    of the first K, and the K-th above the (K + 1)-th)."""
    if gauntlet is not None:
        return [(gauntlet, b) for b in ranking if b != gauntlet]
    places = list(ranking) if top is None else list(ranking)[:top + 1]
    return list(zip(places, places[1:]))


def pairs_tested(bots: Sequence[str], gauntlet: str | None = None) -> int:
    """How many pairs the Bonferroni correction counts (module docstring)."""
    return len(bots) - 1 if gauntlet is not None else math.comb(len(bots), 2)


@dataclass(frozen=True)
class Separation:
    """Where a league's asked order stands: each asked pair's test, and whether all are known."""

    confidence: float
    pairs: list[PairTest]   # the asked pairs, the better-ranked bot first

    @property
    def settled(self) -> bool:
        """Every asked pair separated, in the order asked (a league's ranking, or any order for
        a gauntlet)."""
        return bool(self.pairs) and all(p.separated for p in self.pairs)


def separation(results: Sequence, ranking: Sequence[str], confidence: float, gauntlet: str | None = None,
               top: int | None = None) -> Separation:
    """The test of every asked pair (:func:`pairs_asked`) of a league's results. ``ranking`` is
    the league's bots, best first (its standings); for a league (not a gauntlet) a pair counts
    as separated only in the ranking's order, so an asked pair separated against it is not."""
    alpha = per_pair_alpha(confidence, pairs_tested(ranking, gauntlet))
    tests = []
    for a, b in pairs_asked(ranking, gauntlet, top):
        t = test_pair(results, a, b, alpha)
        if gauntlet is None and t.verdict == BELOW:
            t = dataclasses.replace(t, verdict=None, round=None)
        tests.append(t)
    return Separation(confidence, tests)


def matches_through(results: Sequence, rnd: int | None) -> int:
    """The league's finished matches in rounds up to ``rnd``."""
    return sum(1 for r in results if _placed(r) and (rnd is None or (r.round or 0) <= rnd))


def format_separation(sep: Separation, results: Sequence, max_matches: int | None = None) -> str:
    """The summary lines: each pair separated (after how many matches), or not by the cap; with
    its sets counted by the sign of their results, and their mean result (:class:`PairTest`)."""
    lines = []
    for p in sep.pairs:
        counts = (f"{p.sets} set{'s' if p.sets != 1 else ''}: {p.above} above, {p.below} below, {p.level} level, "
                  f"mean {p.mean:+.2f}")
        if p.separated:
            better, worse = p.ordered()
            lines.append(f"separated: {better} above {worse} at {sep.confidence:.0%} after "
                         f"{matches_through(results, p.round)} matches (round {p.round + 1}; {counts})")
        else:
            cap = f" by the cap of {max_matches} matches" if max_matches else ""
            lines.append(f"not separated{cap}: {p.bot} and {p.other} (evidence {p.evidence:.3g} of "
                         f"{p.threshold:.3g} needed; {counts})")
    return "\n".join(lines)
