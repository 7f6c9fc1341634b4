"""The conduct tests' harness (tests/faults/test_conduct.py, bench/conduct.py): a league as
`cardarena league run` plays it — a real referee on a free port, real bot processes, a real
ledger (the test's: tests/conftest.py ``ledger_url``) — with a real TCP proxy in front of the
bots that should suffer network cuts."""
from __future__ import annotations

import asyncio
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cardarena.ratings import Ledger
from cardarena.server import procs
from cardarena.server.league import LeagueSpec, run_league
from cardarena.server.referee import Referee
from cardarena.server.service import start_server

from proxy import Proxy

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"
RANDOM = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"


def own_log(records: list) -> str:
    """The captured log without grpc's own poller noise: a test process runs many event loops
    (``asyncio.run`` a test), and grpc.aio's completion-queue poller, bound to every loop it has
    met, may call back into one already closed ("Event loop is closed", grpc/grpc#25364). That is
    the test process's, not the referee's (a served referee runs one loop); every other record,
    a traceback of asyncio's about our own tasks included, stays."""
    def grpc_poller(r) -> bool:
        return (r.name == "asyncio" and "PollerCompletionQueue._handle_events" in r.getMessage()
                and r.exc_info is not None and isinstance(r.exc_info[1], (RuntimeError, BlockingIOError)))
    fmt = logging.Formatter("%(levelname)s %(name)s %(message)s")
    return "\n".join(fmt.format(r) for r in records if not grpc_poller(r))


def bot_script(name: str) -> str:
    return f"{sys.executable} {BOTS / name}"


@dataclass
class Played:
    ledger: Ledger
    league_id: int
    referee: Referee
    proxy: Proxy | None
    procs: dict[str, procs.BotProcess]
    elapsed: float
    alive: dict[str, bool]  # which bot processes were still running when the league ended

    def matches(self):
        return [self.ledger.match(m.id) for m in self.ledger.league_matches(self.league_id)]

    def seats_of(self, bot: str):
        return [(m, m.bots.index(bot)) for m in self.matches() if bot in m.bots]


def league(tmp_path: Path, bots: dict[str, str], *, db: str | None = None, seats: int, move: float, grace: float = 2.0,
           matches: int | None = None, concurrency: int = 4, options=None, via_proxy=(), during=None,
           referee: Referee | None = None, env=None, timeout: float = 120,
           max_reconnects: int | None = None) -> Played:
    """A league of ``bots`` (name → command) on the ledger ``db`` (by default a SQLite file in
    ``tmp_path``), as `cardarena league run` plays it; the bots in ``via_proxy`` connect
    through a TCP proxy; ``during(referee, proxy)`` runs alongside."""
    ledger = Ledger(db or str(tmp_path / "conduct.db"))
    referee = referee or Referee()

    async def main():
        hosted = await start_server(referee)
        proxy = await Proxy(hosted.port).start() if via_proxy else None
        running = {}
        try:
            for name, command in bots.items():
                ledger.add_bot(name)
                address = proxy.address if name in via_proxy else hosted.address
                running[name] = procs.start_bot(name, command, address, referee.mint_session_token(name),
                                                tmp_path / "logs", extra_env={"PYTHONPATH": str(BOTS), **(env or {})})
            spec = LeagueSpec(game="sixth-card", bots=list(bots), seats=seats, matches=matches, seed=5,
                              concurrency=concurrency, move_seconds=move, options=options or {"rounds": 1},
                              start_timeout=60, grace_seconds=grace, max_reconnects=max_reconnects)
            t0 = time.monotonic()
            side = asyncio.create_task(during(referee, proxy)) if during else None
            league_id = await asyncio.wait_for(run_league(referee, ledger, spec), timeout)
            elapsed = time.monotonic() - t0
            if side is not None:
                side.cancel()
            alive = {n: p.returncode is None for n, p in running.items()}
            return Played(ledger, league_id, referee, proxy, running, elapsed, alive)
        finally:
            if proxy is not None:
                await proxy.close()
            for p in running.values():
                p.stop()
            await hosted.stop(0)

    return asyncio.run(main())


def assert_unaffected(played: Played, bad: str) -> None:
    for m in played.matches():
        assert m.status == "finished"
        for seat, bot in enumerate(m.bots):
            if bot != bad:
                why = [f for f in m.result_details.get("faults", []) if f["seat"] == seat]
                assert m.faults[seat] == 0 and not m.forfeited[seat], f"match {m.id}: {bot} is unaffected: {why}"
    assert played.ledger.check() == []


