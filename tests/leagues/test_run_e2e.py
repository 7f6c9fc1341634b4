"""`cardarena league run --matches N --duplicate` with real bot processes, then `league show`."""
from __future__ import annotations

import json

from leaguekit import cli, example

from cardarena.ratings import Ledger


def test_a_duplicate_balanced_league_from_the_cli(tmp_path, ledger_url):
    db = ledger_url()
    bots = [a for b in ("p", "q", "r", "s") for a in ("--bot", f"{b}={example('random_bot.py')}")]
    r = cli("league", "run", "--game", "sixth-card", *bots, "--seats", "3", "--matches", "6", "--duplicate",
            "--seed", "5", "--time-bank", "1", "--max-faults", "2", "--grace", "3", "--db", str(db),
            "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "balanced schedule of 6 matches, duplicate (2 sets" in r.stderr and "every bot plays" not in r.stderr
    assert "bots play 3–6 matches" in r.stderr  # two sets of 3 of the 4 bots, 3 rotations each
    assert "league 1 is in the ledger" in r.stderr and "cardarena league resume 1" in r.stderr
    assert "league 1 finished: 6 matches." in r.stdout and "duplicate sets" in r.stdout and "per match" in r.stdout
    assert "matches/s" in r.stderr and "decisions/s" in r.stderr
    led = Ledger(str(db))
    info = led.league(1)
    assert (info.settings["bank_seconds"], info.settings["max_faults"], info.settings["grace_seconds"]) == (1, 2, 3)
    assert sorted(m.duplicate_set for m in led.league_matches(1)) == [0, 0, 0, 1, 1, 1]
    r = cli("league", "show", "1", "--format", "json", "--db", str(db), cwd=tmp_path)
    sets = json.loads(r.stdout)["standings"]["sets"]
    assert [s["finished"] for s in sets] == [3, 3] and all(sorted(s["rank"]) for s in sets)
