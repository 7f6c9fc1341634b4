"""bench/power.py's core with tiny numbers: the sets are a league's duplicate
sets, duplicate's paired statistic is what its docstring says, and the table computes. No
timings here: the bench prints its figures."""
from __future__ import annotations

import importlib.util
import math
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


def test_the_advantage_is_the_other_seats_mean_place_less_as():
    assert power.advantage([1, 2, 3], 0) == 1.5
    assert power.advantage([2, 1, 2, 4], 1) == pytest.approx(5 / 3)
    assert power.advantage([1, 1, 3], 1) == 1.0
    assert power.advantage([3, 1, 2], 0) == -1.5


def test_identical_bots_have_no_advantage_in_any_duplicate_set_but_do_in_plain_ones():
    """The paired statistic: with the same deterministic bot in every seat, a duplicate set
    replays one match K times, A once in every seat, so its mean advantage is exactly 0 (A's mean
    place is the table's mean place); plain sets, K different deals, are not all 0. A set that
    did not keep the deal, or did not rotate A, fails this."""
    heuristic = lambda name, seed: power.make_bot("heuristic", GAME, seed, 0.0)  # noqa: E731
    for seats in (3, 4):
        dup = [statistics.fmean(power.play_set(GAME, OPTIONS, plans, heuristic))
               for plans in power.sets(seats, 4, seed=1, duplicate=True)]
        plain = [statistics.fmean(power.play_set(GAME, OPTIONS, plans, heuristic))
                 for plans in power.sets(seats, 4, seed=1, duplicate=False)]
        assert dup == [pytest.approx(0.0, abs=1e-12)] * 4
        assert any(abs(x) > 0.1 for x in plain)


def test_the_weak_heuristic_is_the_heuristic_at_p_1_and_random_at_p_0():
    from cardarena.server.match import Match

    m = Match(GAME, 3, seed=5, options=OPTIONS)
    d = m.decision(0, words=True)
    choose = power.make_bot("heuristic", GAME, 0, 0.0)
    assert power.WeakHeuristic(GAME, 1.0, 3)(d) == choose(d)
    picks = {power.WeakHeuristic(GAME, 0.0, s)(d) for s in range(40)}
    assert len(picks) > 3  # random over the hand's cards, not the heuristic's one card


def test_needed_matches_is_z_sigma_over_mu_squared_times_the_seats():
    xs = [1.0, 0.0, 2.0, 1.0]  # μ 1, σ √(2/3)
    assert power.needed(xs, 3) == pytest.approx((1.645 ** 2) * (2 / 3) * 3)
    assert power.needed([0.5, -0.5], 3) == math.inf
    assert power.needed([1.0, 1.0, 1.0], 4) == 0.0  # no spread: separated at once
    assert power.needed(xs, 3, mu=2.0) == pytest.approx(power.needed(xs, 3) / 4)


def test_both_designs_share_one_mean_so_the_ratio_is_the_ratio_of_variances():
    plain, dup = [0.0, 2.0, 1.0, 3.0], [1.0, 1.5, 1.0, 1.5]  # means 1.5 and 1.25
    n_p, n_d = power.both_needed(plain, dup, 4)
    assert n_p == pytest.approx(power.needed(plain, 4, mu=1.375)) and n_d == pytest.approx(power.needed(dup, 4, mu=1.375))
    assert n_p / n_d == pytest.approx(statistics.variance(plain) / statistics.variance(dup))


def test_a_tiny_run_computes_a_table_with_both_designs():
    per_set = power.run([GAME], [3], n_sets=3, seed=2, jobs=1, full=False, weak_p=0.7,
                        pairings=["heuristic vs random"])
    assert set(per_set) == {(GAME, 3, "heuristic vs random", d) for d in ("plain", "duplicate")}
    assert all(len(v) == 3 for v in per_set.values())
    lines = power.table(per_set, resamples=50, seed=0)
    assert lines[0].startswith("game") and len(lines) == 3
    assert lines[2].split()[:2] == [GAME, "3"]
