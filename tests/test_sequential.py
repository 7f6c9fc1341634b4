"""The sequential test of ``--until-separated`` (cardarena.server.sequential), by simulation.

Synthetic bots of known strength, pure Python, fixed seeds. The error rates are checked
against α = 1 − confidence with a margin of three binomial standard errors of the simulated
rate (:func:`margin`), so a test that is valid passes and one whose error rate is really above α
(a fixed-sample test looked at after every set, as a naive stopping rule would do, or bets on
each match of a duplicate set) fails.
"""
from __future__ import annotations

import math
import random
import statistics

import pytest

from cardarena.ratings import SeatResults
from cardarena.server.schedule import rotations
from cardarena.server.sequential import (
    ABOVE, BELOW, betting_test, evidence, format_separation, paired_outcomes, per_pair_alpha, separation, test_pair,
)


def margin(alpha: float, runs: int) -> float:
    """Three standard errors of a rate of ``alpha`` simulated ``runs`` times."""
    return 3 * math.sqrt(alpha * (1 - alpha) / runs)


def outcomes(rng: random.Random, above: float, below: float, n: int) -> list[int]:
    """n paired outcomes of a pair: +1 with chance ``above``, −1 with ``below``, else 0."""
    out = []
    for _ in range(n):
        u = rng.random()
        out.append(1 if u < above else -1 if u < above + below else 0)
    return out


def test_equal_bots_are_rarely_separated_however_long_it_is_watched():
    """With equal bots, a "separated" verdict is wrong: it comes at most α of the time, though
    the test is checked after every one of 500 sets (1,000 runs)."""
    rng = random.Random(20)
    runs, alpha = 1000, 0.05
    wrong = sum(betting_test(outcomes(rng, 0.4, 0.4, 500), alpha)[0] != 0 for _ in range(runs))
    assert wrong / runs <= alpha + margin(alpha, runs), wrong


def test_a_naive_rule_looked_at_after_every_set_is_wrong_far_more_often():
    """Why the test above could fail: a 95 % z-test on the sets so far, checked after every set
    (stop at |z| ≥ 1.96), separates equal bots much more often than 5 %."""
    rng = random.Random(20)
    runs = 500

    def naive(ds) -> bool:
        total = 0
        for n, d in enumerate(ds, 1):
            total += d
            if n >= 10 and abs(total) / math.sqrt(0.8 * n) >= 1.96:
                return True
        return False
    wrong = sum(naive(outcomes(rng, 0.4, 0.4, 500)) for _ in range(runs))
    assert wrong / runs > 0.05 + margin(0.05, runs)


def test_a_slightly_better_bot_is_almost_never_ranked_below():
    """The other error: separated in the wrong direction, at most α."""
    rng = random.Random(21)
    runs, alpha = 1000, 0.05
    wrong = sum(betting_test(outcomes(rng, 0.42, 0.38, 300), alpha)[0] < 0 for _ in range(runs))
    assert wrong / runs <= alpha + margin(alpha, runs)


def test_a_clearly_better_bot_is_separated_within_a_few_dozen_sets():
    rng = random.Random(22)
    alpha = per_pair_alpha(0.95, 3)  # three pairs, as a gauntlet of one bot against three
    found = [betting_test(outcomes(rng, 0.7, 0.2, 400), alpha) for _ in range(500)]
    assert all(verdict == 1 for verdict, _, _ in found)
    sets = sorted(at for _, at, _ in found)
    assert sets[len(sets) // 2] <= 50 and sets[-1] <= 200, (sets[len(sets) // 2], sets[-1])


def test_the_evidence_needs_one_over_alpha():
    """At α = 0.2 the evidence must reach 5: six straight wins of A (the bet of 15/16 alone turns
    its share, ½ ÷ 6, into 1/12 × 1.9375⁶ ≈ 4.4, the bet of ¾ adds 2.4); five are not enough
    (4.9 in all)."""
    verdict, at, ev = betting_test([1] * 6, 0.2)
    assert (verdict, at) == (1, 6) and ev >= 5
    assert betting_test([1] * 5, 0.2)[0] == 0
    assert betting_test([-1] * 6, 0.2)[:2] == (-1, 6)
    assert betting_test([0] * 100, 0.2) == (0, None, pytest.approx(1.0)), "ties are no evidence"


def test_a_set_result_bets_in_proportion():
    """A set's result d multiplies a bet λ's share by 1 + λ·d: a set won by one match net of
    three (d = ⅓) moves each share a third as far as a sweep (d = 1) would."""
    (up, down), = evidence([1 / 3], bets=[0.75])
    assert (up, down) == (pytest.approx(0.5 * 1.25), pytest.approx(0.5 * 0.75))
    assert betting_test([1 / 3] * 12, 0.2)[0] == 0 and betting_test([1 / 3] * 30, 0.2)[0] == 1
    with pytest.raises(ValueError, match="between -1 and \\+1"):
        list(evidence([1.5]))


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1])
def test_the_confidence_lies_between_0_and_1(confidence):
    with pytest.raises(ValueError, match="between 0 and 1"):
        per_pair_alpha(confidence, 1)


