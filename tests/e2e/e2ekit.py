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
