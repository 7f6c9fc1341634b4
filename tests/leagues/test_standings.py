"""Standings inside a league (cardarena.ratings.standings), on hand-made results with known answers."""
from __future__ import annotations

import math

import pytest

from cardarena.ratings import SeatResults, standings
from cardarena.ratings.standings import (
    format_duplicate, format_head_to_head, format_seats, format_table, match_points, mean_interval, t975,
)


def result(mid, bots, places, scores=None, status="finished", dup=None, seed=1, faults=None, forfeited=None):
    n = len(bots)
    return SeatResults(mid, 0, mid, dup, seed, status, list(bots),
                       list(scores) if scores is not None else [float(p) for p in places] if places else [None] * n,
                       list(places) if places else [None] * n, faults or [0] * n, forfeited or [False] * n)


def test_points_are_one_per_seat_below_and_a_half_per_shared_place():
    assert match_points([1, 2], 0) == 1 and match_points([1, 2], 1) == 0
    assert match_points([1, 1], 0) == 0.5
    assert match_points([1, 2, 2, 4], 0) == 3
    assert match_points([1, 2, 2, 4], 1) == 1.5
    assert match_points([1, 2, 2, 4], 3) == 0


def test_the_95_percent_interval_uses_student_t():
    assert t975(1) == 12.706 and t975(30) == 2.042
    assert t975(40) == pytest.approx(2.021, abs=0.002) and t975(120) == pytest.approx(1.980, abs=0.002)
    mean, lo, hi = mean_interval([1, 2, 3, 4])
    half = 3.182 * math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3 / 4)
    assert mean == 2.5 and lo == pytest.approx(2.5 - half) and hi == pytest.approx(2.5 + half)
    assert mean_interval([2]) == (2, None, None)
    assert mean_interval([3, 3, 3]) == (3, 3, 3)


def test_standings_count_points_places_seats_and_only_finished_matches():
    results = [
        result(1, ["a", "b", "c"], [1, 2, 3], scores=[10, 20, 30]),
        result(2, ["b", "c", "a"], [1, 3, 2], scores=[5, 40, 15]),
        result(3, ["c", "a", "b"], [1, 1, 3], scores=[0, 0, 9]),
        result(4, ["a", "b", "c"], None, status="scheduled"),
        result(5, ["a", "b", "c"], None, status="failed"),
    ]
    st = standings(results, ["a", "b", "c"])
    assert st.matches == 5 and st.finished == 3 and st.seats == 3
    rows = {s.bot: s for s in st.table}
    assert rows["a"].points == 2 + 1 + 1.5 and rows["b"].points == 1 + 2 + 0 and rows["c"].points == 0 + 0 + 1.5
    assert [s.bot for s in st.table] == ["a", "b", "c"] and [s.rank for s in st.table] == [1, 2, 3]
    assert rows["a"].matches == 3 and rows["a"].wins == 2 and rows["c"].wins == 1
    assert rows["a"].mean_place == pytest.approx(4 / 3)
    assert rows["a"].place_low < rows["a"].mean_place < rows["a"].place_high
    assert rows["a"].mean_score == pytest.approx(25 / 3)
    assert rows["a"].seat_matches == [1, 1, 1]
    assert rows["a"].seat_mean_place == [1, 1, 2]  # seat 0 in match 1, seat 1 in match 3, seat 2 in match 2
    assert [s.matches for s in st.by_seat] == [3, 3, 3]
    assert st.by_seat[0].mean_place == pytest.approx((1 + 1 + 1) / 3) and st.by_seat[0].wins == 3
    assert st.by_seat[2].mean_place == pytest.approx((3 + 2 + 3) / 3)


