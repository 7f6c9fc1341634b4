"""`cardarena check`: the pre-flight of a bot. Real referee, real bot
programs (the one checked and two example opponents), the real CLI: a good bot is ready (exit 0),
and each way of not being ready is named (exit 1)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM = ROOT / "examples" / "python" / "random_bot.py"


def check(*args, cwd, timeout=180, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "check", *args, "--log-dir", str(cwd / "logs")], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env)


def problems(out: str) -> list[str]:
    lines = out.splitlines()
    assert "not ready for the ladder:" in lines, out
    return [l.strip()[2:] for l in lines[lines.index("not ready for the ladder:") + 1:]]


def test_a_good_bot_is_ready(tmp_path):
    r = check("--bot", f"python {RANDOM}", "--game", "sixth-card", "--game", "unsorted", "--matches", "2",
              cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert out.strip().splitlines()[-1] == "ready for the ladder"
    assert "said hello, playing every game" in out
    rows = {l.split()[0]: l.split() for l in out.splitlines() if l.split() and l.split()[0] in ("sixth-card", "unsorted")}
    assert set(rows) == {"sixth-card", "unsorted"}
    for game, row in rows.items():
        assert row[1] == "2" and int(row[2]) > 0 and row[3] == "0" and row[4] == "0", row  # matches, decisions, no faults
    assert "one stream from match to match over 4 matches" in out
    assert "back in" in out and "finished with no forfeit" in out


def test_a_program_that_exits_is_named_at_once(tmp_path):
    t0 = time.monotonic()
    r = check("--bot", f"python {BOTS / 'exit_before_connect.py'}", "--game", "sixth-card", cwd=tmp_path)
    assert r.returncode == 1
    [problem] = problems(r.stdout)
    assert "before connecting" in problem and "exited with code" in problem and "candidate.log" in problem
    assert time.monotonic() - t0 < 25  # it did not wait out the 30 s start timeout


def test_faults_are_named_by_kind(tmp_path):
    r = check("--bot", f"python {BOTS / 'liar.py'}", "--game", "sixth-card", "--matches", "1", cwd=tmp_path)
    assert r.returncode == 1
    found = problems(r.stdout)
    assert any(p.startswith("sixth-card: ") and "out-of-range" in p for p in found), found


def test_a_slow_bot_is_not_ready(tmp_path):
    env = {**os.environ, "CARDARENA_THINK": "0.3", "PYTHONPATH": str(BOTS)}
    r = check("--bot", f"python {BOTS / 'slow_bot.py'}", "--game", "sixth-card", "--matches", "1",
              "--move-time", "0.2", cwd=tmp_path, env=env)
    assert r.returncode == 1
    found = problems(r.stdout)
    assert any("late" in p for p in found), found
    assert any("p99 latency" in p or "forfeited" in p for p in found), found


def test_a_bot_that_does_not_reconnect_is_not_ready(tmp_path):
    bot = tmp_path / "gives_up.py"
    bot.write_text("import random\nfrom cardarena.client import run\n"
                   "run(lambda d: random.randrange(len(d)), retry_seconds=0)\n")
    r = check("--bot", f"python {bot}", "--game", "sixth-card", "--matches", "2", cwd=tmp_path)
    assert r.returncode == 1
    found = problems(r.stdout)
    assert any(p.startswith("reconnect: ") and "did not come back" in p for p in found), found


def test_a_remote_bot_connects_by_itself_with_its_token(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "a-token-for-the-check"
    checker = subprocess.Popen([*CLI, "check", "--token", token, "--address", f"127.0.0.1:{port}", "--game",
                                "sixth-card", "--matches", "2", "--log-dir", str(tmp_path / "logs")],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot = None
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # its referee is up once the port takes connections
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        bot = subprocess.Popen([sys.executable, str(RANDOM)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env={**os.environ, "CARDARENA_ADDRESS": f"127.0.0.1:{port}", "CARDARENA_TOKEN": token})
        out, err = checker.communicate(timeout=120)
    finally:
        for p in (checker, bot):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert checker.returncode == 0, out + err
    assert "waiting for the bot at" in err
    assert out.strip().splitlines()[-1] == "ready for the ladder"


@pytest.mark.parametrize("args, hint", [
    ([], "--bot"),
    (["--bot", "python x.py", "--token", "t"], "--bot"),
    (["--token", "t"], "--address"),
    (["--bot", "python x.py", "--game", "chess"], "--game"),
    (["--bot", "python x.py", "--matches", "0"], "--matches"),
    (["--bot", "python x.py", "--move-time", "nan"], "--move-time"),
])
def test_mistakes_are_one_line(cli, tmp_path, args, hint):
    code, out, err = cli("check", *args, "--log-dir", str(tmp_path))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: ") and hint in lines[0], err
