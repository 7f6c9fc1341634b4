"""bench/power.py's core with tiny numbers: the sets are a league's duplicate sets, the
comparisons are the ones the sequential test counts, the simulated gauntlets stop where the
league's own test would, and the tables compute. No timings here: the bench prints its figures."""
from __future__ import annotations

import dataclasses
import importlib.util
import math
import random
import statistics
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("power", Path(__file__).resolve().parents[1] / "bench" / "power.py")
power = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(power)

GAME, OPTIONS = "sixth-card", {"rounds": 1}  # one round: a few milliseconds a match


def test_a_duplicate_set_is_one_deal_with_a_in_every_seat_and_plain_is_k_deals():
    """The bench's sets are round_robin's: K cyclic rotations, one seed each set in duplicate."""
    for seats in (3, 4):
        for duplicate in (True, False):
            sets = power.sets(seats, 3, seed=7, duplicate=duplicate)
            assert len(sets) == 3 and all(len(s) == seats for s in sets)
            for plans in sets:
                assert sorted(p.bots.index("A") for p in plans) == list(range(seats))
                seeds = {p.seed for p in plans}
                assert len(seeds) == (1 if duplicate else seats)
                assert {p.duplicate_set is not None for p in plans} == {duplicate}
        dup = power.sets(seats, 3, seed=7, duplicate=True)
        assert len({plans[0].seed for plans in dup}) == 3  # the sets are different deals


def test_a_comparison_is_plus_one_above_minus_one_below_zero_level():
    assert [power.compare([1, 2, 3], 0, b) for b in (1, 2)] == [1, 1]
    assert power.compare([2, 1, 3], 0, 1) == -1 and power.compare([1, 1, 3], 0, 1) == 0


def test_the_advantage_is_the_other_seats_mean_place_less_as():
    assert power.advantage([1, 2, 3], 0) == 1.5
    assert power.advantage([2, 1, 2, 4], 1) == pytest.approx(5 / 3)
    assert power.advantage([1, 1, 3], 1) == 1.0
    assert power.advantage([3, 1, 2], 0) == -1.5


def test_identical_bots_have_no_advantage_in_any_duplicate_set_but_do_in_plain_ones():
    """The paired statistic: with the same deterministic bot in every seat, a duplicate set
    replays one match K times, A once in every seat, so its mean advantage and its mean
    comparison with the B seats are exactly 0 (A's mean place is the table's mean place);
    plain sets, K different deals, are not all 0. A set that did not keep the deal, or did not
    rotate A, fails this."""
    heuristic = lambda name, seed: power.make_bot("heuristic", GAME, seed, 0.0)  # noqa: E731
    for seats in (3, 4):
        dup, plain = ([power.play_set(GAME, OPTIONS, plans, heuristic) for plans in power.sets(seats, 4, 1, duplicate)]
                      for duplicate in (True, False))
        assert all(len(rows) == seats - 1 and all(len(r) == seats for r in rows) for rows, _ in dup + plain)
        assert [statistics.fmean(advs) for _, advs in dup] == [pytest.approx(0.0, abs=1e-12)] * 4
        assert [sum(map(sum, rows)) for rows, _ in dup] == [0] * 4
        assert any(abs(statistics.fmean(advs)) > 0.1 for _, advs in plain)


def test_the_weak_heuristic_is_the_heuristic_at_p_1_and_random_at_p_0():
    from cardarena.server.match import Match

    m = Match(GAME, 3, seed=5, options=OPTIONS)
    d = m.decision(0, words=True)
    choose = power.make_bot("heuristic", GAME, 0, 0.0)
    assert power.WeakHeuristic(GAME, 1.0, 3)(d) == choose(d)
    picks = {power.WeakHeuristic(GAME, 0.0, s)(d) for s in range(40)}
    assert len(picks) > 3  # random over the hand's cards, not the heuristic's one card


