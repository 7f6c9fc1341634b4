"""``league run --until-separated``: rounds added one at a time until the asked order is known."""
from __future__ import annotations

import asyncio

import pytest
from leaguekit import GAME, cli as run_cli, example, random_bots, referee

from cardarena.ratings import Ledger
from cardarena.server.league import (
    LeagueSpec, check_spec, league_plans, league_settings, play_league, resume_league, time_control,
    until_separated,
)
from cardarena.server.schedule import next_round
from cardarena.server.sequential import pairs_asked

BOTS = ["a", "b", "c"]


@pytest.mark.parametrize("args,words", [
    (["--until-separated", "--top", "1", "--gauntlet", "a"], "give one of --top and --gauntlet"),
    (["--until-separated", "--confidence", "1.5"], "between 0 and 1"),
    (["--until-separated", "--confidence", "0"], "between 0 and 1"),
    (["--until-separated", "--max-matches", "2"], "less than one round (3 matches)"),
    (["--top", "1"], "--top goes with --until-separated"),
    (["--until-separated", "--rounds", "2"], "not --rounds"),
    (["--until-separated", "--server", "127.0.0.1:1"], "only in a local league"),
    (["--gauntlet", "a", "--server", "127.0.0.1:1"], "only in a local league"),
])
def test_a_bad_combination_is_one_line_and_exit_2(cli, db, args, words):
    bots = [a for b in BOTS for a in ("--bot", f"{b}=python bot.py")]
    code, _, err = cli("league", "run", "--game", GAME, "--seats", "3", *bots, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: ") and words in lines[0], err


def test_the_pairs_asked_are_the_adjacent_ones_or_those_of_the_top_places():
    ranking = ["w", "x", "y", "z"]
    assert pairs_asked(ranking) == [("w", "x"), ("x", "y"), ("y", "z")]
    assert pairs_asked(ranking, top=1) == [("w", "x")]
    assert pairs_asked(ranking, top=2) == [("w", "x"), ("x", "y")]
    assert pairs_asked(ranking, gauntlet="y") == [("y", "w"), ("y", "x"), ("y", "z")]


def test_a_resumed_until_separated_league_goes_on_a_round_at_a_time_to_its_cap(led):
    """Interrupted in round 1 (one match left running, as a killed process leaves it), the
    league is resumed: the match is replayed, then rounds are added, each one whole, until
    the cap, as the schedule would have them; random bots are equal, so no pair separates."""
    spec = check_spec(LeagueSpec(GAME, BOTS, seats=3, seed=11, concurrency=2, until_separated=True, duplicate=True,
                                 max_matches=12))
    tc = time_control(spec, referee().time_control)
    league_id = led.create_league(GAME, spec.options, league_settings(spec, tc), league_plans(spec))

    async def first_round():
        ref = referee()
        async with random_bots(ref, BOTS):
            await play_league(ref, led, league_id, GAME, spec.options, tc, 2)
    asyncio.run(first_round())
    state = until_separated(led.league(league_id).settings, led.league_results(league_id))
    assert state.stopped is None and not state.open and len(state.next_round) == 3
    # round 1 written, one of its matches claimed by a process that then died
    led.add_matches(league_id, state.next_round)
    assert led.claim_next(league_id) is not None

    async def resume():
        ref = referee()
        async with random_bots(ref, BOTS, seed=1):
            return await resume_league(ref, led, league_id, start_timeout=5)
    played = asyncio.run(resume())
    assert played == 9, "round 1 (the interrupted match again) and two rounds more: 12 matches"
    matches = led.league_matches(league_id)
    assert [m.status for m in matches] == ["finished"] * 12
    expected = [p for rnd in range(4) for p in next_round(BOTS, 3, 11, rnd, duplicate=True, first_set=rnd)]
    assert [(m.seed, m.bots) for m in matches] == [(p.seed, p.bots) for p in expected], "the schedule's rounds"
    results = led.league_results(league_id)
    assert [r.duplicate_set for r in results] == [p.duplicate_set for p in expected]
    state = until_separated(led.league(league_id).settings, results)
    assert state.stopped == "cap" and state.rounds == 4 and state.matches == 12
    assert "the cap of 12 matches stopped the league" in state.summary(results)
    assert "not separated by the cap of 12 matches" in state.summary(results)


def test_a_gauntlet_of_the_heuristic_bot_stops_once_it_is_separated_from_each_random_bot(tmp_path):
    """Real bot processes through `cardarena league run`: the heuristic bot against two random
    bots on one-round Sixth Card, duplicate; each round is one set of three matches. At 90 %
    (each pair at 5 %) it takes six sets or more, a few seconds a round."""
    db = str(tmp_path / "g.db")
    bots = ["--bot", f"h={example('heuristic_bot.py')}", "--bot", f"r1={example('random_bot.py')}",
            "--bot", f"r2={example('random_bot.py')}"]
    r = run_cli("league", "run", "--game", GAME, "--seats", "3", *bots, "--gauntlet", "h", "--until-separated",
                "--confidence", "0.9", "--duplicate", "--option", "rounds=1", "--seed", "3", "-j", "3", "--max-matches", "90",
                "--db", db, "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "gauntlet of h, rounds of a round robin until separated at 90%" in r.stderr
    out = r.stdout
    assert "gauntlet: h against each opponent" in out and "every opponent" in out
    assert "2 of 2 pairs separated" in out and "(every pair asked: the league stopped)" in out
    assert "separated: h above r1 at 90% after" in out and "separated: h above r2 at 90% after" in out

    led = Ledger(db)
    (league,) = led.leagues()
    results = led.league_results(league.id)
    state = until_separated(league.settings, results)
    assert state.stopped == "separated" and league.total == 3 * state.rounds < 90
    assert all(r.status == "finished" for r in results)
    led.close()

    shown = run_cli("league", "show", str(league.id), "--db", db, cwd=tmp_path)
    assert shown.returncode == 0 and "2 of 2 pairs separated" in shown.stdout and "h above r1" in shown.stdout
    again = run_cli("league", "resume", str(league.id), "--db", db, cwd=tmp_path)
    assert again.returncode == 0 and "nothing to resume" in again.stdout
