"""Helpers of the arena's end-to-end tests (test_ladder.py): a real `cardarena serve --ladder`
process on the test's ledger (a SQLite file, or PostgreSQL under CARDARENA_TEST_LEDGER:
tests/conftest.py's ``new_ledger``), bots joining through `cardarena bot connect` in their own
process groups, and what the ledger says about the ladder matches.

Every process writes its output to a log file of the test's folder; a failed wait says what it
waited for and lists the ladder matches."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from e2ekit import CLI, ROOT, cardarena  # noqa: E402

from cardarena.ratings import Ledger  # noqa: E402

ADMIN = "admin-token-of-the-arena-tests"
HERE = Path(__file__).resolve().parent
PY_BOT = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
PY_HEURISTIC = f"python {ROOT / 'examples' / 'python' / 'heuristic_bot.py'}"
SH_BOT = f"cardarena bridge -- bash {ROOT / 'examples' / 'bridge' / 'random_bot.sh'}"
FAULTY_SH_BOT = f"cardarena bridge -- bash {HERE / 'faulty_bot.sh'}"
NODE_BOT = f"node {ROOT / 'examples' / 'node' / 'random_bot.js'}"
LISTENING = re.compile(r"listening on (\S+:\d+)")


def need(tools: str, missing: list[str]) -> None:
    """Skip here without ``missing``; under CI (the variable CI set) fail instead, as tests/e2e does."""
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide {tools}; missing: {', '.join(missing)}")
        pytest.skip(f"not here: {', '.join(missing)} (run `make examples`)")


def need_bridge() -> None:
    need("bash and jq (the bridge's example bots)", [t for t in ("bash", "jq") if shutil.which(t) is None])


def need_node() -> None:
    """node, and the helper's packages where node finds them (`make examples` installs them)."""
    if shutil.which("node") is None:
        need("node (the Node.js bots)", ["node"])
    found = subprocess.run(["node", "-e", "require('@grpc/grpc-js'); require('@grpc/proto-loader')"],
                           cwd=ROOT / "clients" / "node", capture_output=True)
    need("the Node.js helper's packages", [] if found.returncode == 0 else ["clients/node/node_modules"])


def utc(when: datetime) -> datetime:
    """A time read from the ledger as an aware UTC datetime (SQLite gives naive ones)."""
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def wait_for(what: str, check: Callable[[], Any], timeout: float = 40.0, every: float = 0.2,
             explain: Callable[[], str] = lambda: "") -> Any:
    """Poll ``check()`` until it returns something true, and return that; past ``timeout``
    seconds (a guard against hanging, never a measure of speed) fail, saying ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s\n{explain()}")
        time.sleep(every)


@dataclass
class Served:
    """One `cardarena serve` of a test: start it, stop it (any signal), start it again on the
    same address and ledger. Its ladders play without a pace (``--rate 0``) unless ``args`` give
    ``--rate``: the tests here are about other things (test_pace.py is about the pace)."""
    workdir: Path
    db: str  # the ledger's path or URL
    args: Sequence[str]
    address: str = "127.0.0.1:0"
    proc: subprocess.Popen | None = None
    starts: int = 0
    log_path: Path | None = None

    def start(self) -> "Served":
        self.starts += 1
        self.log_path = self.workdir / f"serve-{self.starts}.log"
        pace = [] if "--rate" in self.args else ["--rate", "0"]
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [*CLI, "serve", "--db", self.db, "--address", self.address, "--no-web", *pace, *self.args],
                env={**os.environ, "CARDARENA_ADMIN_TOKEN": ADMIN}, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.workdir, start_new_session=True)
        found = wait_for("the server listening", self._listening, timeout=30, explain=self.log)
        self.address = found.group(1)  # the port it got (port 0), kept for a restart
        return self

    def _listening(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited ({self.proc.returncode}):\n{self.log()}")
        return LISTENING.search(self.log())

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send ``sig`` and wait for the exit; the exit code."""
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(f"the server did not exit within {timeout:g} s of {signal.Signals(sig).name}:\n"
                                 f"{self.log()}") from None

    def cli(self, *args: str, remote: bool = False) -> subprocess.CompletedProcess:
        """A `cardarena` command on this server's ledger, or (``remote``) through its admin service."""
        where = ["--server", self.address] if remote else ["--db", self.db]
        return cardarena(*args, *where, cwd=self.workdir, env={"CARDARENA_ADMIN_TOKEN": ADMIN}, timeout=180)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Bots:
    """Registered bots, each run by its own `cardarena bot connect` (its own process group)."""

    def __init__(self, served: Served):
        self.served = served
        self.tokens: dict[str, str] = {}
        self.procs: dict[str, subprocess.Popen] = {}
        self.games: dict[str, tuple[str, ...]] = {}  # what each bot claims; () is every game
        self.max_matches: dict[str, int] = {}        # what each bot asks; 0 is the server's limit

    def add(self, *names: str) -> None:
        ledger = Ledger(self.served.db)
        for name in names:
            self.tokens[name] = ledger.add_bot(name)[1]

    def connect(self, name: str, command: str, *, games: Sequence[str] = (), max_matches: int = 0,
                env: dict[str, str] | None = None) -> None:
        """`cardarena bot connect [--game G …] [--max-matches N] -- COMMAND` with the bot's token
        (and ``env`` added to its environment)."""
        self.games[name], self.max_matches[name] = tuple(games), max_matches
        argv = [*CLI, "bot", "connect", "--address", self.served.address, "--max-matches", str(max_matches)]
        for g in games:
            argv += ["--game", g]
        with open(self.served.workdir / f"{name}.log", "a") as log:
            self.procs[name] = subprocess.Popen([*argv, "--", *command.split()], stdout=log, stderr=subprocess.STDOUT,
                                                env={**os.environ, **(env or {}), "CARDARENA_TOKEN": self.tokens[name]},
                                                cwd=self.served.workdir, start_new_session=True)

    def claims(self, name: str, game: str) -> bool:
        return not self.games[name] or game in self.games[name]

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


class Ladders:
    """What the ledger says of the ladder matches (a fresh read each call)."""

    def __init__(self, db: str):
        self.ledger = Ledger(db)

    def matches(self, status: str | None = None):
        return self.ledger.matches(kind="ladder", status=status, limit=None)

    def played(self, after_id: int = 0) -> Counter:
        """Finished ladder matches per (bot, game), of ids above ``after_id``."""
        return Counter((b, m.game) for m in self.matches("finished") if m.id > after_id for b in set(m.bots))

    def played_by(self, bot: str, after_id: int = 0) -> int:
        return sum(n for (b, _), n in self.played(after_id).items() if b == bot)

    def last_id(self) -> int:
        return max((m.id for m in self.ledger.matches(limit=1)), default=0)

    def most_at_once(self) -> dict[str, int]:
        """Per bot, the most ladder matches it held at once: the overlaps of the matches'
        intervals, created → finished (a running match counts until now)."""
        edges: dict[str, list[tuple[datetime, int]]] = defaultdict(list)
        for m in self.matches():
            start, end = utc(m.created_at), utc(m.finished_at) if m.finished_at else datetime.now(timezone.utc)
            for b in set(m.bots):
                edges[b] += [(start, 1), (end, -1)]
        most = {}
        for b, marks in edges.items():
            now = top = 0
            for _, step in sorted(marks, key=lambda e: (e[0], e[1])):  # an end before a start at the same instant
                now += step
                top = max(top, now)
            most[b] = top
        return most

    def describe(self) -> str:
        return "\n".join(f"{m.id} {m.game} {m.status} {m.bots} {m.fail_reason or ''}"
                         for m in reversed(self.matches()))
