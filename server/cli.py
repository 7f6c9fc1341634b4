"""The ``cardarena`` command line: one Typer app per command group; commands parse and delegate.

Known errors end as one line on stderr and exit code 1 (a bad argument: exit code 2), with no
traceback (STYLE.md 10): a bot command that cannot run (unbalanced quote, no such program, not
executable), a log folder that cannot be written, an option that is not a finite number, a port
above 65535, an empty ``--db``, a damaged ledger or a full disk. Ctrl-C ends a command with one
line and exit code 130 (from the moment this module is imported), SIGTERM and SIGHUP with 128 +
the signal; either way the bots the CLI started are stopped and a league stays resumable. Every
command that touches the ledger takes ``--db`` (default ``./cardarena.db``, or
``CARDARENA_DB``): a file path or an SQLAlchemy URL.

Bots the CLI starts (``--bot NAME=COMMAND``): in a league, a bot whose program exits before
connecting, misses ``--start-timeout`` or dies during the league is absent, its seats forfeit
(league.py), and the league plays on; the summary names each absent bot and its log. ``play``
stops with one line if a bot does not connect. At the end the CLI closes every bot's stream
after its last message (so each bot reads its ``match_end`` and leaves by itself), gives the
programs a few seconds to exit, and only then stops those still running.
"""
from __future__ import annotations

import signal
import sys

# Ctrl-C while the CLI is still being imported: remembered here and answered by main() as one
# line with exit code 130, instead of a KeyboardInterrupt traceback out of an import.
_EARLY_SIGINT: list[int] = []


def _early_sigint(signum, frame) -> None:
    _EARLY_SIGINT.append(signum)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler and (
        __name__ == "__main__" or sys.argv and sys.argv[0].endswith("cardarena")):
    signal.signal(signal.SIGINT, _early_sigint)

import asyncio  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
import shlex  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from collections.abc import Callable  # noqa: E402
from contextvars import ContextVar  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Annotated, Optional  # noqa: E402

import typer  # noqa: E402
from rich.console import Console  # noqa: E402

from . import procs  # noqa: E402
from .games import GameError, games as all_games, get as get_game  # noqa: E402

try:  # typer ≥ 0.20 vendors click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - older typer over click
    from click import exceptions as click_exc

VERSION = "0.2.0"
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="cardarena: a tournament server for card-game bots.")
bot_app = typer.Typer(no_args_is_help=True, help="Register and list bots.")
league_app = typer.Typer(no_args_is_help=True, help="Run and inspect leagues.")
match_app = typer.Typer(no_args_is_help=True, help="List, show, export and verify recorded matches.")
ratings_app = typer.Typer()  # its help is the callback's docstring (the `ratings` command itself)
ledger_app = typer.Typer(no_args_is_help=True, help="Audit and upgrade the ledger.")
app.add_typer(bot_app, name="bot")
app.add_typer(league_app, name="league")
app.add_typer(match_app, name="match")
app.add_typer(ratings_app, name="ratings")
app.add_typer(ledger_app, name="ledger")


class CliError(Exception):
    """A known failure: printed as one line, exit code 1 (or ``code``)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


DbOpt = Annotated[str, typer.Option("--db", envvar="CARDARENA_DB", help="Ledger: a SQLite file or an SQLAlchemy URL.")]
ServerOpt = Annotated[Optional[str], typer.Option("--server", help="Drive a remote referee at HOST:PORT (admin token from CARDARENA_ADMIN_TOKEN).")]
REPO = Path(__file__).resolve().parent.parent


def _version(value: bool):
    if value:
        out.print(f"cardarena {VERSION}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                  help="Print the version and exit.")] = False):
    """cardarena: a tournament server for card-game bots."""


# ----------------------------------------------------------------------------- helpers
def open_ledger(db: str):
    from cardarena.ratings import Ledger, LedgerError, LedgerStorageError
    if not db.strip():
        raise typer.BadParameter("is empty: give a SQLite file or an SQLAlchemy URL", param_hint="--db")
    try:
        return Ledger(db)
    except (LedgerError, LedgerStorageError) as e:
        raise CliError(str(e)) from None
    except Exception as e:  # a bad URL, a missing database driver
        raise CliError(f"cannot open the ledger {db!r}: {e}") from None


def parse_options(pairs: list[str]) -> dict:
    """``--option name=value`` pairs; values are JSON when they parse as JSON, else text.
    A number that is not finite (``1e999``, ``NaN``) is refused."""
    from .league import check_finite
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
    """The folder of the started bots' logs, made before anything starts (one line if it cannot be)."""
    if any(command for _, command in bots):
        try:
            procs.prepare_log_dir(log_dir)
        except procs.BotStartError as e:
            raise CliError(str(e)) from None


def check_address(address: str, hint: str) -> None:
    """HOST:PORT with a port from 0 to 65535 (gRPC would quietly take 70000 as 4464)."""
    if address.startswith("unix:"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        raise typer.BadParameter(f"{address!r} is not HOST:PORT", param_hint=hint)
    if not port.isdigit() or int(port) > 65535:
        raise typer.BadParameter(f"{address!r}: the port must be a number from 0 to 65535", param_hint=hint)


def check_game(game: str) -> None:
    try:
        get_game(game)
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


# ----------------------------------------------------------------------------- games, rules
@app.command()
def games(fmt: Annotated[str, typer.Option("--format", help="table or json")] = "table"):
    """The games: ids, player ranges, options and default actions."""
    rows = []
    for gid, cls in all_games().items():
        rows.append({"id": gid, "title": cls.title, "players": [cls.min_players, cls.max_players],
                     "summary": cls.summary, "options": [o.describe() for o in cls.option_specs],
                     "default": cls.default_policy, "rules": sorted(cls.rules_texts)})
    if fmt == "json":
        out.print_json(json.dumps(rows, ensure_ascii=False))
        return
    if fmt != "table":
        raise typer.BadParameter("use table or json", param_hint="--format")
    for r in rows:
        out.print(f"[bold]{r['id']}[/bold]  {r['title']}  ({r['players'][0]}–{r['players'][1]} players)")
        if r["summary"]:
            out.print(f"  {r['summary']}")
        for o in r["options"]:
            extra = f" ({', '.join(map(str, o['choices']))})" if "choices" in o else ""
            out.print(f"  option {o['name']}={o['default']!r}{extra}: {o['help']}")
        out.print(f"  default action: {r['default']}")


@app.command()
def rules(game: Annotated[str, typer.Argument(help="Game id (see `cardarena games`).")],
          lang: Annotated[str, typer.Option("--lang", help="Language of the rules text: en, or de (unsorted, scouting).")] = "en"):
    """Print a game's rules text."""
    check_game(game)
    texts = get_game(game).rules_texts
    if lang not in texts:
        raise typer.BadParameter(f"{game} has rules in {', '.join(sorted(texts))}, not {lang!r}", param_hint="--lang")
    sys.stdout.write(get_game(game).rules_text(lang).rstrip() + "\n")


# ----------------------------------------------------------------------------- bots
@bot_app.command("add")
def bot_add(name: Annotated[str, typer.Argument(help="The bot's name (unique).")], db: DbOpt = "cardarena.db",
            server: ServerOpt = None,
            owner: Annotated[Optional[str], typer.Option("--owner", help="Who runs the bot (free text, shown on "
                                                                         "its page).")] = None):
    """Register a bot and print its token (shown once; only its hash is stored)."""
    if not name.strip() or any(c.isspace() for c in name) or "=" in name:
        raise typer.BadParameter("a bot name has no spaces and no '='", param_hint="NAME")
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.AddBot, admin_pb2.AddBotRequest(name=name, owner=owner or ""), metadata=md)
        token = reply.token
    else:
        from cardarena.ratings import LedgerError
        try:
            _, token = open_ledger(db).add_bot(name, owner)
        except LedgerError as e:
            raise CliError(str(e)) from None
    err.print(f"bot {name} added; its token (shown once, give it to the bot as CARDARENA_TOKEN):")
    print(token)


@bot_app.command("list")
def bot_list(db: DbOpt = "cardarena.db", server: ServerOpt = None):
    """List the registered bots: name, registered, owner, state.

    The state is on the ladders: paused (`bot pause`), benched until a time and why (the
    quarantine rule); with --server also playing, idle or away, as that server sees them."""
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.ListBots, admin_pb2.ListBotsRequest(), metadata=md)
        for b in reply.bots:
            state = b.state or ("connected" if b.connected else "")
            if b.benched_until:
                state = f"benched until {b.benched_until} ({b.bench_reason})"
            print(f"{b.name}\t{b.created}\t{b.owner}\t{state}")
        return
    from datetime import datetime, timezone
    led = open_ledger(db)
    states = {s.name: s for s in led.bot_states()}
    now = datetime.now(timezone.utc)
    for b in led.bots():
        st = states.get(b.name)
        state = "paused" if st and st.paused else ""
        if st and st.benched(now):
            state = f"benched until {st.benched_until.isoformat(timespec='seconds')} ({st.bench_reason})"
        print(f"{b.name}\t{b.created_at.isoformat(timespec='seconds')}\t{b.owner or ''}\t{state}")


