"""Bot programs the CLI starts itself: each in its own process group, its output in a log file.

A bot given as ``NAME=COMMAND`` is started with ``CARDARENA_ADDRESS`` and ``CARDARENA_TOKEN``
set (and ``CARDARENA_BOT`` = its name); stdout and stderr go to ``<log dir>/<NAME>.log``. A
command whose first word is ``python`` or ``python3`` runs with the interpreter the CLI runs
on, and one whose first word is ``cardarena`` runs this CLI (``cardarena bridge -- ./mybot``),
so the example bots work without activating a virtualenv. Stopping sends SIGTERM to the
process group, then SIGKILL after a grace period (python-chess's engine shape, STYLE.md 6), and
follows the group to its last process: a wrapper script's child does not outlive it.

Mistakes of the operator are found before anything starts, each as one sentence
(:class:`BotStartError`): a command with an unbalanced quote, a program that does not exist or
is not executable (:func:`check_command`), a log folder that cannot be written
(:func:`prepare_log_dir`). A program that starts and then dies is not an error here: the
caller sees its exit code (:attr:`BotProcess.returncode`, :func:`exit_text`).
"""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class BotStartError(ValueError):
    """A bot program that cannot be started as given (one line, for the CLI)."""


@dataclass
class BotProcess:
    name: str
    command: str
    log_path: Path | None  # None: its output is the CLI's own (:func:`run_program`)
    proc: subprocess.Popen

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def exited(self) -> bool:
        """Whether the program has exited, seen without reaping it: until :func:`stop_all` reaps
        it, its process group is still its own, so what it left running can be stopped."""
        if self.proc.returncode is not None:
            return True
        try:
            return os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # reaped elsewhere
            return True

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the bot's process group (nothing once the program has ended)."""
        if self.proc.poll() is None:
            self._signal_group(sig)

    def stop(self, grace: float = 3.0) -> None:
        stop_all([self], grace)

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _running(self) -> bool:
        """The program, or another process of its group, still runs."""
        return self.proc.poll() is None or _group_running(self.proc.pid)


def _group_running(pgid: int) -> bool:
    """Whether a process of the group ``pgid`` still runs; on Linux its zombies, which wait for
    their reaper, do not count."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc"):
        return True
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    state, _, group = f.read().rsplit(b")", 1)[1].split()[:3]
            except (OSError, ValueError):
                continue  # ended meanwhile
            if int(group) == pgid and state != b"Z":
                return True
    return False


def stop_all(processes: Iterable[BotProcess], grace: float = 3.0, sig: int = signal.SIGTERM) -> list[BotProcess]:
    """``sig`` (SIGTERM) to the process group of every program not yet reaped, then SIGKILL to
    the groups with a process still running after ``grace`` seconds; returns once every program
    has ended, each group followed to its last process (at most 2 s after its SIGKILL), with the
    programs whose group had to be killed."""
    running = [p for p in processes if p.proc.returncode is None]  # reaped long ago: its group id may be another's
    for p in running:
        p._signal_group(sig)
    deadline = time.monotonic() + grace
    while running and time.monotonic() < deadline:
        time.sleep(0.02)
        running = [p for p in running if p._running()]
    running = [p for p in running if p._running()]
    for p in running:
        p._signal_group(signal.SIGKILL)
    for p in running:
        p.proc.wait()
    deadline = time.monotonic() + 2.0
    while any(_group_running(p.proc.pid) for p in running) and time.monotonic() < deadline:
        time.sleep(0.02)
    return running


def exit_text(returncode: int) -> str:
    """How a program ended, in words: "exited with code 3", "was killed by signal 9"."""
    return f"was killed by signal {-returncode}" if returncode < 0 else f"exited with code {returncode}"


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
    """The argument list a command runs as; :class:`BotStartError` for an unbalanced quote."""
    try:
        argv = shlex.split(command)
    except ValueError as e:  # shlex: "No closing quotation", "No escaped character"
        raise BotStartError(f"cannot split the command {command!r} into words: {str(e).lower()}") from None
    if not argv:
        raise BotStartError("the command is empty")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif argv[0] == "cardarena":  # e.g. "cardarena bridge -- ./mybot"
        argv[:1] = [sys.executable, "-m", "cardarena.server.cli"]
    return argv


def check_command(command: str, cwd: str | Path | None = None) -> list[str]:
    """The command's argument list, once its program is known to exist and be executable
    (looked up on PATH, or relative to ``cwd`` when it names a path); else BotStartError."""
    argv = command_argv(command)
    program = argv[0]
    if os.sep in program:
        path = Path(cwd or ".") / program
        if not path.exists():
            raise BotStartError(f"no program {program!r}: no such file")
        if path.is_dir():
            raise BotStartError(f"{program!r} is a folder, not a program")
        if not os.access(path, os.X_OK):
            raise BotStartError(f"{program!r} is not executable (chmod +x, or start it with its interpreter)")
    elif shutil.which(program) is None:
        raise BotStartError(f"no program {program!r} on the PATH")
    return argv


def prepare_log_dir(log_dir: Path) -> Path:
    """Make the folder for the bots' logs; BotStartError if it cannot be made or written."""
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BotStartError(f"cannot make the log folder {str(log_dir)!r}: {e.strerror or e}") from None
    if not os.access(log_dir, os.W_OK | os.X_OK):
        raise BotStartError(f"cannot write in the log folder {str(log_dir)!r}: permission denied")
    return log_dir


#: What the CLI's own settings hold that no bot program is given: the admin token and the
#: ledger's address (which may carry a password), and PostgreSQL's password variables.
_NOT_FOR_BOTS = ("CARDARENA_ADMIN_TOKEN", "CARDARENA_DB", "CARDARENA_RECORDER_DB", "PGPASSWORD", "PGPASSFILE")


def bot_environment(**bot: str) -> dict[str, str]:
    """The environment of a bot program the CLI starts: the CLI's own without its secrets
    (:data:`_NOT_FOR_BOTS`), and ``bot``'s variables. The program still runs as the CLI's user
    (docs/cli.md: a program you start is trusted as you are)."""
    env = {k: v for k, v in os.environ.items() if k not in _NOT_FOR_BOTS}
    env.update(bot)
    return env


def start_bot(name: str, command: str, address: str, token: str, log_dir: Path,
              extra_env: dict | None = None) -> BotProcess:
    """Start a bot program; BotStartError (one line) if it cannot be started at all."""
    argv = command_argv(command)
    log_path = prepare_log_dir(log_dir) / f"{name}.log"
    env = bot_environment(CARDARENA_ADDRESS=address, CARDARENA_TOKEN=token, CARDARENA_BOT=name, **(extra_env or {}))
    try:
        out = open(log_path, "ab")
    except OSError as e:
        raise BotStartError(f"cannot write the log of bot {name} at {str(log_path)!r}: {e.strerror or e}") from None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
    except OSError as e:
        raise BotStartError(f"cannot start bot {name}: {command!r}: {e.strerror or e}") from None
    finally:
        out.close()
    return BotProcess(name, command, log_path, proc)


def run_program(command: str, argv: list[str], env: dict) -> BotProcess:
    """Start a bot program in its own process group with the CLI's own input and output (``bot
    connect``); BotStartError (one line) if it cannot be started at all."""
    try:
        proc = subprocess.Popen(argv, env=env, start_new_session=True)
    except OSError as e:
        raise BotStartError(f"cannot start the bot program {command!r}: {e.strerror or e}") from None
    return BotProcess("bot", command, None, proc)
