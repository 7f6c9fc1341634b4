"""End-to-end helpers: the real `cardarena` command, real bot processes, a real SQLite file."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
CLI = [sys.executable, "-m", "cardarena.server.cli"]


def cardarena(*args: str, cwd: Path, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run the CLI as a user would; returns the finished process (text output)."""
    return subprocess.run([*CLI, *args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)


def example(name: str) -> str:
    return f"python {EXAMPLES / name}"


def check_ready(command: str, workdir: Path) -> None:
    """`cardarena check --bot COMMAND` exits 0, the reconnect made: the smallest check that still
    cuts a stream (one game, two matches: the cut is in the second)."""
    logs = workdir / "check-logs"
    r = subprocess.run([*CLI, "check", "--bot", command, "--game", "sixth-card", "--matches", "2",
                        "--log-dir", str(logs)], cwd=workdir, capture_output=True, text=True, timeout=180)
    bot_log = "\n".join(p.read_text(errors="replace")[-2000:] for p in logs.glob("*/candidate.log"))
    assert r.returncode == 0, f"{r.stdout}{r.stderr}--- the bot's log\n{bot_log}"
    assert r.stdout.strip().splitlines()[-1] == "ready for the ladder", r.stdout
    assert "back in" in r.stdout and "finished with no forfeit" in r.stdout, r.stdout


def require(missing: list[str]) -> None:
    """Skip without the example bots' builds or tools, except under CI, which must have them all."""
    if missing:
        import pytest
        if os.environ.get("CI"):
            pytest.fail(f"CI must build every example bot (make examples); missing: {', '.join(missing)}")
        pytest.skip(f"not built here: {', '.join(missing)} (run `make examples`)")
