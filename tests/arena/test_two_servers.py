"""Two `cardarena serve --ladder` processes on one PostgreSQL ledger:
each schedules among the bots connected to it, ratings are shared, a server that starts again
never fails the matches the other is playing, and one that is killed has its matches marked
unplayed; a bot that plays on one server, disconnects and connects to the other plays there too,
with one rating row and both servers' matches in its history. Real servers, real bot processes
(`cardarena bot connect`), a real PostgreSQL server."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import text

from cardarena.ratings import Ledger

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
BOT = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"
LISTENING = re.compile(r"listening on (127\.0\.0\.1:\d+)")
ENV = {**os.environ, "CARDARENA_ADMIN_TOKEN": "two-servers"}


def serve(db: str, workdir: Path, name: str) -> tuple[subprocess.Popen, str, Path]:
    log = workdir / f"{name}.log"
    proc = subprocess.Popen([*CLI, "serve", "--db", db, "--address", "127.0.0.1:0", "--no-web", "--ladder",
                             "sixth-card", "--move-time", "1", "--drain", "5", "--rate", "0"], cwd=workdir, env=ENV,
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        m = LISTENING.search(log.read_text())
        if m:
            return proc, m.group(1), log
        assert proc.poll() is None, log.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{name} did not start: {log.read_text()}")


def connect(token: str, address: str, workdir: Path, name: str) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "bot", "connect", "--address", address, "--", *BOT.split()], cwd=workdir,
                            env={**ENV, "CARDARENA_TOKEN": token}, stdout=open(workdir / f"{name}.log", "w"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def wait(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


def kill(proc: subprocess.Popen, sig=signal.SIGKILL) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
        proc.wait(30)


def test_two_servers_share_one_ledger(postgres_url, tmp_path):
    led = Ledger(postgres_url)
    groups = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2", "b3"]}
    tokens = {n: led.add_bot(n)[1] for names in groups.values() for n in names}
    procs = []
    try:
        a, a_address, a_log = serve(postgres_url, tmp_path, "serve-a")
        b, b_address, _ = serve(postgres_url, tmp_path, "serve-b")
        procs += [a, b]
        procs += [connect(tokens[n], a_address, tmp_path, n) for n in groups["a"]]
        procs += [connect(tokens[n], b_address, tmp_path, n) for n in groups["b"]]

        def finished():
            return [m for m in led.matches(kind="ladder", status="finished", limit=None)]
        wait("every bot of both servers has played", lambda: {b for m in finished() for b in m.bots} == set(tokens))
        for m in finished():  # each server seats only the bots connected to it
            assert len({bot[0] for bot in m.bots}) == 1, m.bots
        rated = {r.bot for r in led.ratings("sixth-card")}
        assert rated == set(tokens), rated  # one rating table for both

        # b starts again while a plays: a's running matches are a live server's, left alone
        a_running = {m.id for m in led.matches(kind="ladder", status="running", limit=None) if m.bots[0][0] == "a"}
        kill(b, signal.SIGTERM)
        b, b_address, _ = serve(postgres_url, tmp_path, "serve-b2")
        procs.append(b)
        time.sleep(2)
        failed = {m.id for m in led.matches(kind="ladder", status="failed", limit=None)}
        assert not a_running & failed, "a restarted server failed a match another live server plays"

        # a is killed: its matches left running are marked unplayed by the server that starts in its place
        left: set[int] = set()
        stopped = time.monotonic() + 60
        while not left:  # a frozen (SIGSTOP) while it has a match running: none can finish, then killed
            assert time.monotonic() < stopped, "a never had a match running when frozen"
            os.killpg(a.pid, signal.SIGSTOP)
            left = {m.id for m in led.matches(kind="ladder", status="running", limit=None) if m.bots[0][0] == "a"}
            if not left:
                os.killpg(a.pid, signal.SIGCONT)
                time.sleep(0.05)
        kill(a)
        a, a_address, _ = serve(postgres_url, tmp_path, "serve-a2")
        procs.append(a)
        wait("a's left matches failed", lambda: all(
            m.status == "failed" and m.fail_reason == "unplayed: the server stopped"
            for m in led.matches(kind="ladder", limit=None) if m.id in left), timeout=20)
    finally:
        for p in procs:
            kill(p, signal.SIGTERM)
    r = subprocess.run([*CLI, "ledger", "check", "--replay", "--db", postgres_url], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK"), r.stdout + r.stderr
    led.close()


def test_a_bot_moves_from_one_server_to_the_other(postgres_url, tmp_path):
    """The bot plays on server a, disconnects, connects to server b and plays there: one rating
    row for it, counting the matches of both servers, and both servers' matches in its history
    (each match claimed in the name of the server that played it, ``host:pid``)."""
    led = Ledger(postgres_url)
    tokens = {n: led.add_bot(n)[1] for n in ("mover", "stays-on-a", "stays-on-b")}
    procs = []
    try:
        a, a_address, _ = serve(postgres_url, tmp_path, "serve-a")
        b, b_address, _ = serve(postgres_url, tmp_path, "serve-b")
        procs += [a, b, connect(tokens["stays-on-a"], a_address, tmp_path, "stays-on-a"),
                  connect(tokens["stays-on-b"], b_address, tmp_path, "stays-on-b")]
        server = {f"{socket.gethostname()}:{p.pid}": name for p, name in ((a, "a"), (b, "b"))}

        def where_played() -> dict[int, str]:
            """The mover's finished ladder matches → the server that played each (the matches read
            first: a match finished after them is not asked for; its worker was set when claimed)."""
            finished = led.matches(bot="mover", kind="ladder", status="finished", limit=None)
            with led.engine.connect() as c:
                worker = dict(c.execute(text("SELECT id, worker FROM match WHERE kind = 'ladder'")).all())
            return {m.id: server[worker[m.id]] for m in finished}
        mover = connect(tokens["mover"], a_address, tmp_path, "mover-on-a")
        procs.append(mover)
        wait("the bot has played on server a", lambda: "a" in where_played().values())
        kill(mover, signal.SIGTERM)
        procs.append(connect(tokens["mover"], b_address, tmp_path, "mover-on-b"))
        wait("the bot has played on server b", lambda: "b" in where_played().values())
    finally:
        for p in procs:
            kill(p, signal.SIGTERM)
    played = where_played()
    history = led.matches(bot="mover", kind="ladder", status="finished", limit=None)
    opponents = {server_name: {bot for m in history if played[m.id] == server_name for bot in m.bots} - {"mover"}
                 for server_name in ("a", "b")}
    assert opponents == {"a": {"stays-on-a"}, "b": {"stays-on-b"}}, "each server seated it with its own bots"
    (row,) = [r for r in led.ratings("sixth-card") if r.bot == "mover"]
    changes = led.rating_history("mover", "sixth-card")
    assert len(changes) == len(history), "one rating, both servers"
    # a match a server started just as the bot left it (its stream gone before the start) finds
    # the bot absent: a forfeit, not rated
    assert row.matches == sum(c.rated for c in changes) == len(history) - row.absent, "one rating, both servers"
    led.close()
