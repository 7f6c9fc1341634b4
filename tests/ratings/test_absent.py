"""Absent seats are not rated (rating rule 4, docs/ledger.md): a bot that never connected during
a match forfeits it in the standings, no rating moves for its seat, and the seats that played
are rated among themselves (nothing is rated if fewer than two played). A seat that played and
then forfeited (faults, a crash mid-match) is rated as before.

At the ledger's seam: what one record does to each seat, and ``recompute`` to the same floats.
Through the real CLI: a ``league run`` of real bot processes, one whose program exits before it
connects and one that dies in its first match, then ``ratings --format json``, ``ratings
recompute``, ``ledger check``, ``league show`` and the web pages over that ledger.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.ratings import Ledger, LedgerError
from cardarena.ratings import rating as rules
from cardarena.ratings.explain import explain_all, format_text, read

GAME = "sixth-card"
ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"
START = rules.initial(GAME)


def _absent(seat: int) -> dict:
    return {"seat": seat, "step": 0, "kind": "absent", "detail": "not connected when the match started"}


def _record(led: Ledger, bots, places, *, forfeited=(), fault_log=()):
    """Make and record a match of ``bots`` with these places; returns its id and rating changes."""
    n = len(bots)
    match_id = led.create_match(GAME, 1, {}, list(bots))
    changes = led.record_match(match_id, places=list(places), scores=[-p for p in places], faults=[0] * n,
                               forfeited=[s in forfeited for s in range(n)], steps=[{s: 0 for s in range(n)}],
                               events=[{"step": 0, "seats": None, "data": {"type": "deal"}}],
                               result_details={"faults": list(fault_log)})
    return match_id, changes


def _stored(led: Ledger):
    """The rating table and every bot's history, floats exact."""
    return led.ratings(), {b.name: led.rating_history(b.name, GAME) for b in led.bots()}


