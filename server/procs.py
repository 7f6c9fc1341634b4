"""Bot programs the CLI starts itself: each in its own process group, its output in a log file.

A bot given as ``NAME=COMMAND`` is started with ``CARDARENA_ADDRESS`` and ``CARDARENA_TOKEN``
set (and ``CARDARENA_BOT`` = its name); stdout and stderr go to ``<log dir>/<NAME>.log``. A
command whose first word is ``python`` or ``python3`` runs with the interpreter the CLI runs
on, and one whose first word is ``cardarena`` runs this CLI (``cardarena bridge -- ./mybot``),
so the example bots work without activating a virtualenv. Stopping sends SIGTERM to the
process group, then SIGKILL after a grace period (python-chess's engine shape, STYLE.md 6).
"""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BotProcess:
    name: str
    command: str
    log_path: Path
    proc: subprocess.Popen

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def stop(self, grace: float = 3.0) -> None:
        if self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return
            time.sleep(0.02)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def split_bot_arg(arg: str) -> tuple[str, str | None]:
    """``NAME=COMMAND`` → (NAME, COMMAND); ``NAME`` → (NAME, None)."""
    name, sep, command = arg.partition("=")
    name = name.strip()
    if not name or any(c.isspace() for c in name):
        raise ValueError(f"bad --bot {arg!r}: give NAME or NAME=COMMAND")
    if sep and not command.strip():
        raise ValueError(f"bad --bot {arg!r}: the command after '=' is empty")
    return name, (command.strip() if sep else None)


def command_argv(command: str) -> list[str]:
    argv = shlex.split(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif argv and argv[0] == "cardarena":  # e.g. "cardarena bridge -- ./mybot"
        argv[:1] = [sys.executable, "-m", "cardarena.server.cli"]
    return argv


def start_bot(name: str, command: str, address: str, token: str, log_dir: Path,
              extra_env: dict | None = None) -> BotProcess:
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    env = {**os.environ, "CARDARENA_ADDRESS": address, "CARDARENA_TOKEN": token, "CARDARENA_BOT": name,
           **(extra_env or {})}
    out = open(log_path, "ab")
    try:
        proc = subprocess.Popen(command_argv(command), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
    except OSError as e:
        raise ValueError(f"cannot start bot {name}: {command!r}: {e.strerror or e}") from None
    finally:
        out.close()
    return BotProcess(name, command, log_path, proc)
