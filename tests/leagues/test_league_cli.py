"""The league, match, ratings and ledger commands of the CLI, on a ledger filled by an in-process league."""
from __future__ import annotations

import asyncio
import json

import pytest
from leaguekit import GAME, random_bots, referee
from sqlalchemy import text

from cardarena.ratings import Ledger
from cardarena.ratings.ledger import pack_steps
from cardarena.server.league import LeagueSpec, run_league

BOTS = ["ada", "bo", "cy", "di"]



def fill(db, **spec_kw) -> int:
    """A finished league of random bots in ``db``; returns its id."""
    ledger = Ledger(str(db))
    for b in BOTS:
        try:
            ledger.add_bot(b)
        except Exception:
            pass
    spec = LeagueSpec(GAME, BOTS, **{"seats": 3, "seed": 4, "concurrency": 3, **spec_kw})

    async def go():
        ref = referee()
        async with random_bots(ref, BOTS):
            return await run_league(ref, ledger, spec)
    league_id = asyncio.run(go())
    ledger.close()
    return league_id



def one_line_error(code, err, expected, *words):
    assert code == expected, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    for w in words:
        assert w in lines[0], err


def test_league_list_and_show_report_progress_standings_head_to_head_and_sets(cli, db):
    league_id = fill(db, matches=6, duplicate=True)
    code, out, _ = cli("league", "list")
    assert code == 0 and "balanced, duplicate" in out and "6/6" in out and "complete" in out

    code, out, _ = cli("league", "show", str(league_id))
    assert code == 0, out
    for words in ("balanced schedule of 6 matches", "duplicate (2 sets", "progress: 6/6 finished",
                  "standings", "95% interval", "mean place by seat", "every bot", "head-to-head",
                  "duplicate sets", "set wins", "forfeit after 3 faults"):
        assert words in out, words
    for b in BOTS:
        assert b in out

    code, out, _ = cli("league", "show", str(league_id), "--format", "json")
    data = json.loads(out)
    assert data["league"]["counts"]["finished"] == 6
    table = data["standings"]["table"]
    assert {r["bot"] for r in table} == set(BOTS)
    assert sum(r["matches"] for r in table) == 6 * 3
    assert sum(r["points"] for r in table) == 6 * 3  # a 3-seat match hands out 2 + 1 + 0 points
    assert all(r["place_low"] <= r["mean_place"] <= r["place_high"] for r in table if r["matches"] > 1)
    assert len(data["standings"]["sets"]) == 2 and all(s["complete"] for s in data["standings"]["sets"])
    pairs = {(h["bot"], h["other"]): h for h in data["standings"]["head_to_head"]}
    for (a, b), h in pairs.items():
        assert h["above"] + h["below"] + h["tied"] == h["meetings"]
        assert pairs[b, a]["above"] == h["below"]


def test_an_open_league_says_how_to_go_on(cli, db):
    league_id = fill(db, rounds=1, seats=4)
    ledger = Ledger(str(db))
    with ledger.engine.begin() as c:  # as a killed process leaves it: one match running, unrecorded
        mid = ledger.league_matches(league_id)[-1].id
        c.execute(text("DELETE FROM rating_history WHERE match_id = :m"), {"m": mid})
        c.execute(text("DELETE FROM match_log WHERE match_id = :m"), {"m": mid})
        c.execute(text("UPDATE match SET status = 'running' WHERE id = :m"), {"m": mid})
    code, out, _ = cli("league", "list")
    assert "open: 1 running, 0 scheduled" in out
    code, out, _ = cli("league", "show", str(league_id))
    assert f"cardarena league resume {league_id}" in out and "1 running" in out


def test_a_complete_league_has_nothing_to_resume(cli, db):
    league_id = fill(db, rounds=1, seats=4)
    code, out, _ = cli("league", "resume", str(league_id))
    assert code == 0 and "nothing to resume" in out


