"""A league harness for misbehaving bots: a real referee on a free port, real bot processes,
the test's ledger (tests/conftest.py ``ledger_url``), and the league runner — as `cardarena
league run` does, with short clocks."""
from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardarena.ratings import Ledger
from cardarena.server import procs
from cardarena.server.league import LeagueSpec, run_league
from cardarena.server.referee import Referee
from cardarena.server.service import start_server

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"
GOOD = ["good-1", "good-2", "good-3"]


@dataclass
class LeagueRun:
    ledger: Ledger
    league_id: int
    bad: str
    tokens: list[str]
    log_text: str

    def matches(self):
        return [self.ledger.match(m.id) for m in self.ledger.league_matches(self.league_id)]


def play_league(tmp_path: Path, db: str, bad_script: str, *, move=1.0, grace=1.0, start_timeout=4.0,
                max_faults=3, max_reconnects=None, caplog=None) -> LeagueRun:
    """Three good random bots and one bad one, tables of 3: 12 short Sixth Card matches.

    Load must not fault a good bot: they are waited for (up to a minute) before the league
    starts, so ``start_timeout`` is the bad bot's alone, and the move time (1 s) is a few
    hundred times a random bot's answer."""
    ledger = Ledger(db)
    bad = "bad"
    tokens: list[str] = []

    async def main():
        referee = Referee()
        hosted = await start_server(referee)
        running = []
        try:
            for name in GOOD:
                token = referee.mint_session_token(name)
                tokens.append(token)
                running.append(procs.start_bot(name, f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}",
                                               hosted.address, token, tmp_path / "logs"))
            token = referee.mint_session_token(bad)
            tokens.append(token)
            running.append(procs.start_bot(bad, f"{sys.executable} {BOTS / bad_script}", hosted.address, token,
                                           tmp_path / "logs", extra_env={"PYTHONPATH": str(BOTS)}))
            for name in [*GOOD, bad]:
                ledger.add_bot(name)
            missing = await referee.wait_for_bots(GOOD, 60)
            assert not missing, f"the good bots {missing} did not connect within a minute"
            spec = LeagueSpec(game="sixth-card", bots=[*GOOD, bad], seats=3, rounds=1, seed=3, concurrency=4,
                              move_seconds=move, options={"rounds": 1}, start_timeout=start_timeout,
                              grace_seconds=grace, max_faults=max_faults, max_reconnects=max_reconnects)
            return await asyncio.wait_for(run_league(referee, ledger, spec), 120)
        finally:
            for p in running:
                p.stop()
            await hosted.server.stop(0)

    league_id = asyncio.run(main())
    log_text = caplog.text if caplog is not None else ""
    return LeagueRun(ledger, league_id, bad, tokens, log_text)


@pytest.fixture
def league(tmp_path, ledger_url, caplog):
    caplog.set_level(logging.DEBUG, logger="cardarena")

    def run(bad_script: str, **kw) -> LeagueRun:
        return play_league(tmp_path, ledger_url(), bad_script, caplog=caplog, **kw)
    return run
