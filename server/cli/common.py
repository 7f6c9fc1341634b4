"""What several commands share: opening the ledger, reading ``--bot`` and ``--option``, the checks
of addresses, games, seconds and time controls (a bad one is a bad argument: one line, exit 2),
the admin stub of ``--server``, token files, the web's socket and the progress bars."""
from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import typer

from .. import procs
from .app import CliError, err


def open_ledger(db: str, mapped: int = 0, create: bool = True, asked: str | None = None):
    """The ledger ``--db`` names (``mapped``, ``create``: see ``Ledger``), or one line saying why
    not (naming what was ``asked`` for when there is no ledger)."""
    from cardarena.ratings import Ledger, LedgerError, LedgerStorageError
    from cardarena.ratings.ledger_base import NotALedgerError
    if not db.strip():
        raise typer.BadParameter("is empty: give a SQLite file or an SQLAlchemy URL", param_hint="--db")
    try:
        return Ledger(db, mapped=mapped, create=create)
    except NotALedgerError as e:
        raise CliError(f"no {asked}: {e}" if asked else str(e)) from None
    except (LedgerError, LedgerStorageError) as e:
        raise CliError(str(e)) from None
    except Exception as e:  # a bad URL, a missing database driver
        raise CliError(f"cannot open the ledger {db!r}: {e}") from None


def ledger_file(db: str) -> Path | None:
    """The file of a SQLite ``--db`` (a path, or a ``sqlite:///`` URL); None for ``:memory:`` or a server."""
    if "://" not in db:
        return None if db == ":memory:" else Path(db).expanduser()
    if db.startswith("sqlite:///"):
        path = db[len("sqlite:///"):].split("?", 1)[0]
        return Path(path).expanduser() if path and path != ":memory:" else None
    return None


def read_ledger(db: str, asked: str | None = None):
    """The ledger a command reads: one that is not there is one line and exit 1, naming what was
    ``asked`` for (``"league 3"``), and nothing is written: not a file, nor the tables of an empty
    one (``open_ledger`` makes an empty ledger, as a league or ``bot add`` wants)."""
    path = ledger_file(db) if db.strip() else None
    if path is not None and not path.exists():
        where = (f"no ledger at {str(path.resolve())!r} (give --db or CARDARENA_DB; `cardarena demo` or "
                 "`cardarena league run` makes one)")
        raise CliError(f"no {asked}: {where}" if asked else where)
    return open_ledger(db, create=False, asked=asked)


def ledger_name(ledger) -> str:
    """The ledger as a table's caption names it: a SQLite file's path, a server's URL without its password."""
    url = ledger.engine.url
    return (url.database or ":memory:") if url.drivername.startswith("sqlite") else url.render_as_string(hide_password=True)


def caption(ledger, text: str = "") -> None:
    """A table's first line, on stderr (the rows on stdout stay one per line for scripts): the
    ledger it read (a Ledger, or its name as :func:`ledger_name` gives it), and what it shows."""
    name = ledger if isinstance(ledger, str) else ledger_name(ledger)
    sys.stderr.write(f"ledger {name}" + (f": {text}" if text else "") + "\n")


def new_log_dir(log_dir: Path, kind: str) -> Path:
    """A new folder for one run's bot logs under ``--log-dir``: ``KIND-YYYYmmdd-HHMMSS`` (a
    second run within the same second gets ``-2``, ``-3``…), so no run writes over another's."""
    stamp = log_dir / time.strftime(f"{kind}-%Y%m%d-%H%M%S")
    folder, n = stamp, 1
    while folder.exists():
        n += 1
        folder = stamp.with_name(f"{stamp.name}-{n}")
    return folder


def parse_options(pairs: list[str]) -> dict:
    """``--option name=value`` pairs; values are JSON when they parse as JSON, else text.
    A number that is not finite (``1e999``, ``NaN``) is refused."""
    from ..league import check_finite
    options = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value
    try:
        check_finite(options)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--option") from None
    return options


