"""From the lab to the arena: OpenSpiel's IS-MCTS (examples/python/ismcts_bot.py, through
cardarena.client.policy) and a PettingZoo-style linear policy (examples/python/policy_bot.py)
play a recorded Sixth Card league over real gRPC against the heuristic and random example bots,
started by the CLI as a user types it."""
from __future__ import annotations

import importlib.util

import pytest
from e2ekit import cardarena, example

from cardarena.ratings import Ledger

MISSING = [m for m in ("numpy", "pettingzoo", "pyspiel") if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}: pip install 'cardarena[research]'")

BOTS = {"ismcts": "ismcts_bot.py", "linear": "policy_bot.py", "heur": "heuristic_bot.py", "rand": "random_bot.py"}


def test_ismcts_example_plays_a_recorded_league_without_faults(workdir, ledger_url):
    """A one-round Sixth Card league (the game option rounds=1) of the four example bots at a
    table of four: every seat rotation once, all four matches recorded and rated, the research
    bots seated in each, and no fault of theirs (every decision answered by the policy in time:
    a bot that raised would leave its decision to the deadline, a fault)."""
    db = ledger_url()
    bots = [arg for name, file in BOTS.items() for arg in ("--bot", f"{name}={example(file)}")]
    r = cardarena("league", "run", "--game", "sixth-card", *bots, "--seats", "4", "--option", "rounds=1",
                  "--seed", "5", "-j", "2", "--db", db, "--log-dir", str(workdir / "logs"), cwd=workdir)
    assert r.returncode == 0, r.stderr
    assert "finished: 4 matches" in r.stdout

    led = Ledger(db)
    (league,) = led.leagues()
    assert league.game == "sixth-card" and league.counts["finished"] == 4
    for m in led.league_matches(league.id):
        d = led.match(m.id)
        assert d.status == "finished" and d.options["rounds"] == 1
        assert sorted(d.bots) == sorted(BOTS)
        for name in ("ismcts", "linear"):
            seat = d.bots.index(name)
            assert d.faults[seat] == 0 and not d.forfeited[seat], (name, d.faults)
        assert d.steps and all(p is not None for p in d.places)
    assert {row.bot: row.matches for row in led.ratings("sixth-card")} == dict.fromkeys(BOTS, 4)
    assert led.check() == []
    log = next((workdir / "logs").iterdir()) / "ismcts.log"
    assert "Traceback" not in log.read_text()