def test_match_verify_replays_and_finds_a_tampered_log(cli, db):
    league_id = fill(db, rounds=1, seats=4)
    ledger = Ledger(str(db))
    first = ledger.league_matches(league_id)[0].id
    code, out, _ = cli("match", "verify", str(first))
    assert code == 0 and f"match {first} verified" in out and "exactly" in out
    code, out, _ = cli("match", "verify", "--league", str(league_id))
    assert code == 0 and "all 4 finished matches verified" in out

    steps = [dict(s) for s in ledger.match(first).steps]
    steps[3] = {seat: (choice + 1) % 2 for seat, choice in steps[3].items()}
    with ledger.engine.begin() as c:
        c.execute(text("UPDATE match_log SET steps = :s WHERE match_id = :m"), {"s": pack_steps(steps), "m": first})
    code, out, err = cli("match", "verify", str(first))
    one_line_error(code, err, 1, f"match {first} does not verify")
    assert "differs" in out or "recorded as" in out or "does not replay" in out
    code, _, err = cli("match", "verify", "--league", str(league_id))
    one_line_error(code, err, 1, "1 of 4 finished matches do not verify")
    code, _, err = cli("ledger", "check", "--replay")
    one_line_error(code, err, 1, "the ledger has")


def test_a_match_of_another_rules_engine_version_is_told_apart_from_a_wrong_record(cli, db):
    """Every record carries its game's ``engine_version`` (raised by the rules fixes of Three
    Thirteen, SCOUT and Scouting); a match recorded by another version (here: as if by a
    later release) is not replayed against this release's rules, nor reported as a wrong record;
    a record without a version was made by version 1."""
    league_id = fill(db, rounds=1, seats=4)
    ledger = Ledger(str(db))
    first, second = [m.id for m in ledger.league_matches(league_id)][:2]
    assert ledger.match(first).result_details["engine_version"] == 1  # Sixth Card: version 1
    later = {**ledger.match(first).result_details, "engine_version": 9}  # only the version changed
    unversioned = {k: v for k, v in ledger.match(second).result_details.items() if k != "engine_version"}
    with ledger.engine.begin() as c:
        c.execute(text("UPDATE match SET result_details = :d WHERE id = :m"), {"d": json.dumps(later), "m": first})
        c.execute(text("UPDATE match SET result_details = :d WHERE id = :m"),
                  {"d": json.dumps(unversioned), "m": second})
    code, _, err = cli("match", "verify", str(first))
    one_line_error(code, err, 1, "recorded by version 9 of the sixth-card rules engine", "this release has version 1")
    code, out, _ = cli("match", "verify", str(second))
    assert code == 0 and f"match {second} verified" in out, "a record without a version is version 1"
    code, out, _ = cli("match", "verify", "--league", str(league_id))
    assert code == 0 and "3 finished matches verified" in out and f"1 finished matches ({first})" in out
    code, out, _ = cli("ledger", "check", "--replay")
    assert code == 0 and "3 finished matches replay exactly" in out and "another version" in out


def test_ledger_check_and_ratings_recompute_give_a_verdict(cli, db):
    fill(db, rounds=1, seats=3)
    code, out, _ = cli("ledger", "check")
    assert code == 0 and out.startswith("ledger OK: 12 matches (12 finished") and "1 league;" in out
    code, out, _ = cli("ledger", "check", "--replay")
    assert code == 0 and "all 12 finished matches replay exactly" in out

    ledger = Ledger(str(db))
    with ledger.engine.begin() as c:
        c.execute(text("UPDATE rating SET mu = mu + 1 WHERE bot_id = (SELECT id FROM bot WHERE name = 'bo')"))
    code, out, err = cli("ledger", "check")
    one_line_error(code, err, 1, "the ledger has 1 problem")
    assert "rating of bo in sixth-card differs from its recomputation" in out

    code, out, _ = cli("ratings", "recompute")
    assert code == 0 and "recomputed from 12 matches" in out and "1 rating changed: bo in sixth-card" in out
    code, out, _ = cli("ledger", "check")
    assert code == 0 and "ledger OK" in out
    code, out, _ = cli("ratings", "recompute", "--game", GAME)
    assert code == 0 and "already exact" in out


