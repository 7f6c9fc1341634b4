"""The live tests' harness (tests/web/test_live*.py): a referee and the web app served as
`cardarena serve` serves them, in one asyncio loop in a thread (grpc.aio via
``service.start_server``, uvicorn as a task of the loop via ``web.host.start``), over the test's
ledger (:data:`new_ledger`: a SQLite file, or PostgreSQL under CARDARENA_TEST_LEDGER), with real
bot processes (tests/bots/slow_bot.py, thinking ``think`` seconds a decision) playing one-match
leagues over gRPC.

``LiveSite(tmp_path, **create_app's keywords)``; ``LiveSite.league(game, bots, options)`` starts the bots and the league on the loop and returns
a ``concurrent.futures.Future`` of the league id; ``wait_listed()`` waits until /api/v1/live lists
a match; ``read_stream(path)`` reads a server-sent event stream to its end, each event with its
raw bytes as received.
"""
from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import httpx

from cardarena.ratings import Ledger
from cardarena.server import procs
from cardarena.server.league import LeagueSpec, run_league
from cardarena.server.referee import Referee
from cardarena.server.service import start_server

ROOT = Path(__file__).resolve().parents[2]
SLOW_BOT = ROOT / "tests" / "bots" / "slow_bot.py"


@dataclass(frozen=True)
class SSE:
    """One server-sent event: its name, id, data (parsed) and the bytes received for it."""

    event: str
    id: str | None
    data: dict
    raw: bytes


def parse_events(body: bytes) -> list[SSE]:
    out = []
    for block in body.split(b"\n\n"):
        if not block.strip():
            continue
        fields: dict[str, str] = {}
        for line in block.decode("utf-8").split("\n"):
            name, _, value = line.partition(": ")
            fields[name] = value
        out.append(SSE(fields.get("event", "message"), fields.get("id"), json.loads(fields.get("data", "null")),
                       block))
    return out


#: ``new_ledger(folder, name) -> URL``, how a LiveSite makes its ledger: tests/conftest.py's
#: ``new_ledger``, put here for every web test by tests/web/conftest.py.
new_ledger: Callable[[Path, str], str] = lambda folder, name: str(folder / f"{name}.db")


class LiveSite:
    """A referee and the web app in one event loop in a thread, over a fresh ledger."""

    def __init__(self, tmp_path: Path, **app_options):
        self.tmp = tmp_path
        self.app_options = app_options  # create_app's keywords: live_pace, spectator_delay
        self.ledger = Ledger(new_ledger(tmp_path, "live"))
        self.referee = Referee()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="live-loop", daemon=True)
        self.bots: list[procs.BotProcess] = []
        self.url = ""

    def call(self, coro) -> Future:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def start(self) -> "LiveSite":
        self.thread.start()
        self.call(self._host()).result(30)
        return self

    async def _host(self) -> None:
        from cardarena.server.web import host
        from cardarena.server.web.app import create_app
        self.grpc = await start_server(self.referee)
        self.app = create_app(self.ledger, self.referee, **self.app_options)  # on the loop's thread, as serve does
        self.web = await host.start(self.app, host.bind("127.0.0.1:0"))
        self.url = self.web.url.rstrip("/")

    def league(self, game: str, bots: list[str], options: dict, think: float = 0.02, seed: int = 1) -> Future:
        """A one-match league of ``bots`` (slow_bot.py programs) on the loop; its id, once played."""
        async def play() -> int:
            for name in bots:
                self.ledger.add_bot(name)
                self.bots.append(procs.start_bot(name, f"{sys.executable} {SLOW_BOT}", self.grpc.address,
                                                 self.referee.mint_session_token(name), self.tmp / "logs",
                                                 extra_env={"CARDARENA_THINK": str(think)}))
            spec = LeagueSpec(game=game, bots=list(bots), seats=len(bots), matches=1, seed=seed,
                              move_seconds=10, options=options, start_timeout=20)
            return await run_league(self.referee, self.ledger, spec)
        return self.call(play())

    def get(self, path: str, **kw) -> httpx.Response:
        return httpx.get(self.url + path, timeout=30, **kw)

    def wait_listed(self, timeout: float = 30) -> dict:
        """The first running match /api/v1/live lists (waits for one)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = self.get("/api/v1/live").json()
            if listed:
                return listed[0]
            time.sleep(0.05)
        raise AssertionError("no match was listed as running")

    def read_stream(self, path: str) -> tuple[httpx.Response, list[SSE]]:
        """A server-sent event stream read to its end (the server closes it)."""
        with httpx.stream("GET", self.url + path, timeout=30) as r:
            body = b"".join(r.iter_raw()) if r.status_code == 200 else r.read()
        return r, parse_events(body) if r.status_code == 200 else []

    def stop(self) -> None:
        async def down():
            await self.web.stop()
            await self.grpc.stop(0)
        try:
            self.call(down()).result(30)
        finally:
            procs.stop_all(self.bots)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.ledger.close()