def parse_bots(args: list[str]) -> list[tuple[str, str | None]]:
    """``--bot`` arguments as (name, command or None); a command must split into words."""
    if not args:
        raise typer.BadParameter("give at least one --bot NAME or --bot NAME=COMMAND", param_hint="--bot")
    bots = []
    for a in args:
        try:
            name, command = procs.split_bot_arg(a)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--bot") from None
        if command is not None:
            try:
                procs.command_argv(command)
            except procs.BotStartError as e:
                raise typer.BadParameter(f"bot {name}: {e}", param_hint="--bot") from None
        bots.append((name, command))
    names = [n for n, _ in bots]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise typer.BadParameter(f"bot {sorted(dup)[0]!r} is named twice; give each bot its own name", param_hint="--bot")
    return bots


def check_programs(bots) -> None:
    """Every bot command names a program that exists and is executable (else one line, exit 2)."""
    for name, command in bots:
        if command is not None:
            try:
                procs.check_command(command)
            except procs.BotStartError as e:
                raise typer.BadParameter(f"bot {name}: {e}", param_hint="--bot") from None


def make_log_dir(bots, log_dir: Path) -> None:
    """The folder of the started bots' logs, made before anything starts or is written (one
    line, exit 2, if it cannot be: ``--log-dir`` names a place that cannot hold it)."""
    if any(command for _, command in bots):
        try:
            procs.prepare_log_dir(log_dir)
        except procs.BotStartError as e:
            raise typer.BadParameter(str(e), param_hint="--log-dir") from None


