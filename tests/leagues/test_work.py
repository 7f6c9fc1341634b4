"""Several workers, one league: `cardarena league run` plus `cardarena league
work` processes on one ledger, each with its own referee and its own bot processes; matches are
claimed on leases (docs/ledger.md "Leases", server/league.py "Several workers").

* A worker SIGKILLed mid-match loses its leases; the other workers replay its matches from their
  seeds once the leases run out: every match is played and recorded once, ``ledger check
  --replay`` is clean, and ``ratings recompute`` finds the ratings exact.
* A worker whose database goes away for a few seconds (the PostgreSQL server stopped and started
  again) waits, tries again, and loses no result.
* In the ledger (the test's ledger: SQLite, and PostgreSQL under CARDARENA_TEST_LEDGER): a worker whose lease ran out and was taken over cannot
  record (its result is dropped, the match counts once), nor renew, fail or release the match; a
  claim it holds but does not play is put back; a claim without a lease is never taken over.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid

import pytest
from leaguekit import CLI, EXAMPLES, cli
from sqlalchemy import create_engine, text
from test_kill_resume import kill_marked, statuses

from cardarena.ratings import Ledger, LedgerError, MatchPlan
from cardarena.server.schedule import round_robin

BOTS = ["r1", "r2", "r3", "r4"]
RESULT = dict(scores=[1.0, 2.0, 3.0], places=[1, 2, 3], faults=[0, 0, 0], forfeited=[False] * 3,
              steps=[{0: 0, 1: 0, 2: 0}], events=[])


def rows(db: str, query: str) -> list[tuple]:
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as c:
            return [tuple(r) for r in c.execute(text(query))]
    finally:
        engine.dispose()


def workers_of(db: str, status: str) -> dict[int, str]:
    """Match id → the worker that holds (or recorded) it, for the matches of one status."""
    return dict(rows(db, f"SELECT id, worker FROM match WHERE status = '{status}'"))


def start(argv, cwd, marker: str) -> subprocess.Popen:
    """A CLI process in its own process group, its bots marked for :func:`kill_marked`."""
    return subprocess.Popen([*CLI, *argv], cwd=cwd, env={**os.environ, "CARDARENA_TEST_MARK": marker},
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(what: str, ready, procs=(), timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = ready()
        if got:
            return got
        for p in procs:
            assert p.poll() is None, f"a worker ended before {what}: {p.communicate()}"
        time.sleep(0.02)
    raise AssertionError(f"not {what} in {timeout} s")


def finish(proc: subprocess.Popen, timeout: float = 180) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


#: A random bot that thinks 30 ms a decision, so that a match lasts long enough (a second or
#: two) for the workers that join to find matches left, and for a worker to die mid-match.
SLOW_BOT = """import random, time
from cardarena.client import run

def decide(decision):
    time.sleep(0.03)
    return random.randrange(len(decision))

