"""cardarena.research.ray_play: many in-process matches of given policies, on a real two-node Ray
cluster (loopback only, in namespaces of its own: tests/research/raykit.py) and in this process,
with the same results: on two workers, on one, and here; each match the match its seed and
seating give, whatever the order the matches are played in; self-play; and the mistakes
(a policy that does not pickle, a table the game cannot seat) said in one line before anything
is played."""
from __future__ import annotations

import copy
import dataclasses
import json
import sys
import threading

import pytest
import raykit

raykit.require_ray()

from cardarena.research.ray_league import heuristic  # noqa: E402
from cardarena.research.ray_play import Played, Table, play_many, tables_of  # noqa: E402
from cardarena.server.match import RandomBot, play_match  # noqa: E402

OPTIONS = {"rounds": 1}

#: run inside the namespaces, a client of the cluster: the same matches on two workers and on one
SCRIPT = """
import dataclasses, json, sys
sys.path.insert(0, {kit!r})
import ray
import raykit
from cardarena.research.ray_league import heuristic
from cardarena.research.ray_play import Table, play_many
from cardarena.server.match import RandomBot

address, out = sys.argv[1:3]
bots = {{"h": heuristic("sixth-card"), "r": RandomBot(4), "s": raykit.SlowRandom(7)}}
got = {{}}
got["two"] = play_many("sixth-card", bots, range(30), seats=3, options={{"rounds": 1}}, address=address, chunk=2)
got["one"] = play_many("sixth-card", bots, range(30), seats=3, options={{"rounds": 1}}, address=address,
                       num_workers=1, chunk=7)
got["self"] = play_many("sixth-card", [raykit.SlowRandom(3)], [Table(s, (0, 0, 0, 0)) for s in (5, 6, 7)],
                        options={{"rounds": 1}}, address=address)
nodes = sorted({{n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}})
with open(out, "w") as f:
    json.dump({{"nodes": nodes, "cpus": ray.cluster_resources().get("CPU"),
               **{{k: [dataclasses.asdict(p) for p in v] for k, v in got.items()}}}}, f)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    yield from raykit.cluster_fixture(tmp_path_factory.mktemp("cluster"))


def bots() -> dict:
    return {"h": heuristic("sixth-card"), "r": RandomBot(4), "s": raykit.SlowRandom(7)}


def plain(results: list[Played]) -> list[dict]:
    return json.loads(json.dumps([dataclasses.asdict(p) for p in results]))


def test_matches_on_ray_are_the_matches_played_here(cluster, tmp_path):
    script = tmp_path / "many.py"
    script.write_text(SCRIPT.format(kit=str(raykit.HERE.parent)))
    r = cluster.run([sys.executable, script, cluster.address, tmp_path / "got.json"], cwd=tmp_path)
    assert r["rc"] == 0, r["err"]
    got = json.loads((tmp_path / "got.json").read_text())
    assert got["nodes"] == ["127.0.0.1"] and got["cpus"] == 2.0  # the two nodes, on loopback

    here = plain(play_many("sixth-card", bots(), range(30), seats=3, options=OPTIONS, in_process=True))
    assert got["two"] == here
    assert got["one"] == here
    assert [p["seating"] for p in here[:4]] == [["h", "r", "s"], ["r", "s", "h"], ["s", "h", "r"], ["h", "r", "s"]]
    assert len({tuple(p["places"]) for p in here}) > 1, "the seeds deal different matches"
    alone = plain(play_many("sixth-card", [raykit.SlowRandom(3)], [Table(s, (0, 0, 0, 0)) for s in (5, 6, 7)],
                            options=OPTIONS, in_process=True))
    assert got["self"] == alone
    assert [p["seed"] for p in alone] == [5, 6, 7] and all(len(p["places"]) == 4 for p in alone)


def test_a_match_depends_on_its_seed_and_seating_alone():
    forward = play_many("sixth-card", bots(), range(12), seats=2, options=OPTIONS, in_process=True)
    backward = play_many("sixth-card", bots(), [Table(p.seed, p.seating) for p in reversed(forward)],
                         options=OPTIONS, in_process=True)
    assert list(reversed(backward)) == forward
    for p in forward[:3]:  # each seat a fresh copy of its policy, as play_match plays it
        fresh = [copy.deepcopy(bots()[k]) for k in p.seating]
        rec = play_match("sixth-card", fresh, p.seed, OPTIONS)
        assert (rec.result.scores, rec.result.places, rec.decisions) == (p.scores, p.places, p.decisions)


def test_tables_of_matches():
    assert tables_of(3, ["a", "b"]) == [Table(0, ("a", "b")), Table(1, ("a", "b")), Table(2, ("a", "b"))]
    assert tables_of([9, 4], ["a", "b", "c"], seats=2) == [Table(9, ("a", "b")), Table(4, ("b", "c"))]
    with pytest.raises(ValueError, match="match 0 seats 'x', which is not one of the policies"):
        tables_of([Table(1, ("a", "x"))], ["a", "b"])


class Locked:
    """A bot holding a lock: it cannot be pickled, so it cannot go to a worker."""

    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, decision) -> int:
        return 0


@pytest.mark.parametrize("policies, matches, kwargs, error, says", [
    ({"a": Locked(), "b": RandomBot(1)}, 2, {}, TypeError, "policy 'a' does not pickle"),
    ({"a": 7, "b": RandomBot(1)}, 2, {}, TypeError, "policy 'a' is not a bot"),
    ([RandomBot(1)], 2, {"seats": 11}, ValueError, "sixth-card is for 2–10 players, not 11"),
    ([RandomBot(1)], 2, {"seats": 2, "num_workers": 0}, ValueError, "num_workers must be at least 1"),
], ids=["unpicklable", "not-a-bot", "seats", "workers"])
def test_mistakes_are_said_before_any_match(policies, matches, kwargs, error, says):
    with pytest.raises(error, match=says):
        play_many("sixth-card", policies, matches, options=OPTIONS, **kwargs)