def test_ratings_is_still_the_table_beside_its_recompute_subcommand(cli, db):
    fill(db, rounds=1, seats=3)
    code, out, _ = cli("ratings", "--game", GAME, "--format", "json")
    assert code == 0 and {r["bot"] for r in json.loads(out)} == set(BOTS)
    code, out, _ = cli("ratings")
    assert code == 0 and "μ − 3σ" in out
    code, _, err = cli("ratings", "recompute", "--game", "go")
    one_line_error(code, err, 2, "no game 'go'")


def test_match_export_holds_everything_to_replay_and_audit_the_match(cli, db):
    league_id = fill(db, matches=3, duplicate=True)
    mid = Ledger(str(db)).league_matches(league_id)[1].id
    code, out, _ = cli("match", "export", str(mid))
    m = json.loads(out)
    for key in ("id", "game", "seed", "options", "status", "bots", "scores", "places", "faults", "forfeited",
                "steps", "events", "result_details", "rating_changes", "league_id", "round", "index",
                "duplicate_set", "duration_s", "claimed_at", "finished_at"):
        assert key in m, key
    assert m["duplicate_set"] == 0 and m["league_id"] == league_id and len(m["rating_changes"]) == 3
    assert m["events"][0]["step"] == 0 and {"step", "seats", "data"} <= set(m["events"][0])
    # the export alone replays the match
    from cardarena.server.match import replay
    done = replay(m["game"], len(m["bots"]), m["seed"], m["options"], m["steps"])
    assert list(done.result().places) == m["places"]


