"""Retention (ratings/ledger_prune.py, `cardarena ledger prune`, `serve --keep-logs`): old finished
matches lose their step and event logs and keep everything else. A league played by the example
bot programs through the real CLI, and ladder matches recorded beside it, are pruned with
`--older-than 0`: the logs are gone from the ledger, every result, rating, summary, seed, salt
and commitment is as it was, `ratings recompute` finds nothing to change, `match show`, `match
verify`, `ledger check`, the pages and the API say the match is pruned, and the SQLite file
shrinks. A match still running, scheduled, failed, or a rotation of a duplicate set still being
played is never pruned; `check` finds a prune that is not one; `serve --keep-logs` prunes at
start; a ledger of the schema before gains the column by `ledger upgrade`. On SQLite, and on
PostgreSQL in the suite's second pass.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from cardarena.ratings import Ledger, LedgerError, MatchPlan
from cardarena.ratings.ledger import database_url
from cardarena.ratings.models import utcnow
from cardarena.ratings.schema import HEAD
from cardarena.server.games import get
from cardarena.server.match import RandomBot, play_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
CLI = [sys.executable, "-m", "cardarena.server.cli"]
GAME = "sixth-card"
BOTS = ("ada", "bo", "cy")
SIZE = re.compile(r"ledger ([\d,]+) → ([\d,]+) bytes")


def record_ladder(led: Ledger, seed: int, finish: bool = True) -> int:
    """A ladder match of random bots played in-process and recorded as the arena records one."""
    mid = led.create_match(GAME, seed, {}, list(BOTS), kind="ladder", claim_for="test", lease_s=None)
    if finish:
        r = play_match(GAME, [RandomBot(seed + s) for s in range(len(BOTS))], seed=seed, match_id=str(mid))
        led.record_match(mid, scores=list(r.result.scores), places=list(r.result.places), faults=[0] * 3,
                         forfeited=[False] * 3, steps=r.steps,
                         events=[{"step": s, "seats": None if e.seats is None else sorted(e.seats), "data": e.data}
                                 for s, e in r.log],
                         result_details={"faults": [], "engine_version": get(GAME).engine_version})
    return mid


def logs(db: str) -> dict[int, tuple[int, int]]:
    """Each logged match's stored (steps, events) bytes, read with plain SQL."""
    engine = create_engine(database_url(db))
    try:
        with engine.connect() as c:
            return {m: (s, e) for m, s, e in c.execute(text("SELECT match_id, length(steps), length(events) "
                                                            "FROM match_log"))}
    finally:
        engine.dispose()


def exported(cli, match_id: int) -> dict:
    code, out, err = cli("match", "export", str(match_id))
    assert code == 0, err
    return json.loads(out)


def kept(d: dict) -> dict:
    """What pruning must not change of an exported match."""
    return {k: v for k, v in d.items() if k not in ("steps", "events", "pruned", "pruned_at")}


@pytest.fixture
def played(cli, db, tmp_path):
    """A round-robin league of the example bot programs (3 matches, played by `league run`) and 3
    ladder matches in ``db``; (league id, league match ids, ladder match ids)."""
    bots = [a for name, prog in zip(BOTS, ("heuristic_bot.py", "random_bot.py", "random_bot.py"))
            for a in ("--bot", f"{name}=python {EXAMPLES / prog}")]
    code, out, err = cli("league", "run", "--game", GAME, "--seats", "3", "--rounds", "1", *bots,
                         "--option", "rounds=1", "--log-dir", str(tmp_path / "logs"))
    assert code == 0, err
    led = Ledger(db)
    (league,) = led.leagues()
    league_ids = [m.id for m in led.league_matches(league.id, "finished")]
    ladder_ids = [record_ladder(led, 100 + k) for k in range(3)]
    led.close()
    assert len(league_ids) == 3
    return league.id, league_ids, ladder_ids


