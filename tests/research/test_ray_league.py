"""`cardarena league run --bot NAME=py:… --ray ADDRESS`: a league of in-process Python bots on a
real two-node Ray cluster (loopback only, in namespaces of its own: tests/research/raykit.py),
through the real CLI, recorded in a SQLite ledger file. Its standings, and every match's seed,
seating and result, are those of the same league played without Ray; a Ray worker killed -9
while it plays a match, and then the second node's raylet, lose no match and count none twice
(every match recorded once, each equal to its replay in this process; `match verify` and
`ledger check --replay` pass); bad input is one line and exit 2 (a bad argument) or 1 (no
cluster at the address).

The cluster is made once for the module; the tests that use it are few and long, as
pytest-xdist may run each on a worker (and so a cluster) of its own."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import raykit

raykit.require_ray()

from cardarena.ratings import Ledger  # noqa: E402
from cardarena.research import ray_play  # noqa: E402
from cardarena.research.ray_league import load_bot  # noqa: E402
from cardarena.server import deal  # noqa: E402
from cardarena.server.schedule import round_robin  # noqa: E402

CLI = [sys.executable, "-m", "cardarena.server.cli"]
GAME = ["--game", "sixth-card", "--option", "rounds=1"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    yield from raykit.cluster_fixture(tmp_path_factory.mktemp("cluster"))


def cli(*args, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """The CLI here, outside the namespaces: no Ray is reached."""
    return subprocess.run([*CLI, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def standings(stdout: str) -> str:
    """The standings table a league prints (the ratings after it cover the whole ledger)."""
    start = stdout.index("standings (")
    return stdout[start:stdout.index("ratings for", start)]


def played(db: Path) -> list[tuple]:
    """Every match of league 1 in schedule order: its place in the schedule, seed, seating, result."""
    led = Ledger(str(db))
    return [(r.round, r.index, r.seed, r.status, r.bots, r.scores, r.places, r.faults)
            for r in sorted(led.league_results(1), key=lambda r: (r.round, r.index))]


def test_a_league_on_ray_is_the_league_played_here(cluster, tmp_path):
    nodes = tmp_path / "nodes.log"
    bots = ["--bot", "h=py:cardarena.research.ray_league:heuristic('sixth-card')",
            "--bot", "r1=py:cardarena.server.match:RandomBot(1)",
            "--bot", f"s5=py:{raykit.HERE}:SlowRandom(5, 0.01, {str(nodes)!r})",  # matches overlap: both nodes play
            "--bot", "r3=py:cardarena.server.match:RandomBot(3)"]
    args = ["league", "run", *GAME, "--seats", "3", *bots, "--seed", "11", "-j", "4"]
    here = cli(*args, "--db", tmp_path / "here.db", cwd=tmp_path)
    assert here.returncode == 0, here.stderr
    assert "played in this process" in here.stderr
    nodes.unlink()  # only the Ray league's copies say where they played

    on_ray = cluster.run([*CLI, *args, "--db", tmp_path / "ray.db", "--ray", cluster.address], cwd=tmp_path)
    assert on_ray["rc"] == 0, on_ray["err"]
    assert f"played on the Ray cluster at {cluster.address}" in on_ray["err"]
    assert "Traceback" not in on_ray["err"]
    total = len(round_robin(["h", "r1", "s5", "r3"], 3, 1, 11))
    assert f"league 1 finished: {total} matches." in on_ray["out"]
    assert standings(on_ray["out"]) == standings(here.stdout)
    assert played(tmp_path / "ray.db") == played(tmp_path / "here.db")
    where = {line.split()[0] for line in nodes.read_text().splitlines()}
    assert where == set(cluster_nodes(cluster, tmp_path)) and len(where) == 2, f"both nodes play: {where}"

    led = Ledger(str(tmp_path / "ray.db"))
    (league,) = led.leagues()
    assert league.settings["commands"]["h"] == "py:cardarena.research.ray_league:heuristic('sixth-card')"
    for m in led.league_matches(1):
        assert m.deal_commitment and deal.verify("sixth-card", m.id, m.seed, m.deal_salt, m.deal_commitment)
    r = cli("match", "verify", "--league", "1", "--db", tmp_path / "ray.db", cwd=tmp_path)
    assert r.returncode == 0 and f"all {total} finished matches verified" in r.stdout, r.stdout + r.stderr
    r = cli("ledger", "check", "--replay", "--db", tmp_path / "ray.db", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK"), r.stdout + r.stderr

    # the cluster's namespace holds loopback only (the agent checked that nothing else is reached)
    assert [line.split(":")[1].strip() for line in cluster.links.splitlines()] == ["lo"]
    # and no cluster at the address asked: one line, exit 1, nothing written
    r = cluster.run([*CLI, *args, "--db", tmp_path / "none.db", "--ray", "127.0.0.1:6390"], cwd=tmp_path)
    assert r["rc"] == 1, r
    assert r["err"].strip() == "cardarena: no Ray cluster answers at 127.0.0.1:6390: Connection refused"
    assert not (tmp_path / "none.db").exists()


def cluster_nodes(cluster, tmp_path) -> list[str]:
    """The ids of the cluster's live nodes, asked of it."""
    script = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='error'); "
              "print(' '.join(n['NodeID'] for n in ray.nodes() if n['Alive']))")
    r = cluster.run([sys.executable, "-c", script, cluster.address], cwd=tmp_path)
    assert r["rc"] == 0, r["err"]
    return r["out"].split()


