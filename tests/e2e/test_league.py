"""A league over real gRPC: the CLI hosts a referee on a free port, starts four real bot
processes, plays a round robin, and the SQLite ledger holds every match, seat and rating."""
from __future__ import annotations

import json

from e2ekit import cardarena, example

from cardarena.ratings import Ledger


def test_round_robin_league_of_four_bot_processes_fills_the_ledger(workdir, ledger_url):
    db = ledger_url()
    bots = ["--bot", f"rand-a={example('random_bot.py')}", "--bot", f"rand-b={example('random_bot.py')}",
            "--bot", f"heur-a={example('heuristic_bot.py')}", "--bot", f"heur-b={example('heuristic_bot.py')}"]
    r = cardarena("league", "run", "--game", "sixth-card", *bots, "--seats", "4", "--rounds", "2",
                  "--seed", "9", "--db", db, "--log-dir", str(workdir / "logs"), cwd=workdir)
    assert r.returncode == 0, r.stderr
    assert "finished: 8 matches" in r.stdout
    for name in ("rand-a", "rand-b", "heur-a", "heur-b"):
        assert name in r.stdout  # the rating table
        assert (next((workdir / "logs").iterdir()) / f"{name}.log").exists()

    led = Ledger(db)
    (league,) = led.leagues()
    assert league.game == "sixth-card" and league.total == 8 and league.counts["finished"] == 8
    matches = led.league_matches(league.id)
    # every seat rotation of the one group of four, twice
    assert sorted(tuple(m.bots) for m in matches).count(tuple(matches[0].bots)) == 2
    assert len({tuple(m.bots) for m in matches}) == 4
    for m in matches:
        d = led.match(m.id)
        assert d.status == "finished"
        assert sorted(d.places)[0] == 1 and all(p is not None for p in d.places)
        assert d.events and d.events[0]["data"]["type"] == "deal"
        assert d.steps, "the choices are kept for replay"
        assert all(f == 0 for f in d.faults), "well-behaved bots commit no faults"
    rows = {row.bot: row for row in led.ratings("sixth-card")}
    assert set(rows) == {"rand-a", "rand-b", "heur-a", "heur-b"}
    assert all(row.matches == 8 for row in rows.values())
    assert sum(row.wins for row in rows.values()) >= 8
    assert led.check() == []

    # the same ledger read back through the CLI
    r = cardarena("ratings", "--game", "sixth-card", "--format", "json", "--db", db, cwd=workdir)
    assert r.returncode == 0, r.stderr
    table = json.loads(r.stdout)
    assert {row["bot"] for row in table} == set(rows)
    assert table[0]["conservative"] >= table[-1]["conservative"]
    r = cardarena("match", "show", str(matches[0].id), "--db", db, cwd=workdir)
    assert r.returncode == 0 and "revealed" in r.stdout and "result:" in r.stdout
