"""Kill the `cardarena league run` process mid-league (SIGKILL to its process group, as a crash or a
power cut would stop it), then `cardarena league resume` from another folder: real CLI, real bot
processes, the test's ledger (a SQLite file; a PostgreSQL database under
CARDARENA_TEST_LEDGER=postgresql, tests/conftest.py). No match is
lost, played twice, or counted twice in the ratings; `ratings recompute` and `ledger check
--replay` agree."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from leaguekit import CLI, EXAMPLES, cli

from cardarena.ratings import Ledger
from cardarena.server.schedule import round_robin

BOTS = ["r1", "r2", "r3", "r4"]


def marked_pids(marker: str) -> list[int]:
    """The processes started by this test (their environment holds the marker)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if f"CARDARENA_TEST_MARK={marker}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def kill_marked(marker: str) -> None:
    for pid in marked_pids(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10
    while marked_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.05)


_ENGINES: dict = {}


def statuses(db: str) -> dict[str, int]:
    """Matches by status, read without writing anything (the CLI may be creating the tables);
    quickly, so that the moment to kill is not missed (one engine per database, kept)."""
    query = "SELECT status, count(*) FROM match GROUP BY status"
    if "://" in db:
        from sqlalchemy import create_engine, exc, text
        engine = _ENGINES.get(db) or _ENGINES.setdefault(db, create_engine(db))
        try:
            with engine.connect() as c:
                return dict(c.execute(text(query)).all())
        except exc.DBAPIError:
            return {}
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return dict(c.execute(query).fetchall())
    except sqlite3.Error:
        return {}


def test_a_league_killed_mid_play_resumes_from_the_ledger(tmp_path, ledger_url):
    home = tmp_path / "organizer"
    (home / "bots").mkdir(parents=True)
    shutil.copy(EXAMPLES / "random_bot.py", home / "bots" / "random_bot.py")
    db = ledger_url()
    marker = uuid.uuid4().hex
    env = {**os.environ, "CARDARENA_TEST_MARK": marker}
    bots = [a for b in BOTS for a in ("--bot", f"{b}=python bots/random_bot.py")]  # relative to home
    argv = [*CLI, "league", "run", "--game", "sixth-card", *bots, "--seats", "3", "--rounds", "2", "--seed", "21",
            "-j", "2", "--db", db, "--log-dir", str(tmp_path / "logs")]
    total = len(round_robin(BOTS, 3, 2, 21))  # 24
    proc = subprocess.Popen(argv, cwd=home, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the league ended before it could be killed"
            counts = statuses(db)
            if counts.get("finished", 0) >= 4 and counts.get("running", 0) >= 1:  # a match mid-play
                break
            time.sleep(0.01)
        else:
            raise AssertionError("no 4 matches recorded in 120 s")
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its referee, mid-league
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        kill_marked(marker)  # the bots live in their own sessions; without a referee they would retry for 30 s
        for engine in _ENGINES.values():
            engine.dispose()

    led = Ledger(db)
    (league,) = led.leagues()
    assert league.total == total
    assert league.counts["running"] >= 1, f"matches were being played when the process died: {league.counts}"
    assert 4 <= league.counts["finished"] < total
    assert league.settings["commands"] == {b: "python bots/random_bot.py" for b in BOTS}
    before = {m.id: (m.places, m.scores) for m in led.league_matches(league.id, "finished")}
    interrupted = {m.id: m.seed for m in led.league_matches(league.id, "running")}

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    try:
        r = cli("league", "resume", str(league.id), "--db", db, "--log-dir", str(tmp_path / "logs2"),
                cwd=elsewhere, env={"CARDARENA_TEST_MARK": marker})
    finally:
        kill_marked(marker)
    assert r.returncode == 0, r.stderr
    assert f"replaying {len(interrupted)} interrupted" in r.stderr
    assert f"league {league.id} finished: {total} matches" in r.stdout

    led = Ledger(db)
    matches = led.league_matches(league.id)
    assert [m.status for m in matches] == ["finished"] * total
    assert [m.seed for m in matches] == [p.seed for p in round_robin(BOTS, 3, 2, 21)], "the schedule as written"
    after = {m.id: (m.places, m.scores) for m in matches}
    assert all(after[mid] == res for mid, res in before.items()), "recorded matches are never played again"
    assert all(led.match(mid).seed == seed for mid, seed in interrupted.items())
    assert {row.bot: row.matches for row in led.ratings("sixth-card")} == {b: 18 for b in BOTS}
    assert sum(len(led.match(m.id).rating_changes) for m in matches) == total * 3, "each match rated once"
    assert led.check() == []
    assert sorted(p.name for p in next((tmp_path / "logs2").iterdir()).iterdir()) == [f"{b}.log" for b in BOTS]

    r = cli("match", "verify", "--league", str(league.id), "--db", db, cwd=elsewhere)
    assert r.returncode == 0 and f"all {total} finished matches verified" in r.stdout, r.stderr
    r = cli("league", "resume", str(league.id), "--db", db, cwd=elsewhere)
    assert r.returncode == 0 and "nothing to resume" in r.stdout
    r = cli("ratings", "recompute", "--db", db, cwd=elsewhere)
    assert r.returncode == 0 and "the stored ratings were already exact" in r.stdout, r.stdout + r.stderr
    r = cli("ledger", "check", "--replay", "--db", db, cwd=elsewhere)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK"), r.stdout + r.stderr
