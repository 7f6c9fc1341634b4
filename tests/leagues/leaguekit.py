"""Helpers of the league tests: in-process random bots on a real Referee, and the real CLI.

In-process bots attach a :class:`~cardarena.server.referee.Link` to the referee and answer its
decisions from the link's outbox (``Link.get``), exactly as the gRPC servicer would deliver them, without a
network or a process: leagues of a dozen matches take a second or two. The kill-and-resume test
uses real processes instead (:func:`cli`).
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
from pathlib import Path

from cardarena.server.referee import Link, Referee, TimeControl
from cardarena.v1 import referee_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
CLI = [sys.executable, "-m", "cardarena.server.cli"]
GAME = "sixth-card"


async def _answer(referee: Referee, link: Link, rng: random.Random) -> None:
    while True:
        msg = await link.get()
        if msg is None:
            return
        if isinstance(msg, bytes):  # decisions travel in wire format, as the servicer sends them
            msg = pb.RefereeMessage.FromString(msg)
        if msg.WhichOneof("kind") == "decision":
            d = msg.decision
            referee.on_answer(link, pb.Answer(match_id=d.match_id, seat=d.seat, decision_id=d.decision_id,
                                              choice=rng.randrange(len(d.actions))))


@contextlib.asynccontextmanager
async def random_bots(referee: Referee, names, seed: int = 0):
    """Random bots connected to ``referee`` for the duration of the block."""
    links = [Link(n) for n in names]
    tasks = []
    for i, link in enumerate(links):
        referee.attach(link)
        tasks.append(asyncio.create_task(_answer(referee, link, random.Random(seed * 1000 + i))))
    try:
        yield links
    finally:
        for link in links:
            referee.detach(link)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def referee() -> Referee:
    return Referee(time_control=TimeControl(move_seconds=5.0))


def cli(*args: str, cwd: Path, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    """The `cardarena` command as a user runs it."""
    return subprocess.run([*CLI, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)


def example(name: str) -> str:
    return f"python {EXAMPLES / name}"