def check_address(address: str, hint: str) -> None:
    """HOST:PORT with a port from 0 to 65535 (gRPC would quietly take 70000 as 4464)."""
    if address.startswith("unix:"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        raise typer.BadParameter(f"{address!r} is not HOST:PORT", param_hint=hint)
    if not port.isdigit() or int(port) > 65535:
        raise typer.BadParameter(f"{address!r}: the port must be a number from 0 to 65535", param_hint=hint)


def check_game(game: str):
    """The class of the game ``game`` (the games are imported here, not by every start of the CLI)."""
    from ..games import games as all_games, get as get_game
    try:
        return get_game(game)
    except KeyError:
        raise typer.BadParameter(f"no game {game!r} (games: {', '.join(all_games())})", param_hint="--game") from None


def ledger_auth(ledger):
    def auth(token: str) -> str | None:
        bot = ledger.bot_by_token(token)
        return bot.name if bot else None
    return auth


def admin_stub(server: str):
    import grpc
    from cardarena.v1 import admin_pb2_grpc
    check_address(server, "--server")
    token = os.environ.get("CARDARENA_ADMIN_TOKEN", "")
    if not token:
        raise CliError("--server needs the admin token in CARDARENA_ADMIN_TOKEN (and CARDARENA_TLS_CA for a TLS server)")
    ca = os.environ.get("CARDARENA_TLS_CA")
    if ca:
        try:
            creds = grpc.ssl_channel_credentials(root_certificates=Path(ca).read_bytes())
        except OSError as e:
            raise CliError(f"cannot read CARDARENA_TLS_CA: {e}") from None
        channel = grpc.secure_channel(server, creds)
    else:
        channel = grpc.insecure_channel(server)
    return admin_pb2_grpc.AdminStub(channel), (("authorization", f"Bearer {token}"),)


def rpc(call, *args, **kwargs):
    import grpc
    try:
        return call(*args, **kwargs)
    except grpc.RpcError as e:
        raise CliError(f"server: {e.details() or e.code().name}") from None

def _web_socket(address: str | None, required: bool, hint: str = "--web-address"):
    """The bound socket of the web (``server/web/host.py``), or None when the web extra is not
    installed and nobody asked for the web by name (then one warning line: the rest still runs)."""
    try:  # not web.command.check_extra: under `python -m` its CliError is another class than ours
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        missing = f"the web needs {e.name}: pip install 'cardarena[web]'"
        if required:
            raise CliError(missing) from None
        err.print(f"cardarena: warning: no web pages ({missing}; or --no-web)", markup=False)
        return None
    from ..web import host as web_host
    address = address or web_host.DEFAULT_ADDRESS
    if address.startswith("unix:"):
        raise typer.BadParameter("the web serves on HOST:PORT, not a unix socket", param_hint=hint)
    check_address(address, hint)
    try:
        return web_host.bind(address)
    except OSError as e:
        raise CliError(f"cannot listen on {address} for the web: {e.strerror or e} (choose another {hint}"
                       + (" or --no-web)" if hint == "--web-address" else ")")) from None


def _token_file(path: Path, what: str, hint: str = "--token-file") -> str:
    """A token kept in a file (its text, stripped); a file that cannot be read is a bad argument
    of ``hint`` (one line, exit 2)."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise typer.BadParameter(f"cannot read the {what} file {str(path)!r}: {getattr(e, 'strerror', None) or e}",
                                 param_hint=hint) from None


def read_admin_token(given: str | None, path: Path | None) -> str:
    """The admin token of ``serve``: from ``--admin-token-file``, else ``--admin-token`` (with a
    warning: a command line is visible to every user), else CARDARENA_ADMIN_TOKEN; '' if none."""
    if given and path:
        raise typer.BadParameter("give --admin-token-file or --admin-token, not both", param_hint="--admin-token")
    if path is not None:
        token = _token_file(path, "admin token", "--admin-token-file")
        if not token:
            raise typer.BadParameter(f"the admin token file {str(path)!r} is empty", param_hint="--admin-token-file")
        return token
    if given:
        err.print("cardarena: warning: --admin-token puts the token on the command line, where other users of this "
                  "machine can read it; use CARDARENA_ADMIN_TOKEN or --admin-token-file", markup=False)
        return given
    return os.environ.get("CARDARENA_ADMIN_TOKEN", "")


def check_seconds(value: float, hint: str, above_zero: bool = False) -> None:
    """A number of seconds: finite, not negative (or above 0); else one line, exit 2."""
    if not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number of seconds, not {value!r}", param_hint=hint)
    if above_zero and value <= 0:
        raise typer.BadParameter("must be above 0", param_hint=hint)
    if value < 0:
        raise typer.BadParameter("cannot be negative", param_hint=hint)


def check_time_control(move_time: float, time_bank: float, max_faults: int, grace: float,
                       max_reconnects: int | None = None) -> None:
    check_seconds(move_time, "--move-time", above_zero=True)
    check_seconds(time_bank, "--time-bank")
    if max_faults < 0:
        raise typer.BadParameter("cannot be negative (0: never forfeit)", param_hint="--max-faults")
    check_seconds(grace, "--grace")
    if max_reconnects is not None and max_reconnects < 0:
        raise typer.BadParameter("cannot be negative", param_hint="--max-reconnects")


def _register_bots(ledger, bots) -> None:
    """Command bots are registered on first use; a bot without a command must be registered."""
    from cardarena.ratings import LedgerError
    for name, command in bots:
        try:
            ledger.bot(name)
        except LedgerError:
            if command is None:
                raise CliError(f"no bot named {name!r}: add it with `cardarena bot add {name}` or give NAME=COMMAND") from None
            ledger.add_bot(name)


def _league_bar(title: str, total: int, done: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=err.console, transient=False)
    task = bar.add_task(title, total=total, completed=done)
    return bar, task


def _league_progress(state: dict, bar, task, game: str):
    """A local league's progress callback: says once where its league is in the ledger (and how
    to resume it), keeps ``state["league"]`` and ``state["done"]``, and moves the bar."""
    def progress(league_id, done_, total_, match_id):
        if state.get("league") is None:
            state["league"] = league_id
            bar.console.print(f"league {league_id} is in the ledger; after an interruption, go on with "
                              f"`cardarena league resume {league_id}`", markup=False)
        state["done"] = done_
        bar.update(task, completed=done_, total=total_, description=f"league {league_id} ({game})")
    return progress


def _count_bar(title: str):
    """A progress bar with ETA on stderr for a long ledger operation: (bar, ``update(done, total)``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=err.console, transient=True)
    task = bar.add_task(title, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
    return bar, update