def test_prune_drops_the_logs_and_keeps_results_ratings_and_deals(cli, db, played):
    league_id, league_ids, ladder_ids = played
    every = league_ids + ladder_ids
    before = {m: exported(cli, m) for m in every}
    assert all(d["steps"] and d["events"] and d["pruned"] is False and d["seed"] is not None for d in before.values())
    code, ratings_before, err = cli("ratings", "--format", "json")
    assert code == 0, err
    led = Ledger(db)
    summaries_before = {b: led.bot_summaries(b)[0] for b in BOTS}
    led.close()
    code, out, err = cli("match", "verify", str(ladder_ids[0]))
    assert code == 0 and "replay" in out and "pruned" not in out, out + err

    # the default kind is the ladder's: the league keeps its logs
    code, out, err = cli("ledger", "prune", "--older-than", "0")
    assert code == 0, err
    assert out.count("\n") == 1 and out.startswith("pruned 3 ladder matches finished before"), out
    first = SIZE.search(out)
    stored = logs(db)
    assert all(stored[m] == (0, 0) for m in ladder_ids) and all(min(stored[m]) > 0 for m in league_ids), stored
    code, out, err = cli("ledger", "prune", "--older-than", "0", "--kind", "all")
    assert code == 0 and out.startswith("pruned 3 matches finished before"), out + err
    assert logs(db) == {m: (0, 0) for m in every}  # the rows stay (their seq is the rating order), empty
    last = SIZE.search(out)
    assert first and last, out
    grown, shrunk = int(first.group(1).replace(",", "")), int(last.group(2).replace(",", ""))
    if db.endswith(".db"):  # SQLite: the file vacuumed
        assert "the SQLite file, vacuumed" in out
        assert shrunk < grown and os.path.getsize(db) == shrunk, (grown, shrunk)
    else:
        assert "PostgreSQL tables, vacuumed" in out and shrunk > 0

    # everything but the logs is as it was
    for m in every:
        d = exported(cli, m)
        assert d["pruned"] is True and d["pruned_at"] and d["steps"] == [] and d["events"] == []
        assert kept(d) == kept(before[m]), m
    code, ratings_after, err = cli("ratings", "--format", "json")
    assert code == 0 and ratings_after == ratings_before, err
    led = Ledger(db)
    assert {b: led.bot_summaries(b)[0] for b in BOTS} == summaries_before
    assert led.pruned_count() == 6
    led.close()
    code, out, err = cli("ratings", "recompute")
    assert code == 0 and "the stored ratings were already exact" in out, out + err
    code, ratings_recomputed, err = cli("ratings", "--format", "json")
    assert ratings_recomputed == ratings_before

    # each command says the match is pruned, and none calls it broken
    day = exported(cli, ladder_ids[0])["pruned_at"][:10]
    code, out, err = cli("match", "show", str(ladder_ids[0]))
    assert code == 0, err
    assert f"step log pruned on {day}" in out and re.search(r"place 1: seat \d \w+, score", out), out
    code, out, err = cli("match", "verify", str(league_ids[0]))
    assert code == 0, err
    assert f"match {league_ids[0]} is pruned" in out and "cannot be replayed" in out
    assert f"seed {before[league_ids[0]]['seed']} and salt {before[league_ids[0]]['deal_salt']}" in out
    code, out, err = cli("match", "verify", "--league", str(league_id))
    assert code == 0 and "3 finished matches" in out and "are pruned" in out, out + err
    code, out, err = cli("ledger", "check", "--replay")
    assert code == 0, out + err
    assert out.splitlines()[-1].startswith("ledger OK: 6 matches (6 finished (6 of them pruned")
    assert "6 finished matches" in out and "only their deals are checked" in out

    # the API and the pages
    from fastapi.testclient import TestClient
    from cardarena.server.web.app import create_app
    led = Ledger(db)
    with TestClient(create_app(led)) as client:
        m = ladder_ids[0]
        got = client.get(f"/api/v1/matches/{m}").json()
        assert got["pruned"] is True and got["steps"] == [] and got["events"] == [] and got["places"]
        assert got["deal_commitment"] == before[m]["deal_commitment"] and got["seed"] == before[m]["seed"]
        assert all(x["pruned"] for x in client.get("/api/v1/matches").json())
        page = client.get(f"/matches/{m}")
        assert page.status_code == 200 and f"step log pruned on {day}" in page.text
        assert f'href="/matches/{m}/replay"' not in page.text
        for url in (f"/matches/{m}/replay", f"/api/v1/matches/{m}/steps/0"):
            gone = client.get(url)
            assert gone.status_code == 410 and "pruned" in gone.text, (url, gone.text)
    led.close()


def test_a_match_not_finished_or_whose_deal_is_not_spent_is_never_pruned(ledger_url):
    led = Ledger(ledger_url())
    for b in BOTS:
        led.add_bot(b)
    running = record_ladder(led, 1, finish=False)
    scheduled = led.create_match(GAME, 2, {}, list(BOTS), kind="ladder")
    failed = record_ladder(led, 3, finish=False)
    led.fail_match(failed, "unplayed: the server stopped")
    league = led.create_league(GAME, {}, {}, [MatchPlan(0, k, 10, list(BOTS), duplicate_set=0) for k in range(2)])
    first, second = (m.id for m in led.league_matches(league))
    led.claim_match(first)
    r = play_match(GAME, [RandomBot(s) for s in range(3)], seed=10)
    result = dict(scores=list(r.result.scores), places=list(r.result.places), faults=[0] * 3,
                  forfeited=[False] * 3, steps=r.steps, events=[])
    led.record_match(first, **result)
    done = record_ladder(led, 4)
    assert led.prune(0, None).ids == [done]  # the finished rotation's deal deals its sibling too
    assert not any(led.match(m).pruned for m in (running, scheduled, failed, first, second))
    assert led.prune(0, None).ids == []  # pruned once
    led.claim_match(second)
    led.record_match(second, **result)
    assert led.prune(0, "ladder").ids == [] and sorted(led.prune(0, "league").ids) == [first, second]
    # the age is the finish time's
    late = record_ladder(led, 5)
    assert led.prune(1).ids == []
    assert led.prune(1, now=utcnow() + timedelta(days=1, minutes=1)).ids == [late]
    for bad in (-1, float("nan"), float("inf"), True):
        with pytest.raises(LedgerError, match="number of days"):
            led.prune(bad)
    with pytest.raises(LedgerError, match="kind is one of"):
        led.prune(0, "friendly")
    assert led.check() == []
    led.close()


