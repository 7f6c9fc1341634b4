"""Gauntlets (``league run --gauntlet NAME``): one bot at every table against the field."""
from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from leaguekit import GAME, random_bots, referee

from cardarena.ratings import SeatResults
from cardarena.ratings.standings import format_gauntlet, gauntlet
from cardarena.server.league import LeagueError, LeagueSpec, check_spec, league_plans, run_league
from cardarena.server.schedule import ScheduleError, balanced, describe, round_robin

BOTS = ["new", "a", "b", "c", "d"]


def sets_of(plans) -> dict[int, list]:
    sets: dict[int, list] = {}
    for p in plans:
        sets.setdefault(p.duplicate_set, []).append(p)
    return sets


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_gauntlet_round_robin_seats_its_bot_at_every_table_in_every_seat(seats):
    plans = round_robin(BOTS, seats, 2, seed=3, gauntlet="new")
    assert all("new" in p.bots for p in plans)
    d = describe(plans, BOTS, seats)
    meets = {b: n for (x, y), n in d["pairs"].items() for b in (x, y) if "new" in (x, y) and b != "new"}
    assert len(set(meets.values())) == 1 and set(meets) == set(BOTS[1:]), "every opponent meets it equally often"
    assert len(set(d["seats"]["new"])) == 1, "it sits in every seat equally often"
    assert d["plays"]["new"] == len(plans)
    assert len({p.seed for p in plans}) == len(plans)


def test_a_duplicate_gauntlet_keeps_its_sets_whole():
    plans = round_robin(BOTS, 3, 1, seed=5, duplicate=True, gauntlet="new")
    sets = sets_of(plans)
    assert len(sets) == 6  # C(4, 2) groups of two opponents
    for members in sets.values():
        assert len(members) == 3 and len({p.seed for p in members}) == 1
        assert sorted(p.bots.index("new") for p in members) == [0, 1, 2], "the gauntlet bot holds every seat's cards"


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_balanced_gauntlet_spreads_the_opponents_and_rotates_its_seat_exactly(duplicate):
    plans = balanced(BOTS, 3, 24, seed=2, duplicate=duplicate, gauntlet="new")
    assert len(plans) == 24 and all("new" in p.bots for p in plans)
    d = describe(plans, BOTS, 3)
    assert d["seats"]["new"] == [8, 8, 8]
    assert {d["plays"][b] for b in BOTS[1:]} == {12}
    for b in BOTS[1:]:
        assert max(d["seats"][b]) - min(d["seats"][b]) <= 2, d["seats"][b]
    if duplicate:
        assert all(len(m) == 3 for m in sets_of(plans).values())


def test_a_gauntlet_needs_its_bot_in_the_league():
    with pytest.raises(ScheduleError, match="no such bot"):
        round_robin(BOTS, 3, 1, 0, gauntlet="nobody")
    with pytest.raises(LeagueError, match="no such bot"):
        check_spec(LeagueSpec(GAME, BOTS, seats=3, gauntlet="nobody"))


def test_the_gauntlet_report_counts_above_below_level_and_the_mean_place_difference():
    def r(mid, bots, places):
        return SeatResults(mid, 0, mid, None, 0, "finished", list(bots), [0.0] * 3, list(places), [0] * 3,
                           [False] * 3)
    results = [r(1, ["new", "a", "b"], [1, 2, 3]), r(2, ["b", "new", "a"], [1, 2, 2]),
               r(3, ["a", "b", "new"], [3, 1, 2]),
               SeatResults(4, 0, 4, None, 0, "scheduled", ["new", "a", "b"], [None] * 3, [None] * 3, [None] * 3,
                           [None] * 3)]
    lines = {ln.opponent: ln for ln in gauntlet(results, "new")}
    assert (lines["a"].matches, lines["a"].above, lines["a"].below, lines["a"].tied) == (3, 2, 0, 1)
    assert lines["a"].mean_place_difference == pytest.approx((1 + 0 + 1) / 3)
    assert (lines["b"].above, lines["b"].below) == (1, 2)
    assert lines["b"].mean_place_difference == pytest.approx((2 - 1 - 1) / 3)
    overall = lines[None]
    assert (overall.matches, overall.above, overall.below, overall.tied) == (6, 3, 2, 1)
    text = format_gauntlet(gauntlet(results, "new"), "new")
    assert "every opponent" in text and "new above" in text and "+0.67" in text


def test_a_gauntlet_league_is_scheduled_whole_in_the_ledger_and_played(led):
    for b in ("new", "d"):
        led.add_bot(b)
    bots = ["new", "a", "b", "c", "d"]
    spec = LeagueSpec(GAME, bots, seats=3, seed=7, concurrency=3, gauntlet="new", duplicate=True)

    async def go():
        ref = referee()
        async with random_bots(ref, bots):
            return await run_league(ref, led, spec)
    league_id = asyncio.run(go())
    info = led.league(league_id)
    assert info.settings["gauntlet"] == "new" and info.counts["finished"] == 18
    matches = led.league_matches(league_id)
    assert [m.seed for m in matches] == [p.seed for p in league_plans(check_spec(spec))]
    seats = Counter(m.bots.index("new") for m in matches)
    assert seats == {0: 6, 1: 6, 2: 6}
    lines = gauntlet(led.league_results(league_id), "new")
    assert [ln.matches for ln in lines] == [9, 9, 9, 9, 36]