def random_gauntlet(rng: random.Random, n_sets: int, seats: int, edge: float):
    """A gauntlet's rounds with random places (A placed first with chance ``edge`` more, all
    level one match in ten): the league's results, and per round the comparisons as
    ``play_set`` gives them."""
    from cardarena.ratings import SeatResults
    results, data = [], []
    for s, plans in enumerate(power.sets(seats, n_sets, seed=3, duplicate=True)):
        rows = [[] for _ in range(seats - 1)]
        for plan in plans:
            me = plan.bots.index("A")
            places = rng.sample(range(1, seats + 1), seats)
            if rng.random() < edge:
                first = places.index(1)
                places[me], places[first] = 1, places[me]
            if rng.random() < 0.1:
                places = [1] * seats
            for row, other in zip(rows, plans[0].bots[1:]):
                row.append(power.compare(places, me, plan.bots.index(other)))
            results.append(SeatResults(len(results), s, plan.index, plan.duplicate_set, plan.seed, "finished",
                                       list(plan.bots), [0.0] * seats, places, [0] * seats, [False] * seats))
        data.append(rows)
    return results, data


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_simulated_gauntlet_stops_where_the_leagues_own_test_does(duplicate):
    """``sets_to_separate`` on a round's comparisons and ``separation`` on the league's results
    (plain: each match a set, duplicate_set cleared) find the same round; ``simulate`` (numpy,
    many gauntlets at once) the same as ``sets_to_separate``."""
    np = pytest.importorskip("numpy")
    from cardarena.server.sequential import per_pair_alpha, separation
    rng = random.Random(4)
    for seats in (3, 4):
        for _ in range(5):
            results, data = random_gauntlet(rng, 40, seats, edge=0.5)
            if not duplicate:
                results = [dataclasses.replace(r, duplicate_set=None) for r in results]
            sep = separation(results, ["A"] + [f"B-{i}" for i in range(1, seats)], 0.9, gauntlet="A")
            want = 1 + max(p.round for p in sep.pairs) if sep.settled else None
            assert power.sets_to_separate(data, duplicate, per_pair_alpha(0.9, seats - 1)) == want
        draws = [[rng.randrange(len(data)) for _ in range(60)] for _ in range(8)]
        got = power.simulate(data, duplicate, 0.05, lambda t: np.array([d[t - 1] for d in draws]), 8, 60)
        assert list(got) == [power.sets_to_separate([data[i] for i in d], duplicate, 0.05) or 61 for d in draws]


def test_a_bot_that_always_places_above_needs_the_fewest_matches_and_duplicate_k_times_as_many():
    """At 95 % over two pairs (2.5 % each): nine straight results above; plain gets one a match,
    duplicate one a set of three (docs/conduct.md: a set can at most double the evidence)."""
    pytest.importorskip("numpy")
    assert (power.fewest_matches(False, 0.95), power.fewest_matches(True, 0.95)) == (9, 27)
    data = [[[1, 1, 1], [1, 1, 1]]] * 30
    assert power.predict(data, False, 0.95, 3, 10, 300, random.Random(1)) == [9.0] * 4
    assert power.predict(data, True, 0.95, 3, 10, 300, random.Random(1)) == [27.0] * 4
    assert power.predict([[[0, 0, 0], [1, 1, 1]]] * 30, True, 0.95, 0, 10, 300, random.Random(1)) == [math.inf]


def test_findings_need_enough_sets_and_bounded_intervals():
    assert power.finding(4, [9.0] * 5, [27.0] * 5, (0.3, 0.3)) == "too few sets"
    assert power.finding(60, [9.0] * 5, [27.0] * 5, (0.3, 0.4)) == "duplicate costs"
    assert power.finding(60, [90.0] * 5, [27.0] * 5, (2.0, 4.0)) == "duplicate helps"
    assert power.finding(60, [30.0] * 5, [27.0] * 5, (0.8, 1.3)) == "no clear difference"
    assert power.finding(60, [30.0, 30.0, math.inf], [27.0] * 3, (0.8, math.inf)) == "too few sets"


def test_a_tiny_run_computes_a_table_with_both_designs_side_by_side():
    pytest.importorskip("numpy")
    per_set = power.run([GAME], [3], n_sets=3, seed=2, jobs=1, full=False, weak_p=0.7,
                        pairings=["heuristic vs random"])
    assert set(per_set) == {(GAME, 3, "heuristic vs random", d) for d in ("plain", "duplicate")}
    assert all(len(v) == 3 for v in per_set.values())
    lines = power.table(per_set, 0.95, resamples=5, leagues=10, cap=300, seed=0)
    assert lines[0].startswith("game") and "d plain" in lines[0] and "d dup" in lines[0]
    assert lines[2].split()[:2] == [GAME, "3"] and lines[2].endswith("too few sets")
    assert lines[-3].startswith("heuristic vs random, plain − duplicate mean comparison d: plain larger in")
    assert lines[-1].startswith("The designs' expected means are equal")


def test_an_until_separated_league_is_played_a_round_at_a_time_to_its_cap_or_separation():
    settings = power.league_settings(duplicate=True, seed=5, confidence=0.95, cap=12)
    matches, why = power.play_league(GAME, OPTIONS, settings)
    assert matches % 3 == 0 and matches <= 12 and why in ("separated", "cap")
