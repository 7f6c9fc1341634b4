"""Stop signals end `cardarena bot connect` and `cardarena serve` cleanly, through the real CLI.

- `bot connect`, sent SIGTERM (systemd, `docker stop`) or SIGINT (Ctrl-C) while its program
  plays ladder matches: the program is a bash wrapper and the Python bot it starts; neither is
  left running (by pid, zombies waiting for their reaper counted as ended), the bot goes away
  on the server, one line on stderr says so, exit 143 / 130. A child that ignores both signals
  is killed after the grace (`bot connect`'s STOP_GRACE).
- A program that exits by itself leaving a child behind: the child is stopped with it.
- `serve`, after its drain: exit 143 for SIGTERM, 130 for Ctrl-C, no ladder match left running.

Every wait is a guard against hanging with a generous limit, never a measure of speed.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arenakit import CLI, PY_BOT, ROOT, Bots, Ladders, Served, wait_for

from cardarena.server.cli.bots import STOP_GRACE

#: The bot program of these tests: bash, which writes its pid to $PIDS and starts the example
#: Python bot, which writes its own; with "stubborn", the Python bot ignores SIGINT and SIGTERM
#: and runs in the background while bash waits for it.
WRAPPER = """\
echo "$$" >> "$PIDS"
if [ "${1:-}" = stubborn ]; then
  ( trap '' INT TERM; echo "$BASHPID" >> "$PIDS"; exec "$PY" "$BOT" ) &
  wait
else
  ( echo "$BASHPID" >> "$PIDS"; exec "$PY" "$BOT" )
fi
"""
#: A program that exits with 3 at once, leaving a child that sleeps (its pid in $PIDS).
LEAVER = """\
sleep 600 &
echo "$!" >> "$PIDS"
exit 3
"""
SERVE_ARGS = ["--ladder", "sixth-card", "--move-time", "1", "--grace", "1", "--drain", "2"]


def running(pid: int) -> bool:
    """Whether the process ``pid`` runs (a zombie, ended and waiting for its reaper, does not)."""
    if os.path.isdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
        except FileNotFoundError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pids_of(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def state_of(served: Served, bot: str) -> str:
    """The bot's state as `bot list --server` gives it ("" when the command fails)."""
    r = served.cli("bot", "list", remote=True)
    for line in r.stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == bot:
            return fields[3] if len(fields) > 3 else ""
    return ""


def wrapped_bot_plays(tmp_path: Path, mode: str) -> tuple[Served, Bots, Ladders, list[int]]:
    """A served ladder, the wrapped bot (``mode``) and a plain one; returns once the wrapped bot
    has finished a ladder match, with its two pids (bash's, the Python bot's)."""
    script = tmp_path / "wrapped_bot.sh"
    script.write_text(WRAPPER)
    pids = tmp_path / "wrapped.pids"
    served = Served(tmp_path, str(tmp_path / "arena.db"), SERVE_ARGS)
    bots = Bots(served)
    bots.add("wrapped", "plain")
    served.start()
    bots.connect("wrapped", f"bash {script} {mode}",
                 env={"PIDS": str(pids), "PY": sys.executable, "BOT": str(ROOT / "examples" / "python" / "random_bot.py")})
    bots.connect("plain", PY_BOT)
    ladders = Ladders(served.db)
    wait_for("a finished ladder match of the wrapped bot", lambda: any(
        "wrapped" in m.bots for m in ladders.matches("finished")), timeout=90, explain=ladders.describe)
    found = wait_for("the wrapped bot's two pids", lambda: len(pids_of(pids)) == 2 and pids_of(pids), timeout=30)
    assert all(running(pid) for pid in found), found
    return served, bots, ladders, found


def stop_connect(bots: Bots, name: str, sig: int) -> tuple[int, float, str]:
    """Send ``sig`` to `bot connect` alone (not its group, as `kill PID` or `docker stop` does);
    its exit code, the seconds it took, its output."""
    proc = bots.procs[name]
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        code = proc.wait(30)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"`bot connect` did not exit within 30 s of {signal.Signals(sig).name}") from None
    return code, time.monotonic() - t0, (bots.served.workdir / f"{name}.log").read_text(errors="replace")


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_sigterm_stops_the_bot_program_and_its_child_and_serve_exits_143(tmp_path):
    served, bots, ladders, pids = wrapped_bot_plays(tmp_path, "plain")
    try:
        code, took, out = stop_connect(bots, "wrapped", signal.SIGTERM)
        assert code == 143, out
        assert last_line(out) == "cardarena: stopped by SIGTERM: the bot's program ended", out
        assert took < 20, took
        assert not [pid for pid in pids if running(pid)], pids
        assert "Traceback" not in out
        # the server sees it go: no longer playing, nor idle
        wait_for("the wrapped bot away", lambda: state_of(served, "wrapped") == "away", timeout=60,
                 explain=lambda: served.cli("bot", "list", remote=True).stdout)

        assert served.stop(signal.SIGTERM, timeout=30) == 143, served.log()
        assert last_line(served.log()) == "cardarena: stopped by SIGTERM", served.log()
        assert not ladders.matches("running"), ladders.describe()
    finally:
        bots.close()
        served.close()


def test_sigint_kills_a_child_that_ignores_it_after_the_grace_and_serve_exits_130(tmp_path):
    served, bots, ladders, pids = wrapped_bot_plays(tmp_path, "stubborn")
    try:
        code, took, out = stop_connect(bots, "wrapped", signal.SIGINT)
        assert code == 130, out
        assert last_line(out) == f"cardarena: interrupted: the bot's program was killed after {STOP_GRACE:g} s", out
        assert STOP_GRACE <= took < STOP_GRACE + 20, took
        assert not [pid for pid in pids if running(pid)], pids

        assert served.stop(signal.SIGINT, timeout=30) == 130, served.log()
        assert last_line(served.log()) == "cardarena: interrupted", served.log()
        assert not ladders.matches("running"), ladders.describe()
    finally:
        bots.close()
        served.close()


def test_a_child_the_program_leaves_behind_is_stopped_with_it(tmp_path):
    """`--no-restart`: the program's exit code is `bot connect`'s; its sleeping child is gone."""
    script = tmp_path / "leaver.sh"
    script.write_text(LEAVER)
    pids = tmp_path / "leaver.pids"
    r = subprocess.run([*CLI, "bot", "connect", "--no-restart", "--address", "127.0.0.1:9", "--", "bash", str(script)],
                       cwd=tmp_path, env={**os.environ, "CARDARENA_TOKEN": "unused", "PIDS": str(pids)},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 3, r.stderr
    (child,) = pids_of(pids)
    assert not running(child)
