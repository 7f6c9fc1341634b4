"""Schedules (cardarena.server.schedule): round robin, balanced ``--matches N``, duplicate sets."""
from __future__ import annotations

import itertools
from collections import Counter

import pytest

from cardarena.server.league import LeagueError, LeagueSpec, check_spec, league_plans
from cardarena.server.schedule import ScheduleError, balanced, describe, derive_seed, make_schedule, round_robin

BOTS = [f"b{i}" for i in range(12)]


def spread(values) -> int:
    values = list(values)
    return max(values) - min(values)


def test_round_robin_plays_every_group_in_every_rotation_each_round():
    bots = BOTS[:5]
    plans = round_robin(bots, 3, 2, seed=4)
    assert len(plans) == 10 * 3 * 2
    tables = Counter(tuple(p.bots) for p in plans)
    for group in itertools.combinations(bots, 3):
        for k in range(3):
            assert tables[tuple(group[k:] + group[:k])] == 2, group
    d = describe(plans, bots, 3)
    assert set(d["plays"].values()) == {36}
    assert set(d["pairs"].values()) == {2 * 3 * 3}
    assert all(counts == [12, 12, 12] for counts in d["seats"].values())
    assert [(p.round, p.index) for p in plans] == [(i // 30, i) for i in range(60)]
    assert len({p.seed for p in plans}) == 60, "every match its own deal"
    assert all(p.duplicate_set is None for p in plans)


def test_round_robin_seeds_are_those_of_earlier_versions():
    """A league is reproducible from its settings: the seed rule of round robins did not change."""
    plans = round_robin(["a", "b", "c"], 2, 1, seed=9)
    assert [p.seed for p in plans] == [derive_seed(9, 0, i) for i in range(6)]
    assert plans[0].seed == derive_seed(9, 0, 0) != derive_seed(10, 0, 0)


def test_duplicate_round_robin_plays_one_deal_in_every_rotation():
    bots = BOTS[:4]
    plans = round_robin(bots, 3, 2, seed=1, duplicate=True)
    sets: dict[int, list] = {}
    for p in plans:
        sets.setdefault(p.duplicate_set, []).append(p)
    assert len(sets) == 4 * 2
    for members in sets.values():
        assert len(members) == 3
        assert len({p.seed for p in members}) == 1, "one deal per set"
        for seat in range(3):
            assert sorted(p.bots[seat] for p in members) == sorted(members[0].bots), "each bot once in each seat"
    assert len({members[0].seed for members in sets.values()}) == 8, "a new deal for every set"


@pytest.mark.parametrize("n_bots,seats,matches,pairs_within", [
    (5, 4, 20, 1), (6, 4, 30, 1), (7, 3, 35, 1), (8, 4, 100, 1), (10, 4, 200, 1), (12, 4, 300, 1),
    (9, 2, 50, 1), (3, 2, 10, 1), (4, 4, 12, 1), (10, 3, 77, 1),
    (20, 5, 200, 2), (12, 6, 66, 2), (16, 4, 100, 2), (30, 6, 150, 3),
])
def test_balanced_schedule_spreads_plays_pairs_and_seats(n_bots, seats, matches, pairs_within):
    """Measured over seeds 0-7: plays always within one (equal when N·K is a multiple of B); pair
    meetings within one, except in the larger cases where the local search stops at two (three for
    30 bots in 150 tables of 6; a perfect spread there needs a block design, e.g. 12 bots in 66
    tables of 6); each bot's seat counts within two."""
    bots = BOTS[:n_bots] if n_bots <= 12 else [f"x{i}" for i in range(n_bots)]
    plans = balanced(bots, seats, matches, seed=7)
    assert len(plans) == matches
    assert all(len(set(p.bots)) == seats for p in plans), "no bot twice at a table"
    d = describe(plans, bots, seats)
    plays = d["plays"].values()
    assert spread(plays) <= 1
    if matches * seats % n_bots == 0:
        assert spread(plays) == 0
    assert spread(d["pairs"].values()) <= pairs_within
    assert max(spread(c) for c in d["seats"].values()) <= 2
    assert len({p.seed for p in plans}) == matches


def test_balanced_schedule_of_a_small_league_is_even_in_every_respect():
    plans = balanced(BOTS[:6], 3, 20, seed=3)
    d = describe(plans, BOTS[:6], 3)
    assert set(d["plays"].values()) == {10}
    assert set(d["pairs"].values()) == {4}          # 20 tables × 3 pairs over 15 pairs
    assert max(spread(c) for c in d["seats"].values()) <= 1


def test_balanced_schedule_is_a_function_of_its_seed():
    a = balanced(BOTS[:7], 4, 21, seed=5)
    assert a == balanced(BOTS[:7], 4, 21, seed=5)
    assert [p.bots for p in a] != [p.bots for p in balanced(BOTS[:7], 4, 21, seed=6)]


def test_duplicate_balanced_schedule_is_sets_of_rotations():
    plans = balanced(BOTS[:6], 4, 24, seed=2, duplicate=True)
    assert len(plans) == 24
    d = describe(plans, BOTS[:6], 4)
    assert set(d["plays"].values()) == {16}
    assert all(spread(c) == 0 for c in d["seats"].values()), "rotations: every seat equally"
    by_set: dict[int, list] = {}
    for p in plans:
        by_set.setdefault(p.duplicate_set, []).append(p)
    assert sorted(by_set) == list(range(6))
    for members in by_set.values():
        assert len({p.seed for p in members}) == 1
        first = members[0].bots
        assert [p.bots for p in members] == [first[k:] + first[:k] for k in range(4)]


@pytest.mark.parametrize("call,message", [
    (lambda: round_robin(["a", "b"], 3, 1, 0), "tables of 3 need at least 3 bots; 2 given"),
    (lambda: balanced(["a", "b"], 3, 5, 0), "tables of 3 need at least 3 bots; 2 given"),
    (lambda: round_robin(["a", "a", "b"], 2, 1, 0), "named twice"),
    (lambda: balanced(["a", "b", "c"], 2, 0, 0), "at least 1"),
    (lambda: balanced(["a", "b", "c", "d"], 3, 10, 0, duplicate=True), "multiple of 3"),
])
def test_impossible_schedules_are_one_line_errors(call, message):
    with pytest.raises(ScheduleError) as e:
        call()
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("spec,message", [
    (LeagueSpec("sixth-card", ["a", "b", "c"], seats=4), "tables of 4 need at least 4 bots; 3 given"),
    (LeagueSpec("sixth-card", ["a", "b", "c"], seats=2, rounds=2, matches=6), "not both"),
    (LeagueSpec("sixth-card", ["a", "b", "c"], seats=2, matches=5, duplicate=True), "multiple of 2"),
    (LeagueSpec("sixth-card", ["a", "b", "c"], seats=2, max_faults=-1), "max faults"),
    (LeagueSpec("sixth-card", ["a", "b", "c"], seats=2, bank_seconds=-1), "time bank"),
])
def test_league_specs_are_checked_before_anything_is_written(spec, message):
    with pytest.raises(LeagueError, match=message):
        check_spec(spec)


def test_the_spec_chooses_the_schedule():
    rr = league_plans(check_spec(LeagueSpec("sixth-card", BOTS[:4], seats=3, rounds=2)))
    assert len(rr) == 4 * 3 * 2
    bal = league_plans(check_spec(LeagueSpec("sixth-card", BOTS[:4], seats=3, matches=9, duplicate=True)))
    assert len(bal) == 9 and {p.duplicate_set for p in bal} == {0, 1, 2}
    assert make_schedule(BOTS[:4], 3, 0, matches=9) == balanced(BOTS[:4], 3, 9, 0)