def _set_paused(name: str, paused: bool, db: str, server: str | None) -> None:
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        rpc(stub.PauseBot, admin_pb2.PauseBotRequest(name=name, paused=paused), metadata=md)
    else:
        from cardarena.ratings import LedgerError
        try:
            open_ledger(db).set_paused(name, paused)
        except LedgerError as e:
            raise CliError(str(e)) from None
    out.print(f"bot {name} " + ("paused: it gets no new ladder match until `cardarena bot resume " + name + "`"
                                if paused else "resumed: it plays on the ladders again"), markup=False)


@bot_app.command("pause")
def bot_pause(name: Annotated[str, typer.Argument(help="The bot's name.")], db: DbOpt = "cardarena.db",
              server: ServerOpt = None):
    """Bench a bot from the ladders by hand (its running matches finish); `bot resume` undoes it."""
    _set_paused(name, True, db, server)


@bot_app.command("resume")
def bot_resume(name: Annotated[str, typer.Argument(help="The bot's name.")], db: DbOpt = "cardarena.db",
               server: ServerOpt = None):
    """Let a paused bot play on the ladders again."""
    _set_paused(name, False, db, server)


@bot_app.command("connect", context_settings={"allow_interspersed_args": False})
def bot_connect(command: Annotated[list[str], typer.Argument(help="The bot program and its arguments (after --).")],
                address: Annotated[str, typer.Option("--address", envvar="CARDARENA_ADDRESS",
                                                     help="The server, HOST:PORT.")] = "127.0.0.1:50051",
                token_file: Annotated[Optional[Path], typer.Option(
                    "--token-file", help="A file holding the bot's token (default: CARDARENA_TOKEN).")] = None,
                game: Annotated[Optional[list[str]], typer.Option(
                    "--game", help="A game the bot plays on the ladders (repeat; default: every game).")] = None,
                max_matches: Annotated[int, typer.Option("--max-matches", help="Ladder matches at once at most "
                                                                               "(0: the server's limit).")] = 0,
                restart: Annotated[bool, typer.Option("--restart/--no-restart", help="Start the program again "
                                                                                     "when it exits.")] = True):
    """Run a bot program on a server's ladders: it gets the address, its token and its games
    (CARDARENA_ADDRESS, CARDARENA_TOKEN, CARDARENA_GAMES, CARDARENA_MAX_MATCHES, which the SDKs
    read) and is started again whenever it exits (after 1 s, doubling to 60 s while it keeps
    exiting within a minute), until Ctrl-C."""
    check_address(address, "--address")
    for g in game or ():
        check_game(g)
    if max_matches < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--max-matches")
    token = _token_file(token_file, "token") if token_file is not None else os.environ.get("CARDARENA_TOKEN", "")
    if not token:
        raise CliError("no token: give --token-file or set CARDARENA_TOKEN (`cardarena bot add NAME` prints one)")
    try:
        argv = procs.check_command(shlex.join(command))
    except procs.BotStartError as e:
        raise typer.BadParameter(str(e), param_hint="COMMAND") from None
    env = {**os.environ, "CARDARENA_ADDRESS": address, "CARDARENA_TOKEN": token,
           "CARDARENA_GAMES": ",".join(game or ()), "CARDARENA_MAX_MATCHES": str(max_matches)}
    import subprocess
    backoff = 1.0
    while True:
        started = time.monotonic()
        proc = subprocess.Popen(argv, env=env)
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise
        if not restart:
            raise typer.Exit(code)
        if time.monotonic() - started > 60:
            backoff = 1.0
        err.print(f"cardarena: the bot {procs.exit_text(code)}; starting it again in {backoff:g} s", markup=False)
        time.sleep(backoff)
        backoff = min(60.0, backoff * 2)


# ----------------------------------------------------------------------------- ratings
@ratings_app.callback(invoke_without_command=True)
def ratings(ctx: typer.Context,
            game: Annotated[Optional[str], typer.Option("--game", help="Only this game.")] = None,
            fmt: Annotated[str, typer.Option("--format", help="table, json, csv or markdown")] = "table",
            db: DbOpt = "cardarena.db", server: ServerOpt = None):
    """The rating table: rank, bot, μ, σ, μ − 3σ, matches, wins, mean place.

    `cardarena ratings recompute` rebuilds it from the recorded matches.
    """
    if ctx.invoked_subcommand is not None:
        return
    from cardarena.ratings import RatingRow, format_ratings
    if fmt not in ("table", "json", "csv", "markdown"):
        raise typer.BadParameter("use table, json, csv or markdown", param_hint="--format")
    if game:
        check_game(game)
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.Ratings, admin_pb2.RatingsRequest(game=game or ""), metadata=md)
        rows = [RatingRow(r.rank, r.bot, r.game, r.mu, r.sigma, r.conservative, r.matches, r.wins,
                          r.mean_place) for r in reply.rows]
    else:
        rows = open_ledger(db).ratings(game)
    text = format_ratings(rows, fmt)
    if fmt == "table":
        out.print(text)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


# ----------------------------------------------------------------------------- serve
@app.command()
def serve(address: Annotated[str, typer.Option("--address", help="HOST:PORT to listen on.")] = "127.0.0.1:50051",
          db: DbOpt = "cardarena.db",
          admin_token_file: Annotated[Optional[Path], typer.Option(
              "--admin-token-file", help="A file holding the Admin service's token. Default: the token in "
                                         "CARDARENA_ADMIN_TOKEN; with neither, one is made and printed once.")] = None,
          admin_token: Annotated[Optional[str], typer.Option(
              "--admin-token", help="The Admin service's token itself; other users of the machine can read a "
                                    "command line, so this prints a warning: prefer the file or the variable.")] = None,
          move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision.")] = 2.0,
          max_faults: MaxFaultsOpt = 3,
          grace: GraceOpt = 10.0,
          tls_cert: Annotated[Optional[Path], typer.Option("--tls-cert", help="PEM certificate: serve over TLS.")] = None,
          tls_key: Annotated[Optional[Path], typer.Option("--tls-key", help="PEM private key of --tls-cert.")] = None,
          web_address: WebAddressOpt = None,
          no_web: Annotated[bool, typer.Option("--no-web", help="Serve no pages (only gRPC).")] = False,
          web_private: Annotated[bool, typer.Option(
              "--web-private", help="Every page and API answer needs the admin token: an Authorization: Bearer "
                                    "header, or the cookie the sign-in page sets.")] = False,
          ladder: Annotated[Optional[list[str]], typer.Option(
              "--ladder", help="GAME[:SEATS]: keep rated matches of GAME going among the connected bots that "
                               "play it (repeat for several ladders).")] = None,
          max_matches: Annotated[int, typer.Option("--max-matches", help="Ladder matches a bot plays at once at "
                                                                         "most (its Hello may ask fewer).")] = 2,
          bench_seconds: Annotated[float, typer.Option("--bench-seconds", help="How long the quarantine rule "
                                                                               "benches a bot.")] = 600.0,
          bench_window: Annotated[int, typer.Option("--bench-window", help="The quarantine rule judges a bot's "
                                                                             "last N ladder matches.")] = 10,
          bench_forfeits: Annotated[int, typer.Option("--bench-forfeits", help="Forfeits in that window that "
                                                                                 "bench a bot.")] = 3,
          drain: Annotated[float, typer.Option("--drain", help="Seconds running ladder matches get to finish at "
                                                               "shutdown; the rest are marked unplayed.")] = 30.0):
    """Host the referee and admin services, the ladders, and the web pages beside them, until interrupted.

    The pages and JSON API (default http://127.0.0.1:8080/) run in the referee's own event loop,
    so the matches running now can be watched as a spectator sees them. With --ladder the server
    is an arena: registered bots that connect play rated matches among themselves (see the
    README's "The arena" for how tables are drawn and the quarantine rule). SIGTERM or Ctrl-C:
    no new match starts, running ones get --drain seconds to finish."""
    from .referee import Referee, TimeControl
    from .service import start_server
    check_address(address, "--address")
    check_time_control(move_time, 0.0, max_faults, grace)
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("give both --tls-cert and --tls-key", param_hint="--tls-cert")
    if no_web and (web_address is not None or web_private):
        raise typer.BadParameter("--no-web serves no pages: drop --web-address / --web-private", param_hint="--no-web")
    from .ladder import LadderError, LadderSpec, QuarantineRule
    try:
        ladders = [LadderSpec.parse(text) for text in ladder or ()]
    except LadderError as e:
        raise typer.BadParameter(str(e), param_hint="--ladder") from None
    if len({spec.game for spec in ladders}) != len(ladders):
        raise typer.BadParameter("one ladder per game", param_hint="--ladder")
    if max_matches < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--max-matches")
    check_seconds(bench_seconds, "--bench-seconds")
    if bench_window < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--bench-window")
    if not 1 <= bench_forfeits <= bench_window:
        raise typer.BadParameter(f"must be from 1 to --bench-window ({bench_window})", param_hint="--bench-forfeits")
    check_seconds(drain, "--drain")
    admin_token = read_admin_token(admin_token, admin_token_file)
    web_sock = None if no_web else _web_socket(web_address, required=web_address is not None or web_private)
    tls = None
    if tls_cert and tls_key:
        try:
            tls = (tls_cert.read_bytes(), tls_key.read_bytes())
        except OSError as e:
            raise CliError(f"cannot read TLS files: {e}") from None
    ledger = open_ledger(db)
    if not admin_token:
        admin_token = secrets.token_urlsafe(32)
        err.print("admin token (shown once; set CARDARENA_ADMIN_TOKEN to it for --server commands):")
        print(admin_token, flush=True)

    async def main():
        stop = asyncio.Event()  # the handlers come first: a signal right after the first line is ours
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        referee = Referee(ledger_auth(ledger), TimeControl(move_seconds=move_time, max_faults=max_faults,
                                                           grace_seconds=grace))
        arena = None
        if ladders:
            from .ladder import Arena
            arena = Arena(referee, ledger, ladders, max_per_bot=max_matches,
                          rule=QuarantineRule(window=bench_window, max_forfeits=bench_forfeits,
                                              bench_seconds=bench_seconds), drain_seconds=drain)
        try:
            hosted = await start_server(referee, address, ledger=ledger, admin_token=admin_token, tls=tls,
                                        arena=arena)
        except (RuntimeError, OSError) as e:
            raise CliError(f"cannot listen on {address}: {e}") from None
        host = address.rsplit(":", 1)[0]
        err.print(f"cardarena referee listening on {host}:{hosted.port} ({'TLS' if tls else 'plaintext'}); Ctrl-C stops")
        web = None
        if web_sock is not None:
            from .web import host as web_host
            from .web.app import create_app
            web = await web_host.start(create_app(ledger, referee, admin_token if web_private else None,
                                                  arena=arena), web_sock)
            err.print(f"cardarena web: {web.url}" + (" (private: sign in with the admin token)" if web_private else ""),
                      markup=False)
        if arena is not None:
            arena.start()
            err.print("ladders: " + ", ".join(f"{s.game} (tables of {s.seats})" for s in ladders)
                      + f"; at most {max_matches} matches a bot at once", markup=False)
        await stop.wait()
        if arena is not None:
            running = len(arena.tasks)
            if running:
                err.print(f"stopping: {running} ladder matches may take up to {drain:g} s to finish", markup=False)
            await arena.stop()
        if web is not None:
            await web.stop()
        await hosted.stop(2)

    asyncio.run(main())


