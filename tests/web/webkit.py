"""Helpers the web tests import (a module of its own: ``from conftest import …`` would find
whichever tests folder's conftest was imported last): the `cardarena` command as a user runs it,
and a match of random bots recorded as a league records it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "cardarena.server.cli"]


def record_played(led, game: str, bots: list[str], seed: int):
    """A match of random bots played in-process and recorded in ``led`` as a league records it;
    (its id, the MatchRecord)."""
    from cardarena.server.games import get
    from cardarena.server.match import RandomBot, play_match
    n = len(bots)
    r = play_match(game, [RandomBot(seed + s) for s in range(n)], seed=seed)
    mid = led.create_match(game, seed, r.options, bots)
    led.claim_match(mid)
    led.record_match(mid, scores=list(r.result.scores), places=list(r.result.places), faults=[0] * n,
                     forfeited=[False] * n, steps=r.steps,
                     events=[{"step": s, "seats": None if e.seats is None else sorted(e.seats), "data": e.data}
                             for s, e in r.log],
                     result_details={"faults": [], "engine_version": get(game).engine_version})
    return mid, r


def cardarena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The `cardarena` command as a user runs it; fails the test on a non-zero exit."""
    r = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    return r