# ------------------------------------------------------------------ on a league's results


def result(mid, rnd, bots, places, dup=None, status="finished") -> SeatResults:
    n = len(bots)
    return SeatResults(mid, rnd, mid, dup, 0, status, list(bots), [0.0] * n,
                       list(places) if status == "finished" else [None] * n, [0] * n, [False] * n)


def test_paired_outcomes_score_a_duplicate_set_by_its_mean_and_skip_incomplete_ones():
    results = [
        # set 0: a above b in 2 of 3 rotations, below in 1 → +⅓
        result(1, 0, "abc", (1, 2, 3), 0), result(2, 0, "bca", (1, 3, 2), 0), result(3, 0, "cab", (3, 1, 2), 0),
        # set 1: one rotation still scheduled → not counted yet
        result(4, 1, "abc", (2, 1, 3), 1), result(5, 1, "bca", (1, 2, 3), 1),
        result(6, 1, "cab", (1, 2, 3), 1, status="scheduled"),
        # outside sets: one outcome per match
        result(7, 2, "ab", (2, 1)), result(8, 2, "ba", (1, 1)), result(9, 2, "ac", (1, 2)),
    ]
    assert paired_outcomes(results, "a", "b") == [(0, pytest.approx(1 / 3)), (2, -1), (2, 0)]
    assert paired_outcomes(results, "b", "a") == [(0, pytest.approx(-1 / 3)), (2, 1), (2, 0)]
    t = test_pair(results, "a", "b", 0.05)
    assert (t.sets, t.above, t.below, t.level, t.mean) == (3, 1, 1, 1, pytest.approx((1 / 3 - 1 + 0) / 3))


def plackett_luce(rng: random.Random, strength: dict[str, float], bots) -> list[int]:
    """Places of one match: each next place drawn with chance ∝ strength among the bots left."""
    left, places, place = list(bots), {}, 1
    while left:
        pick = rng.choices(left, [strength[b] for b in left])[0]
        places[pick] = place
        place += 1
        left.remove(pick)
    return [places[b] for b in bots]


def synthetic_league(rng, strength, rounds: int) -> list[SeatResults]:
    """A round robin of three-seat tables of the bots in ``strength``, one match per rotation."""
    import itertools
    bots = list(strength)
    out = []
    for rnd in range(rounds):
        for group in itertools.combinations(bots, 3):
            for k in range(3):
                order = group[k:] + group[:k]
                out.append(result(len(out), rnd, order, plackett_luce(rng, strength, order)))
    return out


def test_a_league_of_equal_bots_separates_no_adjacent_pair_more_than_alpha_of_the_time():
    """Family-wise: four equal bots, every adjacent pair of the ranking asked (Bonferroni over all six pairs)."""
    rng = random.Random(23)
    runs, confidence = 250, 0.9
    wrong = 0
    for _ in range(runs):
        results = synthetic_league(rng, dict.fromkeys("abcd", 1.0), rounds=10)
        ranking = sorted("abcd", key=lambda b: rng.random())
        wrong += any(p.separated for p in separation(results, ranking, confidence).pairs)
    assert wrong / runs <= 0.1 + margin(0.1, runs)


def test_a_league_of_known_strengths_is_ordered():
    rng = random.Random(24)
    results = synthetic_league(rng, {"strong": 8.0, "middle": 2.0, "weak": 0.5, "weakest": 0.1}, rounds=12)
    sep = separation(results, ["strong", "middle", "weak", "weakest"], 0.95)
    assert sep.settled, [(p.bot, p.other, p.verdict) for p in sep.pairs]
    assert [p.ordered() for p in sep.pairs] == [("strong", "middle"), ("middle", "weak"), ("weak", "weakest")]
    # against the ranking's order a pair is not separated, so the league goes on
    backwards = separation(results, ["middle", "strong", "weak", "weakest"], 0.95)
    assert not backwards.pairs[0].separated and not backwards.settled


def test_a_gauntlet_asks_about_its_bot_against_each_opponent_in_either_direction():
    rng = random.Random(25)
    results = synthetic_league(rng, {"new": 1.0, "old": 10.0, "x": 0.05, "y": 0.05}, rounds=6)
    sep = separation(results, ["old", "new", "x", "y"], 0.95, gauntlet="new")
    assert [(p.bot, p.other) for p in sep.pairs] == [("new", "old"), ("new", "x"), ("new", "y")]
    assert [p.verdict for p in sep.pairs] == [BELOW, ABOVE, ABOVE] and sep.settled
    t = test_pair(results, "new", "x", per_pair_alpha(0.95, 3))
    assert t.round is not None and t.sets == t.above + t.below + t.level and t.evidence >= t.threshold == pytest.approx(60)


# ------------------------------------------------ equal bots, plain and duplicate, by simulation