def test_an_absent_seat_is_not_rated_and_a_seat_forfeited_mid_match_is(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b", "c", "d"):
        led.add_bot(b)

    # c never connected: a and b are rated as the two-seat match they played
    first, changes = _record(led, ["a", "b", "c"], [1, 2, 3], forfeited={2}, fault_log=[_absent(2)])
    assert [c.rated for c in changes] == [True, True, False]
    assert (changes[2].mu, changes[2].sigma) == (changes[2].mu_before, changes[2].sigma_before) == START
    duel = rules.update([START, START], [1, 2], GAME)
    assert [(c.mu, c.sigma) for c in changes[:2]] == duel
    assert rules.update([START] * 3, [1, 2, 3], GAME)[:2] != duel, "c, had it been rated, would have moved them"
    assert led.match(first).absent == [False, False, True]
    assert led.match(first).to_json()["absent"] == [False, False, True]

    # d played, then forfeited at step 5: it is rated, as the loss to both that its place says
    before = {c.bot: (c.mu, c.sigma) for c in changes}
    _, changes = _record(led, ["a", "b", "d"], [1, 2, 3], forfeited={2},
                         fault_log=[{"seat": 2, "step": 5, "kind": "forfeit", "detail": "3 faults"}])
    assert [c.rated for c in changes] == [True, True, True]
    assert [(c.mu, c.sigma) for c in changes] == rules.update([before["a"], before["b"], START], [1, 2, 3], GAME)
    assert changes[2].mu < START[0]

    # only a played: nothing is rated
    a_now = (changes[0].mu, changes[0].sigma)
    _, changes = _record(led, ["a", "c"], [1, 2], forfeited={1}, fault_log=[_absent(1)])
    assert [c.rated for c in changes] == [False, False] and (changes[0].mu, changes[0].sigma) == a_now

    table = {r.bot: r for r in led.ratings(GAME)}
    assert set(table) == {"a", "b", "d"}, "c, absent from every match, is on no table"
    assert table["a"].matches == 2 and table["a"].absent == 0

    # once c has played a match it is on the table, counting that match, marked with its two absences
    _record(led, ["c", "d"], [1, 2])
    table = {r.bot: r for r in led.ratings(GAME)}
    assert (table["c"].matches, table["c"].wins, table["c"].absent) == (1, 1, 2)
    (told,) = [e for e in explain_all(read(led, "a", GAME, 10), "a") if e.match_id == first]
    assert [(o.bot, o.rated, o.absent) for o in told.opponents] == [("b", True, False), ("c", False, True)]
    assert "c (absent, not rated)" in told.reason and told.score == 1.0, "it beat b; c is not counted"
    assert "not rated: absent (never connected)" in format_text([told])
    assert led.check() == []
    kept = _stored(led)
    assert led.recompute() == 4
    assert _stored(led) == kept, "recompute gives exactly the live numbers"
    led.close()


def test_a_record_that_names_a_seat_absent_that_did_not_forfeit_is_refused(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b"):
        led.add_bot(b)
    with pytest.raises(LedgerError, match="absent seats \\[1\\] must be seats that forfeited"):
        _record(led, ["a", "b"], [1, 2], fault_log=[_absent(1)])
    assert led.ratings() == [] and led.check() == []
    led.close()


# ------------------------------------------------------------------------------ the real CLI


def run_cli(*args: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """``cardarena`` as a user runs it, a process of its own (the crashing bot imports
    tests/bots/rawbot.py)."""
    env = {**os.environ, "PYTHONPATH": str(BOTS)}
    return subprocess.run([sys.executable, "-m", "cardarena.server.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def league(tmp_path, ledger_url):
    """A round robin of tables of three among two random bots, ``crash`` (five decisions, then its
    program dies: absent from its later matches) and ``gone`` (its program exits before it
    connects), one match at a time; the URL of its ledger."""
    db = ledger_url()
    random = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
    bots = {"a": random, "b": random, "crash": f"python {BOTS / 'crash_mid_match.py'}",
            "gone": f"python {BOTS / 'exit_before_connect.py'}"}
    # the move time and the start timeout 10x what a loaded machine needs; the grace is what
    # crash's first match waits for it, once, before its seat forfeits
    r = run_cli("league", "run", "--game", GAME, "--seats", "3", "-j", "1", "--move-time", "10", "--grace", "2",
                "--start-timeout", "120", "--db", db, "--log-dir", str(tmp_path / "logs"),
                *[a for name, command in bots.items() for a in ("--bot", f"{name}={command}")],
                cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    assert "league 1 finished: 12 matches." in r.stdout, r.stdout
    return db


def test_a_league_rates_only_the_seats_that_played(league, cli):
    """The league as its bots played it, then the reading commands (in this process: the
    ``cli`` fixture of tests/conftest.py) and the web pages over its ledger."""
    db = league
    led = Ledger(db)
    matches = [led.match(r.match_id) for r in led.league_results(1)]
    assert len(matches) == 12 and all(m.status == "finished" for m in matches)
    order = sorted(matches, key=lambda m: m.finished_at)  # -j 1: one after the other
    seats = {b: [(m, m.bots.index(b)) for m in order if b in m.bots] for b in ("gone", "crash")}
    assert all(m.absent[s] and m.forfeited[s] for m, s in seats["gone"])
    (m, s), *later = seats["crash"]
    assert m.forfeited[s] and not m.absent[s], "crash played its first match, then left it"
    assert later and all(m.absent[s] for m, s in later), "its program gone, it is absent from the rest"

    played = {}  # per bot, the matches it is rated in: not absent, and one more seat played
    among_themselves = 0
    for m in matches:
        present = [s for s in range(3) if not m.absent[s]]
        by_seat = {c.seat: c for c in m.rating_changes}
        for s, bot in enumerate(m.bots):
            rated = len(present) >= 2 and s in present
            assert by_seat[s].rated == rated, (m.id, bot, m.absent)
            if not rated:
                assert (by_seat[s].mu, by_seat[s].sigma) == (by_seat[s].mu_before, by_seat[s].sigma_before)
            played[bot] = played.get(bot, 0) + rated
        if present == [s for s in range(3) if m.bots[s] != "gone"] and len(present) == 2:
            # gone absent, the two others rated among themselves, by their places
            before = [(by_seat[s].mu_before, by_seat[s].sigma_before) for s in present]
            assert [(by_seat[s].mu, by_seat[s].sigma) for s in present] == \
                rules.update(before, [m.places[s] for s in present], GAME)
            among_themselves += 1
    assert among_themselves >= 3, "a, b and gone met at three tables at least"
    assert played["gone"] == 0 and played["crash"] == 1 and played["a"] >= 6

    code, out, err = cli("ratings", "--db", db, "--format", "json")
    assert code == 0, err
    rows = {row["bot"]: row for row in json.loads(out)}
    assert set(rows) == {"a", "b", "crash"}, "gone has no rating row"
    assert {b: rows[b]["matches"] for b in rows} == {b: played[b] for b in rows}
    assert (rows["crash"]["absent"], rows["a"]["absent"]) == (len(later), 0)

    code, out, err = cli("ratings", "recompute", "--db", db)
    assert code == 0 and "the stored ratings were already exact" in out + err, out + err
    assert json.loads(cli("ratings", "--db", db, "--format", "json")[1]) == list(rows.values()), \
        "recompute gives the same table, to the last bit"
    assert cli("ledger", "check", "--db", db)[0] == 0

    table = cli("ratings", "--db", db)[1].splitlines()
    assert table[0].split()[-1] == "absent"
    assert next(line for line in table if line.split()[1] == "crash").split()[-1] == str(len(later))

    code, out, err = cli("league", "show", "1", "--db", db)
    assert code == 0, err
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("rank  bot"))
    assert lines[head].split()[-1] == "absent"
    standing = {line.split()[1]: line.split() for line in lines[head + 2:head + 6]}
    assert standing["gone"][-1] == str(len(seats["gone"])) and standing["crash"][-1] == str(len(later))
    assert len(standing["a"]) == len(standing["gone"]) - 1, "a, never absent, has no mark"
    assert lines[head + 6].startswith("absent: seats forfeited by a bot that never connected")
    doc = json.loads(cli("league", "show", "1", "--db", db, "--format", "json")[1])
    assert {s["bot"]: s["absent"] for s in doc["standings"]["table"]} == \
        {"a": 0, "b": 0, "crash": len(later), "gone": len(seats["gone"])}
    assert {s["bot"]: s["forfeits"] for s in doc["standings"]["table"]}["gone"] == len(seats["gone"])

    pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")
    from fastapi.testclient import TestClient

    from cardarena.server.web.app import create_app
    with TestClient(create_app(led)) as client:
        board = client.get(f"/games/{GAME}").text
        assert "/bots/gone" not in board and f"absent ×{len(later)}</span>" in board
        assert "<th>absent</th>" in client.get("/leagues/1").text
        m, s = seats["gone"][0]
        answer = client.get(f"/api/v1/matches/{m.id}").json()
        assert answer["seats"][s]["absent"] and answer["seats"][s]["forfeited"] and answer["absent"][s]
        assert "forfeited: absent" in client.get(f"/matches/{m.id}").text
    led.close()