WebAddressOpt = Annotated[Optional[str], typer.Option(
    "--web-address", help="HOST:PORT of the web pages and JSON API (default 127.0.0.1:8080; port 0: a free one).")]


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
    from .web import host as web_host
    address = address or web_host.DEFAULT_ADDRESS
    if address.startswith("unix:"):
        raise typer.BadParameter("the web serves on HOST:PORT, not a unix socket", param_hint=hint)
    check_address(address, hint)
    try:
        return web_host.bind(address)
    except OSError as e:
        raise CliError(f"cannot listen on {address} for the web: {e.strerror or e} (choose another {hint}"
                       + (" or --no-web)" if hint == "--web-address" else ")")) from None


def _token_file(path: Path, what: str) -> str:
    """A token kept in a file (its text, stripped), or one line saying why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"cannot read the {what} file {str(path)!r}: {getattr(e, 'strerror', None) or e}") from None


def read_admin_token(given: str | None, path: Path | None) -> str:
    """The admin token of ``serve``: from ``--admin-token-file``, else ``--admin-token`` (with a
    warning: a command line is visible to every user), else CARDARENA_ADMIN_TOKEN; '' if none."""
    if given and path:
        raise typer.BadParameter("give --admin-token-file or --admin-token, not both", param_hint="--admin-token")
    if path is not None:
        token = _token_file(path, "admin token")
        if not token:
            raise CliError(f"the admin token file {str(path)!r} is empty")
        return token
    if given:
        err.print("cardarena: warning: --admin-token puts the token on the command line, where other users of this "
                  "machine can read it; use CARDARENA_ADMIN_TOKEN or --admin-token-file", markup=False)
        return given
    return os.environ.get("CARDARENA_ADMIN_TOKEN", "")


# ----------------------------------------------------------------------------- leagues
def _print_ratings(rows) -> None:
    from cardarena.ratings import format_ratings
    out.print(format_ratings(rows, "table"))


#: Seconds the bots get, once their streams are closed at the end, to read their last messages
#: (``match_end``) and exit by themselves before they are stopped.
END_GRACE = 5.0


class _Stopped(Exception):
    """Ctrl-C, SIGTERM or SIGHUP reached the CLI while it hosted bots: they were stopped (exit
    128 + the signal: 130 for Ctrl-C)."""

    def __init__(self, signum: int):
        super().__init__("interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _run_hosting(bots, db, log_dir, start, move_time: float = 2.0, web=None, **hosting):
    """``asyncio.run(_host_and_run(…))`` with the stop signals in hand from the first moment: one
    that comes while the event loop is being made is kept and acted on once the loop runs (a
    KeyboardInterrupt out of the loop's own set-up would leave a half-made loop behind)."""
    early: list[int] = []
    main_thread = threading.current_thread() is threading.main_thread()  # else signals are not ours
    previous = {sig: signal.signal(sig, lambda signum, frame: early.append(signum))
                for sig in (STOP_SIGNALS if main_thread else ())}
    try:
        return asyncio.run(_host_and_run(bots, db, log_dir, start, move_time=move_time, early=early,
                                         signals=main_thread, web=web, **hosting))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@dataclass
class _WebPlan:
    """The web beside a local league (``--web-address``, ``demo --web``): its bound socket, and,
    for ``demo --web``, what to do once the league is over before serving on until a signal."""
    sock: object
    then: Optional[Callable[[], None]] = None


async def _host_and_run(bots, db, log_dir, start, host_address="127.0.0.1:0", move_time=2.0,
                        early: list[int] | None = None, signals: bool = True, web: _WebPlan | None = None,
                        authenticate: Callable[[str], str | None] | None = None, grace: float | None = None):
    """Host a referee locally, start the command bots, run ``start(referee, ledger, running)``.

    Then the end (module docstring): every stream is closed after its queued messages, the
    programs get END_GRACE seconds to leave by themselves, the rest are stopped. Ctrl-C,
    SIGTERM and SIGHUP stop it the same way at any moment (raised as :class:`_Stopped`; one
    that comes during the end only cuts the wait short). No bot program outlives the CLI.

    With ``web``, the pages are served in the same loop from the start (the league's matches
    can be watched live) and stop with it; with ``web.then``, a finished run calls it and then
    serves the pages on until a signal (raised as :class:`_Stopped` too)."""
    from .referee import Referee, TimeControl
    from .service import start_server
    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    got: list[int] = list(early or ())
    ending = False

    def stop(signum: int) -> None:
        got.append(signum)
        if len(got) == 1 and not ending:
            main_task.cancel()
    for sig in (STOP_SIGNALS if signals else ()):
        loop.add_signal_handler(sig, stop, sig)
    if got:
        raise _Stopped(got[0])
    ledger = open_ledger(db) if db else None
    tc = TimeControl(move_seconds=move_time) if grace is None else TimeControl(move_seconds=move_time,
                                                                                grace_seconds=grace)
    referee = Referee(authenticate or (ledger_auth(ledger) if ledger else None), tc)
    running: list[procs.BotProcess] = []
    started: dict = {}

    async def serve() -> None:
        started["hosted"] = await start_server(referee, host_address)
    finished = False
    try:
        serving = asyncio.ensure_future(serve())
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:  # stopped while the server comes up: it comes up, then stops
            await asyncio.gather(serving, return_exceptions=True)
            raise
        hosted = started["hosted"]
        if web is not None:
            from .web import host as web_host
            from .web.app import create_app
            started["web"] = await web_host.start(create_app(ledger or open_ledger(db), referee), web.sock)
            err.print(f"watch it live: {started['web'].url}", markup=False)
        for name, command in bots:
            if command:
                running.append(procs.start_bot(name, command, hosted.address,
                                               referee.mint_session_token(name), log_dir))
        result = await start(referee, ledger, running)
        finished = True
        return result
    except procs.BotStartError as e:
        raise CliError(str(e)) from None
    except asyncio.CancelledError:
        if got:
            raise _Stopped(got[0]) from None
        raise
    finally:
        ending = True
        connected = set()
        for link in list(referee.links.values()):
            connected.add(link.bot)
            link.close()  # the stream ends once the bot has been sent everything queued for it
        if finished:
            await _programs_ended([p for p in running if p.name in connected], END_GRACE, got)
        await asyncio.to_thread(procs.stop_all, running)
        if "hosted" in started:
            await started["hosted"].stop(0.5)
        if "web" in started:
            try:
                if finished and web.then is not None and not got:
                    web.then()
                    out.print(f"serving the pages at {started['web'].url} until Ctrl-C", markup=False)
                    while not got:
                        await asyncio.sleep(0.1)
                    raise _Stopped(got[0])
            finally:
                await started["web"].stop()


async def _programs_ended(running, timeout: float, signals: list[int]) -> None:
    """Wait until every program has exited, at most ``timeout`` seconds (or until a signal)."""
    deadline = time.monotonic() + timeout
    while any(p.returncode is None for p in running) and time.monotonic() < deadline and not signals:
        await asyncio.sleep(0.05)


async def _wait_connected(referee, names, running, timeout: float) -> None:
    """For `play`: every bot connected, or one line naming the bot that is not (and its log)."""
    deadline = time.monotonic() + timeout
    logs = {p.name: p.log_path for p in running}
    while time.monotonic() < deadline:
        missing = [n for n in names if not referee.is_connected(n)]
        if not missing:
            return
        for p in running:
            if p.returncode is not None and p.name in missing:
                raise CliError(f"bot {p.name} {procs.exit_text(p.returncode)} before connecting; see {p.log_path}")
        await asyncio.sleep(0.05)
    missing = [n for n in names if not referee.is_connected(n)]
    raise CliError(f"not connected after {timeout:g} s: "
                   + ", ".join(f"{n} (see {logs[n]})" if n in logs else n for n in missing))


TimeBankOpt = Annotated[float, typer.Option("--time-bank", help="Seconds of time bank per seat and match, "
                                                               "drawn on when a decision takes longer than --move-time.")]
MaxFaultsOpt = Annotated[int, typer.Option("--max-faults", help="Faults (late or invalid answers) after which a seat "
                                                              "forfeits its match; 0: never.")]
GraceOpt = Annotated[float, typer.Option("--grace", help="Seconds a bot may be away (disconnected) during one match, "
                                                        "summed over its disconnects; past them its seats forfeit.")]
StartTimeoutOpt = Annotated[float, typer.Option("--start-timeout", help="Seconds to wait for every bot to connect; "
                                                                     "a bot still missing then is absent (its seats forfeit).")]
LogDirOpt = Annotated[Path, typer.Option("--log-dir", help="Where the output of started bots goes.")]
LeaseOpt = Annotated[float, typer.Option(
    "--lease", help="Seconds a worker's claim on a match holds; renewed every third of it while the match plays. "
                    "A match whose lease ran out (its worker killed or cut off) is claimed and replayed by another worker.")]
MaxReconnectsOpt = Annotated[Optional[int], typer.Option(
    "--max-reconnects", show_default=False,
    help="New streams a bot may open during one match while a decision of it waits (after losing one); "
         "one more and its seats forfeit. Default: the referee's, 10.")]


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
            try:
                ledger.add_bot(name)
            except LedgerError as e:
                raise CliError(str(e)) from None


def _league_bar(title: str, total: int, done: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=False)
    task = bar.add_task(title, total=total, completed=done)
    return bar, task


def _count_bar(title: str):
    """A progress bar with ETA on stderr for a long ledger operation: (bar, ``update(done, total)``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True)
    task = bar.add_task(title, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
    return bar, update


def _run_league_locally(bots, db: str, log_dir: Path, move_time: float, total: int, done: int, play,
                        state: dict, game: str, web: "_WebPlan | None" = None):
    """Host a referee, start the bots, then ``play(referee, ledger, progress, stats, programs)``
    under a progress bar with ETA. Ctrl-C, SIGTERM and a ledger that cannot record stop it with
    one line and leave the league resumable (league.py); a dead bot never stops it."""
    from cardarena.ratings import LedgerStorageError
    from .league import LeagueError, LeagueStats, RecorderError
    stats = state["stats"] = LeagueStats()

    async def start(referee, ledger_, running):
        state["logs"] = {p.name: p.log_path for p in running}
        bar, task = _league_bar(f"league {state.get('league') or ''} ({game})", total, done)
        with bar:
            def progress(league_id, done_, total_, match_id):
                if state.get("league") is None:
                    state["league"] = league_id
                    bar.console.print(f"league {league_id} is in the ledger; after an interruption, go on with "
                                      f"`cardarena league resume {league_id}`", markup=False)
                state["done"] = done_
                bar.update(task, completed=done_, total=total_, description=f"league {league_id} ({game})")

            return await play(referee, ledger_, progress, stats, {p.name: p for p in running})

    def stopped(why: str) -> str:
        lid = state.get("league")
        if lid is None or state.get("served_after"):
            return why
        return (f"{why}; league {lid} stopped at {state.get('done', 0)}/{total} matches: "
                f"go on with `cardarena league resume {lid}`")

    try:
        result = _run_hosting(bots, db, log_dir, start, move_time=move_time, web=web)
    except LeagueError as e:
        raise CliError(str(e)) from None
    except KeyboardInterrupt:
        raise CliError(stopped("interrupted"), code=130) from None
    except _Stopped as e:
        raise CliError(stopped(str(e)), code=128 + e.signum) from None
    except (LedgerStorageError, RecorderError) as e:
        raise CliError(stopped(str(e))) from None
    return result, stats


def _after_league(ledger, league_id: int, game: str, stats, logs: dict) -> None:
    """The end of `league run` and `league resume`: counts, absent bots, speed, standings, ratings."""
    from cardarena.ratings import standings
    from cardarena.ratings.standings import format_duplicate, format_table
    info = ledger.league(league_id)
    c = info.counts
    state = "finished" if info.done else "stopped"
    line = f"league {league_id} {state}: {c['finished']} matches"
    if c["failed"]:
        line += f", {c['failed']} failed (`cardarena league resume {league_id} --retry-failed` plays them again)"
    if not info.done:
        line += f", {c['scheduled'] + c['running']} still to play"
    out.print(line + ".", markup=False)
    results = ledger.league_results(league_id)
    for bot, why in sorted(stats.absent.items()):
        forfeits = sum(1 for r in results for b, f in zip(r.bots, r.forfeited) if b == bot and f)
        where = f"its log: {logs[bot]}" if bot in logs else "it connects by itself"
        out.print(f"absent: bot {bot} {why}; {forfeits} seat{'s' if forfeits != 1 else ''} forfeited ({where})",
                  markup=False)
    err.print(f"this run: {stats.summary()}", markup=False)
    st = standings(results, info.settings.get("bots"))
    out.print("standings (points: 1 per seat placed below, ½ per shared place):", markup=False)
    out.print(format_table(st), markup=False)
    if st.sets:
        out.print("duplicate sets (one deal in every seat rotation):", markup=False)
        out.print(format_duplicate(st, max_sets=0 if len(st.sets) <= 8 else 8), markup=False)
    out.print(f"ratings for {game} (every match of the ledger; `cardarena league show {league_id}` for seats "
              "and head-to-head):", markup=False)
    _print_ratings(ledger.ratings(game))


def _schedule_line(settings: dict, total: int) -> str:
    kind = settings.get("schedule", "round-robin")
    if kind == "balanced":
        text = f"balanced schedule of {settings.get('matches')} matches"
    else:
        r = settings.get("rounds", 1)
        text = f"round robin, {r} round{'s' if r != 1 else ''}, {total} matches"
    if settings.get("duplicate"):
        text += f", duplicate ({total // max(settings.get('seats') or 1, 1)} sets: one deal in every seat rotation)"
    return text


@league_app.command("run")
def league_run(
    game: Annotated[str, typer.Option("--game", help="Game id (see `cardarena games`).")],
    bot: Annotated[list[str], typer.Option("--bot", help="NAME (a registered bot that connects itself) or NAME=COMMAND (started by the CLI). Repeat.")],
    seats: Annotated[int, typer.Option("--seats", help="Table size; 0: the game's smallest.")] = 0,
    rounds: Annotated[int, typer.Option("--rounds", help="Round-robin rounds: every group of bots plays once in every seat rotation per round.")] = 1,
    matches: Annotated[Optional[int], typer.Option("--matches", help="Instead of a round robin: a balanced schedule of N matches (every bot plays equally often, pairs meet as evenly as possible, seats rotate fairly).")] = None,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Each group plays the same deal in every seat rotation (a duplicate set), to take luck out of comparisons.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="League seed; the schedule and every match seed derive from it.")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", help="Matches played at once.")] = 4,
    move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision; a later answer is a fault and the default action is played.")] = 2.0,
    time_bank: TimeBankOpt = 0.0,
    max_faults: MaxFaultsOpt = 3,
    grace: GraceOpt = 10.0,
    max_reconnects: MaxReconnectsOpt = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE (see `cardarena games`). Repeat.")] = None,
    server: ServerOpt = None,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
    web_address: Annotated[Optional[str], typer.Option(
        "--web-address", help="Also serve the web pages on HOST:PORT while the league plays, to watch its "
                              "matches live (port 0: a free one).")] = None,
    lease: LeaseOpt = 30.0,
):
    """Run a league: a round robin (or --matches N balanced), optionally duplicate; then standings and ratings.

    The schedule, seeds, options and each bot's command are written to the ledger before the
    first match, so an interrupted league (Ctrl-C, a killed process, a restart) goes on with
    `cardarena league resume ID`. A bot whose program exits before connecting, does not connect
    within --start-timeout, or dies during the league is absent: its seats forfeit and the
    league plays on; the summary names it and its log. This process is the league's first
    worker: `cardarena league work ID` joins it from other processes or machines (a shared
    PostgreSQL --db); each match is claimed on a lease (--lease) that its worker renews.
    """
    from .league import LeagueError, LeagueSpec, check_spec, league_plans
    check_game(game)
    bots = parse_bots(bot)
    options = parse_options(option or [])
    check_time_control(move_time, time_bank, max_faults, grace, max_reconnects)
    check_seconds(start_timeout, "--start-timeout")
    check_seconds(lease, "--lease", above_zero=True)
    names = [n for n, _ in bots]
    spec = LeagueSpec(game=game, bots=names, seats=seats, rounds=rounds, seed=seed, concurrency=concurrency,
                      move_seconds=move_time, options=options, start_timeout=start_timeout,
                      bank_seconds=time_bank, max_faults=max_faults, grace_seconds=grace, matches=matches,
                      duplicate=duplicate, commands=dict(bots), workdir=os.getcwd(), max_reconnects=max_reconnects)
    try:
        spec = check_spec(spec)
        check_programs(bots)
        if server:
            if (matches is not None or duplicate or time_bank or max_faults != 3 or grace != 10.0
                    or max_reconnects is not None):
                raise CliError("--matches, --duplicate, --time-bank, --max-faults, --grace and --max-reconnects "
                               "need a local league (without --server) for now")
            if web_address is not None:
                raise CliError("--web-address serves the pages of a local league; the --server serves its own "
                               "(`cardarena serve --web-address`)")
            return _league_remote(server, spec, bots, log_dir)
        plans = league_plans(spec)
    except LeagueError as e:
        raise CliError(str(e)) from None
    from .schedule import describe
    total = len(plans)
    plays = sorted(set(describe(plans, names, spec.seats)["plays"].values()))
    ledger = open_ledger(db)
    _register_bots(ledger, bots)
    league_log = log_dir / time.strftime("league-%Y%m%d-%H%M%S")
    make_log_dir(bots, league_log)
    settings = {"schedule": "balanced" if matches is not None else "round-robin", "rounds": rounds,
                "matches": matches, "duplicate": duplicate, "seats": spec.seats}
    each = f"every bot plays {plays[0]} matches" if len(plays) == 1 else f"bots play {plays[0]}–{plays[-1]} matches"
    err.print(f"league: {game}, {len(names)} bots, tables of {spec.seats}, {_schedule_line(settings, total)}"
              f"; {each}; bot logs in {league_log}", markup=False)

    async def play(referee, ledger_, progress, stats, programs):
        from .league import run_league
        return await run_league(referee, ledger_, spec, progress=progress, stats=stats, plans=plans,
                                programs=programs, lease=lease)

    state: dict = {}
    serve_after = _SERVE_AFTER.get()
    web = None
    if web_address is not None or serve_after:
        sock = _web_socket(web_address, required=True)

        def then() -> None:  # demo --web: the league's summary, then the pages go on
            state["served_after"] = True
            _after_league(ledger, state["league"], game, state["stats"], state.get("logs", {}))
        web = _WebPlan(sock, then if serve_after else None)
    league_id, stats = _run_league_locally(bots, db, league_log, move_time, total, 0, play, state, game, web)
    _after_league(ledger, league_id, game, stats, state.get("logs", {}))


#: Set by ``demo --web``: a league run locally serves its pages on after it finished, until a signal.
_SERVE_AFTER: ContextVar[bool] = ContextVar("serve_after", default=False)


@league_app.command("resume")
def league_resume(
    league_id: Annotated[int, typer.Argument(help="League id (see `cardarena league list`).")],
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="NAME=COMMAND to start a bot with another command than the league recorded, or NAME for a registered bot that connects itself. Repeat.")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", "-j", help="Matches played at once (default: as the league was run).")] = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Also play the league's failed matches again.")] = False,
    stale_after: Annotated[Optional[float], typer.Option("--stale-after", help="Replay only running matches claimed more than this many seconds ago (when another process may still be playing the league). Default: every running match, its process being gone.")] = None,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
):
    """Go on with an interrupted league: replay its interrupted matches from their seeds, play the rest.

    The bots are started again with the commands the league recorded (from the folder it was
    started in), unless --bot gives a new command; the time control (--move-time, --time-bank,
    --max-faults, --grace, --max-reconnects) is the league's own. No match is lost, played
    twice, or counted twice in the ratings. Absent bots forfeit as in `league run`.

    Resume is for a league nobody plays any more: it takes back every running match at once
    (with --stale-after, those claimed longer ago) and replays it. To add a worker to a league
    that is being played, use `cardarena league work ID`, which leaves the running matches to
    their workers and replays only those whose lease ran out.
    """
    check_seconds(start_timeout, "--start-timeout")
    if stale_after is not None:
        check_seconds(stale_after, "--stale-after")
    ledger = open_ledger(db)
    info, bots = _league_bots(ledger, league_id, bot, concurrency)
    settings, c = info.settings, info.counts
    redo = c["running"] + (c["failed"] if retry_failed else 0)
    if c["scheduled"] == 0 and redo == 0:
        out.print(f"league {league_id} is complete: {c['finished']} matches finished, {c['failed']} failed; "
                  "nothing to resume" + (" (--retry-failed plays the failed ones again)" if c["failed"] else ""),
                  markup=False)
        return
    _register_bots(ledger, bots)
    from .league import settings_time_control
    from .referee import TimeControl
    tc = settings_time_control(settings, TimeControl())
    total = info.total
    done = c["finished"] + c["failed"] - (c["failed"] if retry_failed else 0)
    league_log = log_dir / time.strftime(f"league-{league_id}-resume-%Y%m%d-%H%M%S")
    make_log_dir(bots, league_log)
    err.print(f"league {league_id}: {info.game}, {c['finished']}/{total} matches recorded; replaying "
              f"{c['running']} interrupted" + (f" and {c['failed']} failed" if retry_failed and c["failed"] else "")
              + f" from their seeds, {c['scheduled']} still scheduled; bot logs in {league_log}", markup=False)

    async def play(referee, ledger_, progress, stats, programs):
        from .league import resume_league
        return await resume_league(referee, ledger_, league_id, concurrency, progress=progress, stats=stats,
                                   start_timeout=start_timeout, stale_after=stale_after, retry_failed=retry_failed,
                                   programs=programs)

    state: dict = {"league": league_id}
    _, stats = _run_league_locally(bots, db, league_log, tc.move_seconds, total, done, play, state, info.game)
    _after_league(ledger, league_id, info.game, stats, state.get("logs", {}))


def _league_bots(ledger, league_id: int, bot: list[str] | None, concurrency: int | None):
    """For `league resume` and `league work`: the league, and its bots as (name, command): the
    command the league recorded (run from its folder) unless --bot gives another."""
    from cardarena.ratings import LedgerError
    try:
        info = ledger.league(league_id)
    except LedgerError as e:
        raise CliError(str(e)) from None
    settings = info.settings
    names = list(settings.get("bots") or [])
    if not names:
        raise CliError(f"league {league_id} does not record its bots; it cannot be resumed")
    if concurrency is not None and concurrency < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--concurrency")
    overrides = dict(parse_bots(bot)) if bot else {}
    strangers = sorted(set(overrides) - set(names))
    if strangers:
        raise typer.BadParameter(f"league {league_id} has no bot {strangers[0]!r} (its bots: {', '.join(names)})",
                                 param_hint="--bot")
    check_programs(overrides.items())
    stored = settings.get("commands") or {}
    workdir = settings.get("workdir")
    bots = []
    for name in names:
        if name in overrides:
            bots.append((name, overrides[name]))
        elif name in stored:
            bots.append((name, stored[name] and _recorded_command(league_id, name, stored[name], workdir)))
        else:
            raise CliError(f"league {league_id} does not record how to start bot {name!r}: give --bot {name}=COMMAND "
                           f"(or --bot {name} for a registered bot that connects itself)")
    return info, bots


@league_app.command("work")
def league_work(
    league_id: Annotated[int, typer.Argument(help="League id (see `cardarena league list`).")],
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="NAME=COMMAND to start a bot with another command than the league recorded, or NAME for a registered bot that connects itself. Repeat.")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", "-j", help="Matches this worker plays at once (default: as the league was run).")] = None,
    lease: LeaseOpt = 30.0,
    start_timeout: StartTimeoutOpt = 30.0,
    log_dir: LogDirOpt = Path("logs"),
    db: DbOpt = "cardarena.db",
):
    """Join a league as one more worker, from another process or machine: claim, play and record its matches.

    The worker hosts its own referee and starts its own copies of the league's bots (the
    commands the league recorded, run from the folder it was run from, unless --bot gives
    another), claims scheduled matches, and matches whose worker stopped renewing its lease
    (killed, cut off: each is replayed from its seed), and exits once no match is left to claim
    (0), saying what it played. Matches other workers are playing are theirs: unlike `league
    resume`, nothing is taken back before its lease runs out. Every worker needs the same
    ledger: a PostgreSQL URL for workers on several machines.
    """
    from .league import settings_time_control, worker_name
    from .referee import TimeControl
    check_seconds(lease, "--lease", above_zero=True)
    check_seconds(start_timeout, "--start-timeout")
    ledger = open_ledger(db)
    info, bots = _league_bots(ledger, league_id, bot, concurrency)
    c = info.counts
    if info.done:
        out.print(f"league {league_id} is complete: {c['finished']} matches finished, {c['failed']} failed; "
                  "nothing to claim", markup=False)
        return
    _register_bots(ledger, bots)
    tc = settings_time_control(info.settings, TimeControl())
    league_log = log_dir / time.strftime(f"league-{league_id}-work-%Y%m%d-%H%M%S")
    make_log_dir(bots, league_log)
    worker = worker_name()
    err.print(f"league {league_id}: {info.game}, {c['finished']}/{info.total} matches recorded, {c['scheduled']} "
              f"scheduled, {c['running']} being played; joining as worker {worker}; bot logs in {league_log}",
              markup=False)

    async def play(referee, ledger_, progress, stats, programs):
        from .league import work_league
        return await work_league(referee, ledger_, league_id, concurrency, progress=progress, stats=stats,
                                 start_timeout=start_timeout, programs=programs, lease=lease, worker=worker)

    state: dict = {"league": league_id}
    done = c["finished"] + c["failed"]
    _, stats = _run_league_locally(bots, db, league_log, tc.move_seconds, info.total, done, play, state, info.game)
    played = ", ".join(str(m) for m in sorted(stats.matches)) or "none"
    line = f"worker {worker} played {stats.played} matches of league {league_id} (match ids: {played})"
    if stats.skipped:
        line += f"; {stats.skipped} dropped (taken over by another worker, or recorded already)"
    out.print(line, markup=False)
    _after_league(ledger, league_id, info.game, stats, state.get("logs", {}))


def _recorded_command(league_id: int, name: str, command: str, workdir: str | None) -> str:
    """A bot's command as its league recorded it, run from the folder the league was run from
    (one line if that folder is gone or the program cannot run)."""
    elsewhere = bool(workdir) and Path(workdir) != Path.cwd()
    if elsewhere and not Path(workdir).is_dir():
        raise CliError(f"league {league_id} ran its bots from {workdir}, which is gone; give --bot {name}=COMMAND")
    try:
        argv = procs.check_command(command, cwd=workdir)
    except procs.BotStartError as e:
        raise CliError(f"league {league_id} starts bot {name} with {command!r}, which cannot run: {e}; "
                       f"give --bot {name}=COMMAND") from None
    if not elsewhere:
        return command
    # run the recorded command from the recorded folder ("python" is this interpreter)
    import shlex
    return "sh -c " + shlex.quote(f"cd {shlex.quote(workdir)} && exec {shlex.join(argv)}")


def _league_remote(server: str, spec, bots, log_dir: Path):
    from cardarena.ratings import RatingRow
    from cardarena.v1 import admin_pb2
    from . import wire
    stub, md = admin_stub(server)
    local = [n for n, c in bots if c]
    req = admin_pb2.RunLeagueRequest(game=spec.game, bots=[n for n, c in bots if not c], local_bots=local,
                                     seats=spec.seats, rounds=spec.rounds, seed=spec.seed,
                                     concurrency=spec.concurrency, move_seconds=spec.move_seconds or 0,
                                     options=wire.struct(spec.options), start_timeout=spec.start_timeout)
    running = []
    rows = []

    def stop(signum, frame):
        raise _Stopped(signum)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        if local:
            procs.prepare_log_dir(log_dir)
        for msg in rpc(stub.RunLeague, req, metadata=md):
            if msg.session_tokens:
                commands = dict(bots)
                for st in msg.session_tokens:
                    running.append(procs.start_bot(st.bot, commands[st.bot], server, st.token, log_dir))
            if msg.error:
                raise CliError(msg.error)
            if msg.total:
                err.print(f"league {msg.league_id}: {msg.done}/{msg.total}", end="\r")
            if msg.ratings:
                rows = [RatingRow(r.rank, r.bot, r.game, r.mu, r.sigma, r.conservative, r.matches, r.wins,
                                  r.mean_place) for r in msg.ratings]
    except procs.BotStartError as e:
        raise CliError(str(e)) from None
    except _Stopped as e:
        raise CliError(f"{e}; the bots it started are stopped", code=128 + e.signum) from None
    except Exception as e:
        import grpc
        if isinstance(e, grpc.RpcError):
            raise CliError(f"server: {e.details()}") from None
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        procs.stop_all(running)
    err.print()
    _print_ratings(rows)


@league_app.command("list")
def league_list(db: DbOpt = "cardarena.db"):
    """The leagues: game, schedule, bots, progress (finished/total, failed, interrupted), state."""
    from cardarena.ratings.standings import text_table
    rows = []
    for lg in open_ledger(db).leagues():
        s, c = lg.settings, lg.counts
        kind = "balanced" if s.get("schedule") == "balanced" else f"round robin ×{s.get('rounds', 1)}"
        if s.get("duplicate"):
            kind += ", duplicate"
        if lg.done:
            state = "complete"
        else:
            state = f"open: {c['running']} running, {c['scheduled']} scheduled"
        rows.append([str(lg.id), lg.game, kind, str(len(s.get("bots") or [])), str(s.get("seats", "")),
                     f"{c['finished']}/{lg.total}", str(c["failed"]), state,
                     lg.created_at.isoformat(timespec="seconds")])
    if not rows:
        out.print("(no leagues yet: `cardarena league run`)", markup=False)
        return
    out.print(text_table(["id", "game", "schedule", "bots", "seats", "finished", "failed", "state", "created"], rows,
                         [True, False, False, True, True, True, True, False, False]), markup=False)


@league_app.command("show")
def league_show(league_id: Annotated[int, typer.Argument(help="League id (see `cardarena league list`).")],
                fmt: Annotated[str, typer.Option("--format", help="table or json")] = "table",
                sets: Annotated[int, typer.Option("--sets", help="Duplicate sets to list one by one (0: all).")] = 20,
                db: DbOpt = "cardarena.db"):
    """A league: settings, progress, standings (points, places with 95% intervals, per-seat results),
    head-to-head, and for a duplicate league the results per set."""
    from cardarena.ratings import LedgerError, standings
    from cardarena.ratings.standings import format_duplicate, format_head_to_head, format_seats, format_table
    if fmt not in ("table", "json"):
        raise typer.BadParameter("use table or json", param_hint="--format")
    ledger = open_ledger(db)
    try:
        info = ledger.league(league_id)
        results = ledger.league_results(league_id)
    except LedgerError as e:
        raise CliError(str(e)) from None
    s = info.settings
    st = standings(results, s.get("bots"))
    if fmt == "json":
        sys.stdout.write(json.dumps({"league": info.to_json(), "standings": st.to_json()}, ensure_ascii=False,
                                    indent=1) + "\n")
        return
    c = info.counts
    lines = [f"league {info.id}: {info.game}, {len(s.get('bots') or [])} bots, tables of {s.get('seats')}, "
             f"{_schedule_line(s, info.total)}, seed {s.get('seed')}"]
    if info.options:
        lines.append("options: " + ", ".join(f"{k}={v!r}" for k, v in info.options.items()))
    if "move_seconds" in s:
        faults = s.get("max_faults")
        lines.append(f"time: {s.get('move_seconds'):g} s per decision, bank {s.get('bank_seconds', 0):g} s, "
                     + (f"forfeit after {faults} faults" if faults else "no forfeit for faults")
                     + (f", away at most {s['grace_seconds']:g} s per match" if s.get("grace_seconds") is not None else "")
                     + (f" and {s['max_reconnects']} reconnects" if s.get("max_reconnects") is not None else ""))
    commands = s.get("commands") or {}
    lines.append("bots: " + ", ".join(f"{b} ({commands.get(b) or 'connects itself'})" for b in s.get("bots") or []))
    progress = f"progress: {c['finished']}/{info.total} finished, {c['failed']} failed, {c['running']} running, {c['scheduled']} scheduled"
    if not info.done:
        progress += f" (interrupted or in progress: `cardarena league resume {info.id}` goes on)"
    lines.append(progress)
    lines.append(f"created {info.created_at.isoformat(timespec='seconds')}")
    out.print("\n".join(lines) + "\n", markup=False)
    out.print("standings (points: 1 per seat placed below, ½ per shared place; mean place with its 95% interval):",
              markup=False)
    out.print(format_table(st), markup=False)
    out.print("mean place by seat (matches):", markup=False)
    out.print(format_seats(st), markup=False)
    out.print("head-to-head (row bot placed above-below-level with column bot, in the matches where both sat):",
              markup=False)
    out.print(format_head_to_head(st), markup=False)
    if st.sets:
        out.print("duplicate sets (one deal in every seat rotation; a set ranks its bots by mean place once complete):",
                  markup=False)
        out.print(format_duplicate(st, max_sets=sets), markup=False)


# ----------------------------------------------------------------------------- matches
@match_app.command("list")
def match_list(game: Annotated[Optional[str], typer.Option("--game")] = None,
               league: Annotated[Optional[int], typer.Option("--league")] = None,
               limit: Annotated[int, typer.Option("--limit")] = 50, db: DbOpt = "cardarena.db"):
    """The latest matches: id, game, status, bots with places."""
    for m in open_ledger(db).matches(league_id=league, game=game, limit=limit):
        seats = "  ".join(f"{b}" + (f" #{p}" if p else "") for b, p in zip(m.bots, m.places))
        print(f"{m.id}\t{m.game}\t{m.status}\t{seats}")


def _load_match(db: str, match_id: int):
    from cardarena.ratings import LedgerError
    try:
        return open_ledger(db).match(match_id)
    except LedgerError as e:
        raise CliError(str(e)) from None


@match_app.command("show")
def match_show(match_id: Annotated[int, typer.Argument(help="Match id (see `cardarena match list`).")],
               seat: Annotated[Optional[int], typer.Option("--seat", help="Show only what this seat saw.")] = None,
               db: DbOpt = "cardarena.db"):
    """A recorded match, play by play (omniscient, or as one seat saw it)."""
    m = _load_match(db, match_id)
    if seat is not None and not 0 <= seat < len(m.bots):
        raise typer.BadParameter(f"match {match_id} has seats 0–{len(m.bots) - 1}", param_hint="--seat")
    from .replay import render_match
    for line in render_match(m, seat):
        out.print(line, markup=False)


@match_app.command("export")
def match_export(match_id: Annotated[int, typer.Argument(help="Match id.")], db: DbOpt = "cardarena.db"):
    """A recorded match as JSON: seats, seed, options, schedule place, steps, result, faults, rating
    changes and the omniscient event log (each event with the seats that saw it; null: everyone)."""
    m = _load_match(db, match_id)
    sys.stdout.write(json.dumps(m.to_json(), ensure_ascii=False, indent=1) + "\n")


@match_app.command("verify")
def match_verify(match_id: Annotated[Optional[int], typer.Argument(help="Match id; or give --league.")] = None,
                 league: Annotated[Optional[int], typer.Option("--league", help="Verify every finished match of this league.")] = None,
                 db: DbOpt = "cardarena.db"):
    """Replay a recorded match from its seed and steps and check the recorded events and result."""
    from cardarena.ratings import LedgerError
    from .league import LeagueError, verify_match
    if (match_id is None) == (league is None):
        raise typer.BadParameter("give a match id or --league, one of them", param_hint="MATCH_ID")
    ledger = open_ledger(db)
    if match_id is not None:
        m = _load_match(db, match_id)
        try:
            problems = verify_match(m)
        except LeagueError as e:
            raise CliError(str(e)) from None
        if problems:
            for p in problems:
                out.print(f"match {m.id}: {p}", markup=False)
            raise CliError(f"match {m.id} does not verify: {len(problems)} difference{'s' if len(problems) > 1 else ''}")
        out.print(f"match {m.id} verified: seed {m.seed} and its {len(m.steps)} steps replay the {len(m.events)} "
                  f"recorded events and the result (places {' '.join(map(str, m.places))}) exactly", markup=False)
        return
    try:
        ids = [m.id for m in ledger.league_matches(league, "finished")]
    except LedgerError as e:
        raise CliError(str(e)) from None
    bad = 0
    older: list[int] = []
    bar, update = _count_bar(f"verifying league {league}")
    with bar:
        for k, mid in enumerate(ids):
            problems = _replay(ledger.match(mid), older)
            if problems:
                bad += 1
                for p in problems:
                    out.print(f"match {mid}: {p}", markup=False)
            update(k + 1, len(ids))
    _say_older(older)
    if bad:
        raise CliError(f"league {league}: {bad} of {len(ids)} finished matches do not verify")
    done = len(ids) - len(older)
    out.print(f"league {league}: {'all ' if not older else ''}{done} finished matches verified (their seeds and steps "
              "replay the recorded events and results exactly)", markup=False)


def _replay(m, older: list[int]) -> list[str]:
    """``verify_match``; a match recorded by another rules engine version is noted in ``older``."""
    from .league import NotReplayable, verify_match
    try:
        return verify_match(m)
    except NotReplayable:
        older.append(m.id)
        return []


def _say_older(older: list[int]) -> None:
    if older:
        shown = ", ".join(map(str, older[:10])) + (", …" if len(older) > 10 else "")
        out.print(f"{len(older)} finished matches ({shown}) were recorded by another version of their game's "
                  "rules engine and are not replayed (`match verify ID` says which)", markup=False)


# ----------------------------------------------------------------------------- ratings recompute, ledger check
@ratings_app.command("recompute")
def ratings_recompute(game: Annotated[Optional[str], typer.Option("--game", help="Only this game.")] = None,
                      db: DbOpt = "cardarena.db"):
    """Rebuild the ratings and their history from the recorded matches, in recording order."""
    if game:
        check_game(game)
    ledger = open_ledger(db)
    before = {(r.game, r.bot): (r.mu, r.sigma, r.matches) for r in ledger.ratings(game)}
    t = time.perf_counter()
    bar, update = _count_bar("replaying the matches")
    with bar:
        replayed = ledger.recompute(game, progress=update)
    after = {(r.game, r.bot): (r.mu, r.sigma, r.matches) for r in ledger.ratings(game)}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    scope = f"{game}" if game else "every game"
    verdict = ("the stored ratings were already exact" if not changed else
               f"{len(changed)} rating{'s' if len(changed) > 1 else ''} changed: "
               + ", ".join(f"{b} in {g}" for g, b in changed[:10]) + (" …" if len(changed) > 10 else ""))
    out.print(f"ratings of {scope} recomputed from {replayed} matches in {time.perf_counter() - t:.1f} s; {verdict}",
              markup=False)


@ledger_app.command("upgrade")
def ledger_upgrade(db: DbOpt = "cardarena.db"):
    """Migrate a ledger made by an earlier cardarena to this one's schema (back it up first).

    Every other command refuses a ledger of another schema version with one line saying to run
    this. A ledger already current is left as it is."""
    from cardarena.ratings import Ledger, LedgerError, LedgerStorageError
    if not db.strip():
        raise typer.BadParameter("is empty: give a SQLite file or an SQLAlchemy URL", param_hint="--db")
    if "://" not in db and db != ":memory:" and not Path(db).expanduser().exists():
        raise CliError(f"no ledger at {db!r}")
    t0 = time.monotonic()
    try:
        was, now = Ledger.upgrade(db)
    except (LedgerError, LedgerStorageError) as e:
        raise CliError(str(e)) from None
    from cardarena.ratings.schema import RELEASES
    if was == now:
        out.print(f"the ledger {db} is at schema version {now} ({RELEASES[now]}) already: nothing to do", markup=False)
    else:
        out.print(f"the ledger {db} upgraded from schema version {was} ({RELEASES[was]}) to {now} ({RELEASES[now]}) "
                  f"in {time.monotonic() - t0:.1f} s", markup=False)


@ledger_app.command("check")
def ledger_check(replay: Annotated[bool, typer.Option("--replay", help="Also replay every finished match from its seed and steps (`match verify` for all).")] = False,
                 db: DbOpt = "cardarena.db"):
    """Check the ledger: every finished match complete, nothing counted twice, every rating and its
    history equal to their recomputation (and with --replay, every match log). Exit 1 on problems."""
    ledger = open_ledger(db)
    counts = ledger.counts()
    bar, update = _count_bar("checking the ratings")
    with bar:
        problems = ledger.check(progress=update)
    replayed = 0
    older: list[int] = []
    if replay:
        ids = ledger.match_ids("finished")
        bar, update = _count_bar("replaying the matches")
        with bar:
            for k, mid in enumerate(ids):
                problems += [f"match {mid}: {p}" for p in _replay(ledger.match(mid), older)]
                replayed += 1
                update(k + 1, len(ids))
        replayed -= len(older)
        _say_older(older)
    m = counts["matches"]
    summary = (f"{sum(m.values())} matches ({m['finished']} finished, {m['failed']} failed, {m['running']} running, "
               f"{m['scheduled']} scheduled), {counts['bots']} bots, {counts['leagues']} league{'s' if counts['leagues'] != 1 else ''}")
    if problems:
        for p in problems:
            out.print(p, markup=False)
        raise CliError(f"the ledger has {len(problems)} problem{'s' if len(problems) > 1 else ''} ({summary})")
    out.print(f"ledger OK: {summary}; every finished match is complete and counted once, every rating and its "
              "history equal their recomputation" + (f", {'all ' if not older else ''}{replayed} finished matches replay "
                                                     "exactly" if replay else ""),
              markup=False)


# ----------------------------------------------------------------------------- play
@app.command()
def play(game: Annotated[str, typer.Option("--game", help="Game id.")],
         bot: Annotated[list[str], typer.Option("--bot", help="NAME=COMMAND, one per seat in seat order (or NAME of a registered bot that connects itself).")],
         seed: Annotated[int, typer.Option("--seed")] = 0,
         option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE.")] = None,
         seat: Annotated[Optional[int], typer.Option("--seat", help="Print only what this seat sees.")] = None,
         move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision.")] = 2.0,
         time_bank: TimeBankOpt = 0.0,
         max_faults: MaxFaultsOpt = 3,
         grace: GraceOpt = 10.0,
         max_reconnects: MaxReconnectsOpt = None,
         record: Annotated[bool, typer.Option("--record", help="Record the match and its ratings in the ledger.")] = False,
         log_dir: LogDirOpt = Path("logs"),
         db: DbOpt = "cardarena.db"):
    """Play one match over gRPC with a readable log as it happens (for bot authors).

    It stops with one line if a bot does not connect within 30 s. After the match every bot
    gets its match_end and a few seconds to leave by itself; Ctrl-C and SIGTERM stop the bots too.
    """
    check_game(game)
    bots = parse_bots(bot)
    options = parse_options(option or [])
    cls = get_game(game)
    if not cls.min_players <= len(bots) <= cls.max_players:
        raise typer.BadParameter(f"{game} is for {cls.min_players}–{cls.max_players} players; {len(bots)} bots given", param_hint="--bot")
    if seat is not None and not 0 <= seat < len(bots):
        raise typer.BadParameter(f"seats are 0–{len(bots) - 1}", param_hint="--seat")
    check_time_control(move_time, time_bank, max_faults, grace, max_reconnects)
    from .referee import TimeControl
    tc = TimeControl(move_seconds=move_time, bank_seconds=time_bank, max_faults=max_faults, grace_seconds=grace,
                     **({} if max_reconnects is None else {"max_reconnects": max_reconnects}))
    try:
        cls.parse_options(options)
    except GameError as e:
        raise CliError(str(e)) from None
    check_programs(bots)
    make_log_dir(bots, log_dir)
    names = [n for n, _ in bots]
    need_ledger = record or any(c is None for _, c in bots)
    ledger = open_ledger(db) if need_ledger else None
    if ledger is not None:
        _register_bots(ledger, bots)

    async def start(referee, ledger_, running):
        await _wait_connected(referee, names, running, 30.0)
        match_id = "play"
        if record:
            match_id = str(ledger.create_match(game, seed, cls.parse_options(options), names))

        def show(match, events):
            for ev in events:
                if seat is None or ev.visible_to(seat):
                    out.print(f"[{len(match.steps):>4}] {match.game.event_text(ev.data)}", markup=False)

        outcome = await referee.play(game, names, seed, options, match_id, time_control=tc, on_events=show)
        if record:
            ledger.claim_match(int(match_id))
            from .league import record_args
            ledger.record_match(int(match_id), **record_args(outcome, time.monotonic() - outcome.duration))
        return outcome, match_id

    try:
        outcome, match_id = _run_hosting(bots, db if need_ledger else None, log_dir, start, move_time=move_time)
    except _Stopped as e:
        raise CliError(f"{e}; its bots are stopped", code=128 + e.signum) from None
    out.print("result:")
    for s, name in enumerate(names):
        extra = f" ({outcome.faults[s]} faults)" if outcome.faults[s] else ""
        out.print(f"  place {outcome.result.places[s]}: seat {s} {name}, score {outcome.result.scores[s]:g}{extra}")
    if record:
        out.print(f"recorded as match {match_id}")


# ----------------------------------------------------------------------------- demo
@app.command()
def demo(db: DbOpt = "cardarena-demo.db",
         game: Annotated[str, typer.Option("--game", help="Game id.")] = "sixth-card",
         rounds: Annotated[int, typer.Option("--rounds")] = 2,
         web: Annotated[bool, typer.Option("--web", help="Serve the web pages from the start (watch the matches "
                                                         "live) and on after the league, until Ctrl-C.")] = False,
         web_address: WebAddressOpt = None):
    """A league of the example bots over real gRPC on a local port, then the rating table.

    Its last line is the command that shows the league in a browser; with --web the pages are
    served while it plays and after, until Ctrl-C."""
    check_game(game)
    examples = REPO / "examples" / "python"
    if not examples.is_dir():
        raise CliError(f"the example bots are not at {examples}: run the demo from a clone of cardarena")
    cls = get_game(game)
    seats = min(4, cls.max_players)
    bots = [f"random-{i}=python {examples / 'random_bot.py'}" for i in (1, 2)]
    bots += [f"heuristic-{i}=python {examples / 'heuristic_bot.py'}" for i in (1, 2)]
    if web_address is not None and not web:
        raise typer.BadParameter("--web-address goes with --web", param_hint="--web-address")
    err.print(f"demo: {game}, 4 example bots (Python) over gRPC, ledger {db}")
    token = _SERVE_AFTER.set(web)
    try:
        league_run(game=game, bot=bots, seats=seats, rounds=rounds, seed=int(time.time()), concurrency=4,
                   move_time=2.0, option=None, server=None, start_timeout=30.0, log_dir=Path("logs"), db=db,
                   web_address=web_address)
    finally:
        _SERVE_AFTER.reset(token)
    out.print(f"see a match: cardarena match list --db {db}; cardarena match show ID --db {db}")
    shown = db if " " not in db else shlex.quote(db)
    out.print(f"cardarena web --db {shown}    # the league in a browser (it prints its URL)", markup=False)


# ----------------------------------------------------------------------------- bridge
from . import bridge  # noqa: E402  (the stdin/stdout bridge command lives beside its logic)

bridge.register(app)

from .web import command as web_command  # noqa: E402  (imports the web stack only when it runs)

web_command.register(app)

from . import check as check_command  # noqa: E402  (`cardarena check`, the pre-flight of a bot)

check_command.register(app)


# ----------------------------------------------------------------------------- entry point
def _storage_error(e: Exception) -> bool:
    """A LedgerStorageError (the ledger module is looked at only if something imported it)."""
    ledger = sys.modules.get("cardarena.ratings.ledger")
    return ledger is not None and isinstance(e, ledger.LedgerStorageError)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; known errors and bad arguments end as one line (exit 1 and 2), Ctrl-C too (130)."""
    if signal.getsignal(signal.SIGINT) is _early_sigint:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C is a KeyboardInterrupt again
    try:
        if _EARLY_SIGINT:
            raise KeyboardInterrupt
        rv = app(args=argv, prog_name="cardarena", standalone_mode=False)
    except click_exc.UsageError as e:
        hint = f" ({e.param_hint})" if isinstance(e, click_exc.BadParameter) and e.param_hint and "--" not in e.format_message() else ""
        err.print(f"cardarena: {e.format_message()}{hint}", markup=False)
        return_code = 2
    except CliError as e:
        err.print(f"cardarena: {e}", markup=False)
        return_code = e.code
    except (typer.Abort, KeyboardInterrupt):
        err.print("cardarena: interrupted", markup=False)
        return_code = 130
    except Exception as e:
        if not _storage_error(e):
            raise
        err.print(f"cardarena: {e}", markup=False)
        return_code = 1
    else:
        return_code = rv if isinstance(rv, int) else 0
        if return_code == 130:  # typer's answer to a KeyboardInterrupt inside a command: said in one line
            err.print("cardarena: interrupted", markup=False)
    if argv is None:
        sys.exit(return_code)
    return return_code


if __name__ == "__main__":
    main()