def statuses(db: Path) -> dict[str, int]:
    """Matches by status, read without writing (the league may still be making its tables)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return dict(c.execute("SELECT status, count(*) FROM match GROUP BY status").fetchall())
    except sqlite3.Error:
        return {}


def wait_for(db: Path, finished: int, cluster, handle: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while statuses(db).get("finished", 0) < finished:
        if time.monotonic() > deadline:
            out = cluster.wait(handle, timeout=1)
            raise AssertionError(f"{finished} matches not recorded in {timeout} s: {statuses(db)}; {out}")
        time.sleep(0.02)


def test_a_killed_worker_and_a_lost_node_lose_no_match(cluster, tmp_path):
    names = ["s1", "s2", "s3", "s4"]
    bots = [a for i, n in enumerate(names, 1) for a in ("--bot", f"{n}=py:{raykit.HERE}:SlowRandom({i}, 0.02)")]
    db = tmp_path / "ray.db"
    total = len(round_robin(names, 2, 2, 0))  # 24
    handle = cluster.spawn([*CLI, "league", "run", *GAME, "--seats", "2", "--rounds", "2", *bots, "-j", "4",
                            "--db", db, "--ray", cluster.address], cwd=tmp_path)
    try:
        wait_for(db, 3, cluster, handle)
        deadline = time.monotonic() + 60
        while not cluster.kill("task"):  # a worker while it plays a match
            assert time.monotonic() < deadline, "no worker was playing a match"
            time.sleep(0.01)
        wait_for(db, 8, cluster, handle)
        assert len(cluster.kill("node2")) == 1  # its raylet: the node and its workers are lost
        assert statuses(db).get("finished", 0) < total, "the league was over before the node was lost"
        run = cluster.wait(handle, timeout=600)
    finally:
        cluster.restart_node2()  # for the module's other tests, whatever their order
    assert run["rc"] == 0, run["err"]
    assert "Traceback" not in run["err"] and "failed" not in run["err"], run["err"]
    assert f"league 1 finished: {total} matches." in run["out"], run["out"] + run["err"]

    led = Ledger(str(db))
    matches = led.league_matches(1)
    assert len(matches) == total and [m.status for m in matches] == ["finished"] * total
    assert len({m.id for m in matches}) == total
    assert {row.bot: row.matches for row in led.ratings("sixth-card")} == {n: 12 for n in names}
    assert sum(len(led.match(m.id).rating_changes) for m in matches) == total * 2, "each match rated once"
    # each match is the match its seed and seating give in this process, whoever played it
    copies = ray_play.pickled({n: load_bot(f"py:{raykit.HERE}:SlowRandom({i}, 0)") for i, n in enumerate(names, 1)})
    for m in matches:
        again = ray_play.play_recorded("sixth-card", copies, m.bots, m.seed, {"rounds": 1}, str(m.id))
        assert (list(again.result.scores), list(again.result.places)) == (m.scores, m.places), m.id
    assert led.check() == []
    r = cli("match", "verify", "--league", "1", "--db", db, cwd=tmp_path)
    assert r.returncode == 0 and f"all {total} finished matches verified" in r.stdout, r.stdout + r.stderr
    r = cli("ledger", "check", "--replay", "--db", db, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK"), r.stdout + r.stderr


RANDOM = "z=py:cardarena.server.match:RandomBot(9)"


@pytest.mark.parametrize("bots, extra, says", [
    (["a=py:no_such_module_here:Bot", RANDOM], [], "bot a: no Python module 'no_such_module_here'"),
    (["a=py:cardarena.server.match:NoSuchBot", RANDOM], [], "cardarena.server.match has no NoSuchBot"),
    (["a=py:cardarena.server.match:play_match", RANDOM], [], "is a function, not a bot"),
    (["a=py:cardarena.server.match:RandomBot(seed)", RANDOM], [], "the arguments must be Python literals"),
    (["a=python bot.py", "b=python bot.py"], ["--ray", "local"], "--ray plays the matches of in-process Python bots"),
    (["a=python bot.py", RANDOM], [], "a league plays Python bots in-process or bots over gRPC, not both"),
    (["a=py:cardarena.server.match:RandomBot(1)", RANDOM], ["--ray", "http://example.org:80"],
     "is none of local, auto, HOST:PORT"),
], ids=["module", "attr", "not-a-bot", "args", "ray-with-programs", "mixed", "address"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, bots, extra, says):
    (tmp_path / "bot.py").write_text("")
    r = cli("league", "run", *GAME, *[a for b in bots for a in ("--bot", b)], *extra, "--db", tmp_path / "x.db",
            cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
    assert not (tmp_path / "x.db").exists()