def table_league(rng: random.Random, sets: int, duplicate: bool, deal: float = 2.0, styles: float = 0.0,
                 edge: float = 0.0) -> list[SeatResults]:
    """A gauntlet of a against b and c at three seats, ``sets`` rounds of the three rotations;
    in duplicate each round is a set, one deal. In a match a seat's score is its hand (one
    normal draw per seat with s.d. ``deal``: the deal, shared by a set's rotations in duplicate,
    new for every match in plain) plus its bot's play (s.d. 1, plus ``edge`` for a); places by
    the score rounded to a whole number, so some are level. ``styles``: each deal suits one of
    the bots (drawn), which plays ``styles`` better: equal on average, not on every deal.
    Within a duplicate set a and b swap hands, so their comparisons are correlated (negatively;
    positively with large ``styles``), as in real duplicate play."""
    out = []
    for rnd in range(sets):
        for k, order in enumerate(rotations("abc")):
            if k == 0 or not duplicate:
                hands = [rng.gauss(0, deal) for _ in order]
                suits = {rng.choice("abc"): styles}
            scores = [round(hands[s] + rng.gauss(0, 1) + suits.get(bot, 0.0) + (edge if bot == "a" else 0.0))
                      for s, bot in enumerate(order)]
            places = [1 + sum(y > x for y in scores) for x in scores]
            out.append(result(len(out), rnd, order, places, rnd if duplicate else None))
    return out


@pytest.mark.parametrize("styles", [0.0, 3.0], ids=["same-bots", "styles"])
@pytest.mark.parametrize("duplicate", [False, True], ids=["plain", "duplicate"])
def test_equal_bots_are_rarely_separated_in_plain_or_duplicate_play(duplicate, styles):
    """The claim of the module: between equal bots a gauntlet at 90 % separates any pair at most
    10 % of the time, though it is looked at after every round (80 rounds, 400 leagues). In
    duplicate the three matches of a set share a deal, so their comparisons are correlated
    (``table_league``); the test bets on each set's mean, which is 0 in expectation, not on its
    matches one by one."""
    rng = random.Random(31 + duplicate + 2 * bool(styles))
    runs, confidence = 400, 0.9
    wrong = sum(any(p.separated for p in separation(table_league(rng, 80, duplicate, styles=styles), "abc",
                                                     confidence, gauntlet="a").pairs) for _ in range(runs))
    assert wrong / runs <= 0.1 + margin(0.1, runs), wrong


def test_equal_bots_results_are_level_on_average():
    """What the test above relies on: a's mean result against b is 0 in both designs (here
    within four standard errors), and the deal makes duplicate sets' results less spread."""
    rng = random.Random(32)
    for duplicate in (False, True):
        ds = [d for _ in range(20) for _, d in paired_outcomes(table_league(rng, 100, duplicate), "a", "b")]
        per_set = [sum(ds[i:i + 3]) / 3 for i in range(0, len(ds), 3)] if not duplicate else ds
        assert abs(statistics.fmean(per_set)) <= 4 * statistics.stdev(per_set) / math.sqrt(len(per_set))


def test_betting_on_each_match_of_a_duplicate_set_would_not_be_valid():
    """Why a duplicate set is one result: if each deal decides who of two equal bots places
    above in all of a set's matches (``styles`` large), betting on the set's three matches one
    by one compounds three bets on one coin flip, and separates equal bots far more often than
    α; betting on the set's mean does not."""
    rng = random.Random(33)
    runs, alpha = 300, 0.05
    per_set = per_match = 0
    for _ in range(runs):
        results = table_league(rng, 60, duplicate=True, deal=0.0, styles=20.0)
        sets = [d for _, d in paired_outcomes(results, "a", "b")]
        matches = [(pa < pb) - (pa > pb) for r in results
                   for pa, pb in [(r.places[r.bots.index("a")], r.places[r.bots.index("b")])]]
        per_set += betting_test(sets, alpha)[0] != 0
        per_match += betting_test(matches, alpha)[0] != 0
    assert per_set / runs <= alpha + margin(alpha, runs), per_set
    assert per_match / runs > 3 * alpha, per_match


def test_a_clearly_better_bot_is_separated_in_duplicate_play_too():
    rng = random.Random(34)
    found = [separation(table_league(rng, 60, True, edge=1.5), "abc", 0.9, gauntlet="a") for _ in range(40)]
    assert all(s.settled and all(p.verdict == ABOVE for p in s.pairs) for s in found)
    rounds = sorted(max(p.round for p in s.pairs) + 1 for s in found)
    assert rounds[len(rounds) // 2] <= 30, rounds


def test_the_summary_counts_sets_by_the_sign_of_their_result_and_gives_the_mean():
    results = [result(3 * s + k, s, order, places, s) for s in range(2)
               for k, (order, places) in enumerate(zip(rotations("abc"), [(1, 2, 3), (1, 3, 2), (3, 1, 2)]))]
    sep = separation(results, "abc", 0.9, gauntlet="a")
    line = format_separation(sep, results).splitlines()[0]
    assert line.startswith("not separated: a and b") and "2 sets: 2 above, 0 below, 0 level, mean +0.33" in line