@pytest.mark.parametrize("argv,code,words", [
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--bot", "c=z", "--seats", "2",
      "--matches", "5", "--duplicate"], 2, ["multiple of 2"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--rounds", "2", "--matches", "4"], 2, ["not both"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--seats", "3"], 2, ["tables of 3 need at least 3 bots; 2 given"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--matches", "0"], 2, ["at least 1"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--time-bank", "-1"], 2, ["--time-bank"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--max-faults", "-1"], 2, ["--max-faults"]),
    (["league", "run", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--grace", "-2"], 2, ["--grace"]),
    (["play", "--game", GAME, "--bot", "a=x", "--bot", "b=y", "--time-bank", "-1"], 2, ["--time-bank"]),
    (["league", "resume", "99"], 1, ["no league 99"]),
    (["league", "show", "99"], 1, ["no league 99"]),
    (["match", "verify"], 2, ["match id or --league"]),
    (["match", "verify", "99"], 1, ["no match 99"]),
    (["match", "verify", "--league", "99"], 1, ["no league 99"]),
])
def test_bad_league_arguments_end_as_one_line(cli, db, argv, code, words):
    got, _, err = cli(*argv)
    one_line_error(got, err, code, *words)


def test_resume_refuses_a_bot_the_league_does_not_have(cli, db):
    league_id = fill(db, rounds=1, seats=4)
    code, _, err = cli("league", "resume", str(league_id), "--bot", "zed=python z.py")
    one_line_error(code, err, 2, "has no bot 'zed'")


def test_an_unfinished_match_cannot_be_verified(cli, db):
    ledger = Ledger(str(db))
    ledger.add_bot("a"), ledger.add_bot("b")
    mid = ledger.create_match(GAME, 1, {}, ["a", "b"])
    code, _, err = cli("match", "verify", str(mid))
    one_line_error(code, err, 1, "is scheduled; only a finished match can be verified")


def test_help_of_the_league_commands_documents_resume_and_time_control(cli):
    for argv, words in ((["league", "run", "--help"], ["--matches", "--duplicate", "--time-bank", "--max-faults", "--grace",
                                                       "--max-reconnects", "--start-timeout", "absent", "resume"]),
                        (["play", "--help"], ["--time-bank", "--max-faults", "--grace", "--max-reconnects"]),
                        (["serve", "--help"], ["--admin-token-file", "--admin-token", "warning"]),
                        (["league", "resume", "--help"], ["--retry-failed", "--stale-after", "--bot"]),
                        (["league", "show", "--help"], ["head-to-head"]),
                        (["league", "list", "--help"], ["Usage"]),
                        (["match", "verify", "--help"], ["--league"]),
                        (["ratings", "--help"], ["recompute", "--format"]),
                        (["ratings", "recompute", "--help"], ["--game"]),
                        (["ledger", "check", "--help"], ["--replay"])):
        code, out, _ = cli(*argv)
        assert code == 0, argv
        for w in words:
            assert w in out, (argv, w)


def test_play_passes_its_time_control_to_the_referee(tmp_path, ledger_url):
    """--max-faults 1: a bot that answers after --move-time forfeits at its first fault."""
    from leaguekit import cli, example
    slow = tmp_path / "slow_bot.py"
    slow.write_text("import time\nfrom cardarena.client import run\n\n"
                    "def decide(decision):\n    time.sleep(0.6)\n    return 0\n\nrun(decide)\n")
    db = ledger_url()
    r = cli("play", "--game", GAME, "--bot", f"slow=python {slow}", "--bot", f"quick={example('random_bot.py')}",
            "--move-time", "0.2", "--max-faults", "1", "--time-bank", "0", "--grace", "5", "--record",
            "--db", str(db), "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    m = Ledger(str(db)).match(1)
    assert m.faults[0] == 1 and m.forfeited == [True, False] and m.places == [2, 1]


def test_max_reconnects_and_the_grace_reach_the_referee_from_league_run_resume_and_play(tmp_path, ledger_url):
    """--max-reconnects and --grace go into the league's settings (shown by `league show`, read
    again by `league resume`) and into the time control each bot is sent with its match_start."""
    from leaguekit import ROOT, cli, example

    from cardarena.server.league import settings_time_control
    from cardarena.server.referee import TimeControl
    db = ledger_url()
    reports = f"python {ROOT / 'tests' / 'bots' / 'reports_end.py'}"
    r = cli("league", "run", "--game", GAME, "--bot", f"a={reports}", "--bot", f"b={example('random_bot.py')}",
            "--grace", "4", "--max-reconnects", "2", "--option", "rounds=1", "--db", str(db),
            "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    settings = Ledger(str(db)).league(1).settings
    assert (settings["grace_seconds"], settings["max_reconnects"]) == (4, 2)
    tc = settings_time_control(settings, TimeControl())
    assert (tc.grace_seconds, tc.max_reconnects) == (4, 2)
    (league_log,) = (tmp_path / "logs").iterdir()
    assert (league_log / "a.log").read_text().count("grace 4 max_reconnects 2") == 2
    r = cli("league", "show", "1", "--db", str(db), cwd=tmp_path)
    assert "away at most 4 s per match and 2 reconnects" in r.stdout

    r = cli("play", "--game", GAME, "--bot", f"p={reports}", "--bot", f"q={example('random_bot.py')}",
            "--max-reconnects", "7", "--option", "rounds=1", "--log-dir", str(tmp_path / "play"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (play_log,) = (tmp_path / "play").iterdir()  # each run of play logs into a folder of its own
    assert "match_start play grace 10 max_reconnects 7" in (play_log / "p.log").read_text()
    # the CLI's help states the referee's default
    r = cli("league", "run", "--help", cwd=tmp_path)
    assert f"the referee's, {TimeControl().max_reconnects}." in " ".join(r.stdout.replace("│", " ").split())