run(decide)
"""


def organizer(tmp_path):
    home = tmp_path / "organizer"
    (home / "bots").mkdir(parents=True)
    shutil.copy(EXAMPLES / "random_bot.py", home / "bots" / "random_bot.py")
    (home / "bots" / "slow_bot.py").write_text(SLOW_BOT)
    return home


def assert_exact(db: str, cwd, total: int) -> None:
    """Every match recorded once, the ledger healthy, the ratings those a recompute gives."""
    led = Ledger(db)
    (league,) = led.leagues()
    assert league.counts == {"scheduled": 0, "running": 0, "finished": total, "failed": 0}
    assert rows(db, "SELECT count(*), count(DISTINCT match_id) FROM match_log") == [(total, total)]
    assert {row.bot: row.matches for row in led.ratings("sixth-card")} == {b: total * 3 // 4 for b in BOTS}
    assert led.check() == []
    led.close()
    r = cli("ledger", "check", "--replay", "--db", db, cwd=cwd)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK"), r.stdout + r.stderr
    r = cli("ratings", "recompute", "--db", db, cwd=cwd)
    assert r.returncode == 0 and "the stored ratings were already exact" in r.stdout, r.stdout + r.stderr


def test_three_workers_one_killed_mid_match_every_match_recorded_once(tmp_path, postgres_url):
    """`league run` and two `league work` (from another folder: the league's recorded commands
    run from the organizer's) on PostgreSQL; one worker's process group is SIGKILLed while it
    plays: its matches are replayed by the others after its lease (2 s), each recorded once.
    (On SQLite the same ledger code claims inside BEGIN IMMEDIATE; the ledger tests below run
    on both.)"""
    db, home = postgres_url, organizer(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    total = len(round_robin(BOTS, 3, 2, 5))  # 24
    markers = [uuid.uuid4().hex for _ in range(3)]
    bots = [a for b in BOTS for a in ("--bot", f"{b}=python bots/slow_bot.py")]
    run = start(["league", "run", "--game", "sixth-card", *bots, "--seats", "3", "--rounds", "2", "--seed", "5",
                 "-j", "2", "--lease", "2", "--db", db, "--log-dir", str(tmp_path / "logs")], home, markers[0])
    procs = [run]
    try:
        wait_for("the league is in the ledger", lambda: sum(statuses(db).values()) == total, procs)
        work = [start(["league", "work", "1", "--db", db, "-j", "2", "--lease", "2",
                       "--log-dir", str(tmp_path / f"logs{i}")], elsewhere, markers[i]) for i in (1, 2)]
        procs += work
        victim = work[0]
        me = f"{socket.gethostname()}:{victim.pid}"
        playing = wait_for("the victim plays a match after recording one", lambda: me in workers_of(db, "finished").values()
                           and [m for m, w in workers_of(db, "running").items() if w == me], procs)
        os.killpg(victim.pid, signal.SIGKILL)  # the worker, its recorder; its bots are in their own sessions
        victim.wait(10)
        kill_marked(markers[1])
        lost = [m for m, w in workers_of(db, "running").items() if w == me]
        assert lost, f"the victim held {playing} when killed"
        results = [finish(p) for p in (run, work[1])]
    finally:
        for p, marker in zip(procs, markers):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
            kill_marked(marker)
    for code, out, err in results:
        assert code == 0, out + err
    code, out, err = results[1]
    assert "joining as worker" in err and ("league 1 finished" in out or "league 1 stopped" in out), out + err
    assert_exact(db, elsewhere, total)
    finished = workers_of(db, "finished")
    survivors = {f"{socket.gethostname()}:{p.pid}" for p in (run, work[1])}
    assert all(finished[m] in survivors for m in lost), "the killed worker's matches were replayed by another"
    by_worker = {w: sum(1 for v in finished.values() if v == w) for w in set(finished.values())}
    assert set(by_worker) <= survivors | {me} and sum(by_worker.values()) == total
    worker2 = f"{socket.gethostname()}:{work[1].pid}"
    assert f"worker {worker2} played {by_worker.get(worker2, 0)} matches of league 1" in out


def test_a_worker_that_loses_the_database_for_a_while_goes_on(tmp_path, pg_cluster):
    """The PostgreSQL server is stopped (every connection cut) while `league run` plays, and
    started again 3 s later: the recorder tries again, and the league ends with every match
    recorded once (no result lost, none twice)."""
    db, home = pg_cluster.new_database(), organizer(tmp_path)
    marker = uuid.uuid4().hex
    total = len(round_robin(BOTS, 3, 1, 9))  # 12
    bots = [a for b in BOTS for a in ("--bot", f"{b}=python bots/random_bot.py")]
    run = start(["league", "run", "--game", "sixth-card", *bots, "--seats", "3", "--seed", "9", "-j", "2",
                 "--lease", "30", "--db", db, "--log-dir", str(tmp_path / "logs")], home, marker)
    try:
        wait_for("two matches recorded", lambda: statuses(db).get("finished", 0) >= 2, [run])
        pg_cluster.stop()
        try:
            time.sleep(3)  # the worker plays on; its records, claims and renewals wait
        finally:
            pg_cluster.start()
        code, out, err = finish(run)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(10)
        kill_marked(marker)
    assert code == 0, out + err
    assert "cannot be reached" in err and "the ledger is reached again" in err, err
    assert f"league 1 finished: {total} matches" in out
    assert_exact(db, tmp_path, total)


# ------------------------------------------------------------------------- the ledger's leases


def run_out(led: Ledger, match_id: int) -> None:
    """The lease on a match has run out (set in the past: no waiting in a test)."""
    with led.engine.begin() as c:
        c.execute(text("UPDATE match SET lease_until = :past WHERE id = :id"),
                  {"past": "2000-01-01 00:00:00", "id": match_id})


def test_a_worker_taken_over_after_its_lease_cannot_record_and_the_match_counts_once(led):
    league = led.create_league("sixth-card", {}, {}, [MatchPlan(0, i, i, ["a", "b", "c"]) for i in range(2)])
    first = led.claim_next(league, "w1", 30)
    assert led.claim_next(league, "w2", 30).id != first.id, "a live lease is not claimable"
    assert led.claim_next(league, "w2", 30) is None
    assert led.others_playing(league, "w2") == 1 and led.others_playing(league, "w1") == 1
    assert led.renew_leases("w1", [first.id], 30) == [first.id]
    run_out(led, first.id)
    taken = led.claim_next(league, "w2", 30)
    assert taken.id == first.id and taken.seed == first.seed, "replayed from its seed"
    assert led.renew_leases("w1", [first.id], 30) == [], "w1 no longer holds it"
    with pytest.raises(LedgerError, match="claimed by worker w2 once the lease of worker w1 had run out"):
        led.record_match(first.id, **RESULT, worker="w1")
    with pytest.raises(LedgerError, match="w1 is dropped"):
        led.fail_match(first.id, "late", worker="w1")
    assert not led.release_match(first.id, "w1")
    led.record_match(first.id, **RESULT, worker="w2")
    with pytest.raises(LedgerError, match="finished already, by this worker"):
        led.record_match(first.id, **RESULT, worker="w2")
    assert len(led.match(first.id).rating_changes) == 3 and led.check() == []
    assert {r.bot: r.matches for r in led.ratings()} == {"a": 1, "b": 1, "c": 1}


def test_a_claim_without_a_lease_is_never_taken_over(led):
    """The arena's and `play`'s claims (and those of a ledger before leases) wait for `league resume`."""
    league = led.create_league("sixth-card", {}, {}, [MatchPlan(0, 0, 1, ["a", "b", "c"])])
    m = led.claim_next(league)
    assert led.claim_next(league, "w2", 30) is None and led.others_playing(league, "w2") == 0
    assert led.reset_stale(league) == 1 and led.claim_next(league, "w2", 30).id == m.id


def test_a_claim_its_worker_does_not_play_is_put_back(led):
    """A claim whose commit went through while its answer was lost (the database cut off):
    ``release_unplayed`` puts it back, and leaves the matches the worker plays alone."""
    league = led.create_league("sixth-card", {}, {}, [MatchPlan(0, i, i, ["a", "b", "c"]) for i in range(2)])
    playing, lost = led.claim_next(league, "w1", 30), led.claim_next(league, "w1", 30)
    assert led.release_unplayed(league, "w1", playing=[playing.id]) == 1
    assert led.match(lost.id).status == "scheduled" and led.match(playing.id).status == "running"
    assert led.release_unplayed(league, "w2") == 0