def test_check_finds_a_prune_that_is_not_one(ledger_url):
    led = Ledger(ledger_url())
    for b in BOTS:
        led.add_bot(b)
    emptied, marked, running = record_ladder(led, 1), record_ladder(led, 2), record_ladder(led, 3, finish=False)
    assert led.check() == []
    with led.engine.begin() as c:
        c.execute(text("UPDATE match_log SET steps = :e, events = :e WHERE match_id = :m"), {"e": b"", "m": emptied})
        c.execute(text("UPDATE match SET pruned_at = CURRENT_TIMESTAMP WHERE id IN (:a, :b)"), {"a": marked, "b": running})
    problems = led.check()
    assert f"match {emptied} has an empty log but is not marked pruned" in problems
    assert f"match {marked} is marked pruned but still has its log" in problems
    assert f"match {running} is pruned but running or its deal not spent" in problems
    led.close()


def test_the_web_of_the_pruning_process_forgets_what_it_kept(ledger_url):
    """A finished match's page is kept as drawn; the server that prunes it drops what it kept."""
    from fastapi.testclient import TestClient
    from cardarena.server.retention import Keeper
    from cardarena.server.web.app import create_app
    from cardarena.server.web.replay import forget
    led = Ledger(ledger_url())
    for b in BOTS:
        led.add_bot(b)
    m = record_ladder(led, 7)
    app = create_app(led)
    with TestClient(app) as client:
        assert f'href="/matches/{m}/replay"' in client.get(f"/matches/{m}").text
        assert client.get(f"/api/v1/matches/{m}").json()["pruned"] is False
        assert client.get(f"/api/v1/matches/{m}/steps/1").status_code == 200
        pruned = Keeper(led, 0, say=print).once()
        assert pruned.ids == [m]
        assert client.get(f"/api/v1/matches/{m}").json()["pruned"] is False  # as kept, until forgotten
        forget(app, pruned.ids)
        assert client.get(f"/api/v1/matches/{m}").json()["pruned"] is True
        assert "step log pruned" in client.get(f"/matches/{m}").text
        assert client.get(f"/api/v1/matches/{m}/steps/1").status_code == 410
    led.close()


@pytest.mark.parametrize("argv, words", [
    (["ledger", "prune", "--older-than", "-1"], ["--older-than", "cannot be negative"]),
    (["ledger", "prune", "--older-than", "nan"], ["--older-than", "finite"]),
    (["ledger", "prune", "--older-than", "x"], ["--older-than"]),
    (["ledger", "prune"], ["--older-than"]),
    (["ledger", "prune", "--older-than", "1", "--kind", "friendly"], ["--kind", "ladder, league, match, all"]),
    (["serve", "--keep-logs", "-1"], ["--keep-logs", "finite number of days"]),
    (["serve", "--keep-logs", "inf"], ["--keep-logs"]),
])
def test_bad_arguments_are_one_line_and_exit_2(cli, db, argv, words):
    code, out, err = cli(*argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("cardarena: "), err
    assert all(w in lines[0] for w in words), err


def test_serve_keep_logs_prunes_the_ladder_at_start(db, tmp_path):
    led = Ledger(db)
    for b in BOTS:
        led.add_bot(b)
    ladder = [record_ladder(led, 20 + k) for k in range(2)]
    led.close()
    proc = subprocess.Popen([*CLI, "serve", "--db", db, "--address", "127.0.0.1:0", "--no-web", "--keep-logs", "0"],
                            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "CARDARENA_ADMIN_TOKEN": "test-admin-token"})
    seen = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if "keep-logs: pruned" in line:
                break
        assert any("keep-logs: pruned the step logs of 2 ladder matches" in s for s in seen), seen
        proc.send_signal(signal.SIGTERM)
        seen += proc.stderr.readlines()  # to its end: the server stopped
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not any("Traceback" in s for s in seen), seen
    assert logs(db) == {m: (0, 0) for m in ladder}
    led = Ledger(db)
    assert all(led.match(m).pruned for m in ladder) and led.check() == []
    led.close()


def test_a_ledger_of_the_schema_before_gains_the_column_by_upgrade(ledger_url):
    from alembic import command
    from cardarena.ratings.schema import _config
    where = ledger_url()
    Ledger(where).close()
    engine = create_engine(database_url(where))
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0005")
    with engine.connect() as conn:
        assert "pruned_at" not in {c["name"] for c in inspect(conn).get_columns("match")}
    assert Ledger.upgrade(where) == ("0005", HEAD)
    with engine.connect() as conn:
        assert "pruned_at" in {c["name"] for c in inspect(conn).get_columns("match")}
        assert "ix_match_prune" in {i["name"] for i in inspect(conn).get_indexes("match")}
    engine.dispose()
    led = Ledger(where)
    for b in BOTS:
        led.add_bot(b)
    m = record_ladder(led, 1)
    assert led.prune(0).ids == [m] and led.check() == []
    led.close()
