"""Is bot A better than bot B? A sequential test that may be looked at after every round.

``league run --until-separated`` adds rounds until the order it was asked about is known; this
module says, from a league's results alone, which pairs are known. Pure functions, no I/O: the
league (:mod:`cardarena.server.league`) calls them after every round and ``league show`` calls
them again on the ledger's results, to the same verdicts.

For a pair (A, B), each set that seated both (a complete duplicate set, else a finished match)
gives one outcome ``d``, +1, −1 or 0, in schedule order. The test is testing by betting (a
mixture of constant bets, :data:`BETS`, hedged on both sides). A pair is *separated* once its
evidence reaches ``1 / α``; the verdict is then final. ``confidence = 1 − α`` is family-wise
over every pair the league can ask about (Bonferroni, :func:`per_pair_alpha`): the chance that
any pair is declared separated wrongly, or at all between two equal bots, is at most α, however
often the league is looked at. Pairs not separated before ``--max-matches`` are reported as not
separated by the cap.

Design notes and measurements: docs/conduct.md (sequential).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The constant bets λ mixed by :func:`evidence`: small bets win slowly against a small edge,
#: large ones quickly against a large edge; the mixture does nearly as well as the best of them.
BETS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 3 / 4)

ABOVE, BELOW = "above", "below"


def per_pair_alpha(confidence: float, pairs: int) -> float:
    """The level each pair is tested at: ``(1 − confidence) / pairs`` (Bonferroni)."""
    if not 0 < confidence < 1:
        raise ValueError(f"the confidence is a number between 0 and 1 (0.95 for 95 %), not {confidence!r}")
    return (1 - confidence) / max(pairs, 1)


def evidence(outcomes: Iterable[int], bets: Sequence[float] = BETS) -> Iterable[tuple[float, float]]:
    """After each outcome, the capital of the gamblers who bet on A and of those who bet on B
    (each side started with ½, shared equally among ``bets``); their sum is the evidence."""
    up = [0.5 / len(bets)] * len(bets)
    down = list(up)
    win, lose = [1 + lam for lam in bets], [1 - lam for lam in bets]
    for d in outcomes:
        if d == 1:
            up = [c * f for c, f in zip(up, win)]
            down = [c * f for c, f in zip(down, lose)]
        elif d == -1:
            up = [c * f for c, f in zip(up, lose)]
            down = [c * f for c, f in zip(down, win)]
        elif d != 0:
            raise ValueError(f"a paired outcome is -1, 0 or +1, not {d!r}")
        yield sum(up), sum(down)


def betting_test(outcomes: Sequence[int], alpha: float, bets: Sequence[float] = BETS) -> tuple[int, int | None, float]:
    """(verdict, at, evidence): verdict +1 (A above B), −1 (B above A) or 0 (not separated);
    ``at`` the number of outcomes after which the evidence first reached ``1 / alpha`` (None if
    it did not); the evidence then, or after the last outcome."""
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


def paired_outcomes(results: Sequence, a: str, b: str) -> list[tuple[int, int]]:
    """(round, d) for every set that seated both a and b, in schedule order (module docstring):
    a complete duplicate set, or a finished match outside duplicate sets."""
    out: list[tuple[tuple, int, int]] = []  # (order, round, d)
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
            net = sum(_compare(r, a, b) for r in matches)
            first = min(matches, key=lambda r: (r.round or 0, r.index or 0, r.match_id))
            rnd = max(r.round or 0 for r in matches)
            out.append(((first.round or 0, first.index or 0, first.match_id), rnd, (net > 0) - (net < 0)))
    out.sort()
    return [(rnd, d) for _, rnd, d in out]


@dataclass(frozen=True)
class PairTest:
    """One pair under test: its sets so far, the evidence, and the verdict."""

    bot: str
    other: str
    sets: int           # sets that seated both
    above: int          # sets where bot placed above other (d = +1)
    below: int
    level: int
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
    return PairTest(a, b, len(seen), seen.count(1), seen.count(-1), seen.count(0), ev, 1 / alpha,
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
            t = PairTest(t.bot, t.other, t.sets, t.above, t.below, t.level, t.evidence, t.threshold, None, None)
        tests.append(t)
    return Separation(confidence, tests)


def matches_through(results: Sequence, rnd: int | None) -> int:
    """The league's finished matches in rounds up to ``rnd``."""
    return sum(1 for r in results if _placed(r) and (rnd is None or (r.round or 0) <= rnd))


def format_separation(sep: Separation, results: Sequence, max_matches: int | None = None) -> str:
    """The summary lines: each pair separated (after how many matches), or not by the cap."""
    lines = []
    for p in sep.pairs:
        counts = f"{p.sets} set{'s' if p.sets != 1 else ''}: {p.above} above, {p.below} below, {p.level} level"
        if p.separated:
            better, worse = p.ordered()
            lines.append(f"separated: {better} above {worse} at {sep.confidence:.0%} after "
                         f"{matches_through(results, p.round)} matches (round {p.round + 1}; {counts})")
        else:
            cap = f" by the cap of {max_matches} matches" if max_matches else ""
            lines.append(f"not separated{cap}: {p.bot} and {p.other} (evidence {p.evidence:.3g} of "
                         f"{p.threshold:.3g} needed; {counts})")
    return "\n".join(lines)