def test_head_to_head_counts_above_below_and_level():
    results = [
        result(1, ["a", "b", "c"], [1, 2, 3]),
        result(2, ["b", "a", "c"], [1, 2, 2]),
        result(3, ["a", "b", "c"], [2, 2, 1]),
        result(4, ["a", "c", "d"], [3, 2, 1]),
    ]
    st = standings(results)
    ab = st.pair("a", "b")
    assert (ab.meetings, ab.above, ab.below, ab.tied) == (3, 1, 1, 1)
    ba = st.pair("b", "a")
    assert (ba.above, ba.below, ba.tied) == (1, 1, 1)
    assert st.pair("a", "c").meetings == 4 and st.pair("a", "c").above == 1 and st.pair("a", "c").below == 2
    assert st.pair("b", "d").meetings == 0
    text = format_head_to_head(st)
    assert "1-1-1" in text and "·" in text


def test_forfeits_and_faults_are_counted_per_bot():
    st = standings([result(1, ["a", "b"], [2, 1], faults=[3, 0], forfeited=[True, False])])
    rows = {s.bot: s for s in st.table}
    assert rows["a"].faults == 3 and rows["a"].forfeits == 1 and rows["b"].forfeits == 0


def test_duplicate_sets_are_scored_over_their_rotations():
    # set 0: a, b, c each hold every seat of one deal; a is best on average
    set0 = [result(1, ["a", "b", "c"], [1, 2, 3], scores=[1, 5, 9], dup=0, seed=77),
            result(2, ["b", "c", "a"], [3, 2, 1], scores=[9, 5, 1], dup=0, seed=77),
            result(3, ["c", "a", "b"], [1, 2, 3], scores=[1, 5, 9], dup=0, seed=77)]
    # set 1: incomplete, not ranked
    set1 = [result(4, ["a", "b", "c"], [3, 2, 1], scores=[9, 5, 1], dup=1, seed=78),
            result(5, ["b", "c", "a"], None, status="scheduled", dup=1, seed=78),
            result(6, ["c", "a", "b"], None, status="running", dup=1, seed=78)]
    st = standings(set0 + set1, ["a", "b", "c"])
    s0, s1 = st.sets
    assert s0.complete and s0.seed == 77 and s0.bots == ["a", "b", "c"]
    assert s0.total_score == [1 + 1 + 5, 5 + 9 + 9, 9 + 5 + 1]
    assert s0.mean_place == pytest.approx([4 / 3, 8 / 3, 2])
    assert s0.rank == [1, 3, 2]
    assert not s1.complete and s1.finished == 1 and s1.rank == [None, None, None]
    dup = {d.bot: d for d in st.duplicate}
    assert dup["a"].sets == 1 and dup["a"].set_wins == 1 and dup["a"].mean_set_rank == 1
    assert dup["b"].mean_set_rank == 3 and dup["b"].total_score == 23
    assert [d.bot for d in st.duplicate] == ["a", "c", "b"]
    assert "a 7/1.33 #1" in format_duplicate(st)


def test_equal_means_in_a_set_share_a_rank():
    s = [result(1, ["a", "b"], [1, 2], dup=0), result(2, ["b", "a"], [1, 2], dup=0)]
    assert standings(s).sets[0].rank == [1, 1]


def test_the_text_tables_hold_every_bot_and_seat():
    st = standings([result(1, ["a", "b", "c"], [1, 2, 3]), result(2, ["b", "c", "a"], [1, 2, 3])], ["a", "b", "c", "d"])
    table = format_table(st)
    assert all(b in table for b in "abcd") and "95% interval" in table
    assert "d" in {s.bot for s in st.table if s.matches == 0}
    seats = format_seats(st)
    assert "seat 2" in seats and "every bot" in seats
    assert st.to_json()["table"][0]["bot"] == st.table[0].bot


def test_the_interval_of_a_mean_place_stays_within_the_places_there_are():
    st = standings([result(i, ["a", "b", "c"], [3, 1, 2] if i % 2 else [1, 3, 2]) for i in range(1, 4)])
    rows = {s.bot: s for s in st.table}
    assert rows["a"].place_low == 1.0 and rows["a"].place_high == 3.0
    assert rows["c"].place_low == rows["c"].place_high == 2.0
