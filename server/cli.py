"""The ``cardarena`` command line: one Typer app per command group; commands parse and delegate.

Known errors end as one line on stderr and exit code 1 (a bad argument: exit code 2), with no
traceback (STYLE.md 10). Every command that touches the ledger takes ``--db`` (default
``./cardarena.db``, or ``CARDARENA_DB``): a file path or an SQLAlchemy URL.
"""
from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from . import procs
from .games import GameError, games as all_games, get as get_game

try:  # typer ≥ 0.20 vendors click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - older typer over click
    from click import exceptions as click_exc

VERSION = "0.1.0"
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="cardarena: a tournament server for card-game bots.")
bot_app = typer.Typer(no_args_is_help=True, help="Register and list bots.")
league_app = typer.Typer(no_args_is_help=True, help="Run and inspect leagues.")
match_app = typer.Typer(no_args_is_help=True, help="List, show and export recorded matches.")
app.add_typer(bot_app, name="bot")
app.add_typer(league_app, name="league")
app.add_typer(match_app, name="match")


class CliError(Exception):
    """A known failure: printed as one line, exit code 1."""


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
    from cardarena.ratings import Ledger, LedgerError
    try:
        return Ledger(db)
    except LedgerError as e:
        raise CliError(str(e)) from None
    except Exception as e:  # an unreadable file, a bad URL
        raise CliError(f"cannot open the ledger {db!r}: {e}") from None


def parse_options(pairs: list[str]) -> dict:
    """``--option name=value`` pairs; values are JSON when they parse as JSON, else text."""
    options = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value
    return options


def parse_bots(args: list[str]) -> list[tuple[str, str | None]]:
    if not args:
        raise typer.BadParameter("give at least one --bot NAME or --bot NAME=COMMAND", param_hint="--bot")
    bots = []
    for a in args:
        try:
            bots.append(procs.split_bot_arg(a))
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--bot") from None
    names = [n for n, _ in bots]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise typer.BadParameter(f"bot {sorted(dup)[0]!r} is named twice; give each bot its own name", param_hint="--bot")
    return bots


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
    token = os.environ.get("CARDARENA_ADMIN_TOKEN", "")
    if not token:
        raise CliError("--server needs the admin token in CARDARENA_ADMIN_TOKEN")
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
          lang: Annotated[str, typer.Option("--lang", help="Language of the rules text: en, or de (unsorted).")] = "en"):
    """Print a game's rules text."""
    check_game(game)
    texts = get_game(game).rules_texts
    if lang not in texts:
        raise typer.BadParameter(f"{game} has rules in {', '.join(sorted(texts))}, not {lang!r}", param_hint="--lang")
    path = Path(__file__).resolve().parent / "games" / "rules" / texts[lang]
    sys.stdout.write(path.read_text(encoding="utf-8").rstrip() + "\n")


# ----------------------------------------------------------------------------- bots
@bot_app.command("add")
def bot_add(name: Annotated[str, typer.Argument(help="The bot's name (unique).")], db: DbOpt = "cardarena.db",
            server: ServerOpt = None):
    """Register a bot and print its token (shown once; only its hash is stored)."""
    if not name.strip() or any(c.isspace() for c in name) or "=" in name:
        raise typer.BadParameter("a bot name has no spaces and no '='", param_hint="NAME")
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.AddBot, admin_pb2.AddBotRequest(name=name), metadata=md)
        token = reply.token
    else:
        from cardarena.ratings import LedgerError
        try:
            _, token = open_ledger(db).add_bot(name)
        except LedgerError as e:
            raise CliError(str(e)) from None
    err.print(f"bot {name} added; its token (shown once, give it to the bot as CARDARENA_TOKEN):")
    print(token)


@bot_app.command("list")
def bot_list(db: DbOpt = "cardarena.db", server: ServerOpt = None):
    """List the registered bots."""
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.ListBots, admin_pb2.ListBotsRequest(), metadata=md)
        for b in reply.bots:
            print(f"{b.name}\t{b.created}\t{'connected' if b.connected else ''}")
        return
    for b in open_ledger(db).bots():
        print(f"{b.name}\t{b.created_at.isoformat(timespec='seconds')}")


# ----------------------------------------------------------------------------- ratings
@app.command()
def ratings(game: Annotated[Optional[str], typer.Option("--game", help="Only this game.")] = None,
            fmt: Annotated[str, typer.Option("--format", help="table, json, csv or markdown")] = "table",
            db: DbOpt = "cardarena.db", server: ServerOpt = None):
    """The rating table: rank, bot, μ, σ, μ − 3σ, matches, wins, mean place."""
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
          admin_token: Annotated[Optional[str], typer.Option("--admin-token", envvar="CARDARENA_ADMIN_TOKEN",
                                                             help="Token for the Admin service (made and printed once if not given).")] = None,
          move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision.")] = 2.0,
          tls_cert: Annotated[Optional[Path], typer.Option("--tls-cert", help="PEM certificate: serve over TLS.")] = None,
          tls_key: Annotated[Optional[Path], typer.Option("--tls-key", help="PEM private key of --tls-cert.")] = None):
    """Host the referee and admin services until interrupted."""
    from .referee import Referee, TimeControl
    from .service import start_server
    if move_time <= 0:
        raise typer.BadParameter("must be above 0", param_hint="--move-time")
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("give both --tls-cert and --tls-key", param_hint="--tls-cert")
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
        referee = Referee(ledger_auth(ledger), TimeControl(move_seconds=move_time))
        try:
            hosted = await start_server(referee, address, ledger=ledger, admin_token=admin_token, tls=tls)
        except (RuntimeError, OSError) as e:
            raise CliError(f"cannot listen on {address}: {e}") from None
        host = address.rsplit(":", 1)[0]
        err.print(f"cardarena referee listening on {host}:{hosted.port} ({'TLS' if tls else 'plaintext'}); Ctrl-C stops")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await hosted.server.stop(grace=2)

    asyncio.run(main())


# ----------------------------------------------------------------------------- leagues
def _print_ratings(rows) -> None:
    from cardarena.ratings import format_ratings
    out.print(format_ratings(rows, "table"))


async def _host_and_run(bots, game, db, log_dir, start, host_address="127.0.0.1:0", move_time=2.0):
    """Host a referee locally, start the command bots, run ``start(referee, ledger)``, clean up."""
    from .referee import Referee, TimeControl
    from .service import start_server
    ledger = open_ledger(db) if db else None
    referee = Referee(ledger_auth(ledger) if ledger else None, TimeControl(move_seconds=move_time))
    hosted = await start_server(referee, host_address)
    running: list[procs.BotProcess] = []
    try:
        for name, command in bots:
            if command:
                running.append(procs.start_bot(name, command, hosted.address,
                                               referee.mint_session_token(name), log_dir))
        return await start(referee, ledger, running)
    finally:
        for p in running:
            p.stop()
        await hosted.server.stop(grace=0.5)


async def _wait_connected(referee, names, running, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        missing = [n for n in names if not referee.is_connected(n)]
        if not missing:
            return
        for p in running:
            if p.returncode is not None and p.name in missing:
                raise CliError(f"bot {p.name} exited with code {p.returncode} before connecting; see {p.log_path}")
        await asyncio.sleep(0.05)
    missing = [n for n in names if not referee.is_connected(n)]
    raise CliError(f"not connected after {timeout:g} s: {', '.join(missing)}")


@league_app.command("run")
def league_run(
    game: Annotated[str, typer.Option("--game", help="Game id (see `cardarena games`).")],
    bot: Annotated[list[str], typer.Option("--bot", help="NAME (a registered bot that connects itself) or NAME=COMMAND (started by the CLI). Repeat.")],
    seats: Annotated[int, typer.Option("--seats", help="Table size; 0: the game's smallest.")] = 0,
    rounds: Annotated[int, typer.Option("--rounds", help="Round-robin rounds: every group of bots plays once in every seat rotation per round.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="League seed; every match seed derives from it.")] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", help="Matches played at once.")] = 4,
    move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision; a later answer is a fault and the default action is played.")] = 2.0,
    option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE (see `cardarena games`). Repeat.")] = None,
    server: ServerOpt = None,
    start_timeout: Annotated[float, typer.Option("--start-timeout", help="Seconds to wait for every bot to connect.")] = 30.0,
    log_dir: Annotated[Path, typer.Option("--log-dir", help="Where the output of started bots goes.")] = Path("logs"),
    db: DbOpt = "cardarena.db",
):
    """Run a round-robin league and print the rating table."""
    from .league import LeagueError, LeagueSpec, check_spec
    check_game(game)
    bots = parse_bots(bot)
    options = parse_options(option or [])
    if move_time <= 0:
        raise typer.BadParameter("must be above 0", param_hint="--move-time")
    names = [n for n, _ in bots]
    spec = LeagueSpec(game=game, bots=names, seats=seats, rounds=rounds, seed=seed, concurrency=concurrency,
                      move_seconds=move_time, options=options, start_timeout=start_timeout)
    try:
        spec = check_spec(spec)
        from .league import round_robin
        total = len(round_robin(spec.bots, spec.seats, spec.rounds, spec.seed))
    except LeagueError as e:
        raise CliError(str(e)) from None
    if server:
        return _league_remote(server, spec, bots, log_dir)
    ledger = open_ledger(db)
    for name, command in bots:
        if command is None:
            try:
                ledger.bot(name)
            except Exception:
                raise CliError(f"no bot named {name!r}: add it with `cardarena bot add {name}` or give NAME=COMMAND") from None
        else:
            try:
                ledger.bot(name)
            except Exception:
                ledger.add_bot(name)
    league_log = log_dir / time.strftime("league-%Y%m%d-%H%M%S")
    err.print(f"league: {game}, {len(names)} bots, tables of {spec.seats}, {total} matches; bot logs in {league_log}")

    async def start(referee, ledger_, running):
        from .league import run_league
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=False) as bar:
            task = bar.add_task(f"league {game}", total=total)

            def progress(league_id, done, total_, match_id):
                bar.update(task, completed=done, total=total_, description=f"league {league_id} ({game})")

            await _wait_connected(referee, names, running, start_timeout)
            return await run_league(referee, ledger_, spec, progress=progress)

    try:
        league_id = asyncio.run(_host_and_run(bots, game, db, league_log, start, move_time=move_time))
    except LeagueError as e:
        raise CliError(str(e)) from None
    out.print(f"league {league_id} finished: {total} matches. Ratings for {game}:")
    _print_ratings(ledger.ratings(game))


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
    try:
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
    except Exception as e:
        import grpc
        if isinstance(e, grpc.RpcError):
            raise CliError(f"server: {e.details()}") from None
        raise
    finally:
        for p in running:
            p.stop()
    err.print()
    _print_ratings(rows)


@league_app.command("list")
def league_list(db: DbOpt = "cardarena.db"):
    """List the leagues with their progress."""
    for lg in open_ledger(db).leagues():
        done = lg.counts.get("finished", 0)
        print(f"{lg.id}\t{lg.game}\t{done}/{lg.total} finished\t{lg.created_at.isoformat(timespec='seconds')}")


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


def render_match(m, seat: int | None = None) -> list[str]:
    """A recorded match as a readable play-by-play; with ``seat``, only what that seat saw."""
    cls = get_game(m.game)
    game = cls(len(m.bots), m.seed, m.options)
    lines = [f"match {m.id}: {m.game}, {len(m.bots)} seats, {m.status}"
             + (f", seed {m.seed}" if seat is None else "")]
    for s, b in enumerate(m.bots):
        lines.append(f"  seat {s}: {b}")
    if seat is not None:
        lines.append(f"(as seat {seat} saw it)")
    for ev in m.events:
        if seat is not None and ev["seats"] is not None and seat not in ev["seats"]:
            continue
        lines.append(f"[{ev['step']:>4}] {game.event_text(ev['data'])}")
    if m.status == "finished":
        lines.append("result:")
        for s, b in enumerate(m.bots):
            extra = []
            if m.faults and m.faults[s]:
                extra.append(f"{m.faults[s]} faults")
            if m.forfeited and m.forfeited[s]:
                extra.append("forfeited")
            lines.append(f"  place {m.places[s]}: seat {s} {b}, score {m.scores[s]:g}" + (f" ({', '.join(extra)})" if extra else ""))
    return lines


@match_app.command("show")
def match_show(match_id: Annotated[int, typer.Argument(help="Match id (see `cardarena match list`).")],
               seat: Annotated[Optional[int], typer.Option("--seat", help="Show only what this seat saw.")] = None,
               db: DbOpt = "cardarena.db"):
    """A recorded match, play by play (omniscient, or as one seat saw it)."""
    m = _load_match(db, match_id)
    if seat is not None and not 0 <= seat < len(m.bots):
        raise typer.BadParameter(f"match {match_id} has seats 0–{len(m.bots) - 1}", param_hint="--seat")
    for line in render_match(m, seat):
        out.print(line, markup=False)


@match_app.command("export")
def match_export(match_id: Annotated[int, typer.Argument(help="Match id.")], db: DbOpt = "cardarena.db"):
    """A recorded match as JSON: seats, seed, options, steps, result and the omniscient event log."""
    m = _load_match(db, match_id)
    sys.stdout.write(json.dumps(m.to_json(), ensure_ascii=False, indent=1) + "\n")


# ----------------------------------------------------------------------------- play
@app.command()
def play(game: Annotated[str, typer.Option("--game", help="Game id.")],
         bot: Annotated[list[str], typer.Option("--bot", help="NAME=COMMAND, one per seat in seat order (or NAME of a registered bot that connects itself).")],
         seed: Annotated[int, typer.Option("--seed")] = 0,
         option: Annotated[Optional[list[str]], typer.Option("--option", help="Game option NAME=VALUE.")] = None,
         seat: Annotated[Optional[int], typer.Option("--seat", help="Print only what this seat sees.")] = None,
         move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision.")] = 2.0,
         record: Annotated[bool, typer.Option("--record", help="Record the match and its ratings in the ledger.")] = False,
         log_dir: Annotated[Path, typer.Option("--log-dir")] = Path("logs"),
         db: DbOpt = "cardarena.db"):
    """Play one match over gRPC with a readable log as it happens (for bot authors)."""
    check_game(game)
    bots = parse_bots(bot)
    options = parse_options(option or [])
    cls = get_game(game)
    if not cls.min_players <= len(bots) <= cls.max_players:
        raise typer.BadParameter(f"{game} is for {cls.min_players}–{cls.max_players} players; {len(bots)} bots given", param_hint="--bot")
    if seat is not None and not 0 <= seat < len(bots):
        raise typer.BadParameter(f"seats are 0–{len(bots) - 1}", param_hint="--seat")
    try:
        cls.parse_options(options)
    except GameError as e:
        raise CliError(str(e)) from None
    names = [n for n, _ in bots]
    need_ledger = record or any(c is None for _, c in bots)
    ledger = open_ledger(db) if need_ledger else None
    if ledger is not None:
        for name, command in bots:
            try:
                ledger.bot(name)
            except Exception:
                if command is None:
                    raise CliError(f"no bot named {name!r}: add it with `cardarena bot add {name}`") from None
                ledger.add_bot(name)

    async def start(referee, ledger_, running):
        await _wait_connected(referee, names, running, 30.0)
        match_id = "play"
        if record:
            match_id = str(ledger.create_match(game, seed, cls.parse_options(options), names))

        def show(match, events):
            for ev in events:
                if seat is None or ev.visible_to(seat):
                    out.print(f"[{len(match.steps):>4}] {match.game.event_text(ev.data)}", markup=False)

        outcome = await referee.play(game, names, seed, options, match_id, on_events=show)
        if record:
            ledger.claim_match(int(match_id))
            ledger.record_match(int(match_id), scores=list(outcome.result.scores), places=list(outcome.result.places),
                                faults=outcome.faults, forfeited=outcome.forfeited, steps=outcome.steps,
                                events=outcome.events, duration_s=outcome.duration)
        return outcome, match_id

    outcome, match_id = asyncio.run(_host_and_run(bots, game, db if need_ledger else None, log_dir, start,
                                                  move_time=move_time))
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
         rounds: Annotated[int, typer.Option("--rounds")] = 2):
    """A league of the example bots over real gRPC on a local port, then the rating table."""
    check_game(game)
    examples = REPO / "examples" / "python"
    if not examples.is_dir():
        raise CliError(f"the example bots are not at {examples}: run the demo from a clone of cardarena")
    cls = get_game(game)
    seats = min(4, cls.max_players)
    bots = [f"random-{i}=python {examples / 'random_bot.py'}" for i in (1, 2)]
    bots += [f"heuristic-{i}=python {examples / 'heuristic_bot.py'}" for i in (1, 2)]
    err.print(f"demo: {game}, 4 example bots (Python) over gRPC, ledger {db}")
    league_run(game=game, bot=bots, seats=seats, rounds=rounds, seed=int(time.time()), concurrency=4, move_time=2.0,
               option=None, server=None, start_timeout=30.0, log_dir=Path("logs"), db=db)
    out.print(f"see a match: cardarena match list --db {db}; cardarena match show ID --db {db}")


# ----------------------------------------------------------------------------- entry point
def main(argv: list[str] | None = None) -> int:
    """Run the CLI; known errors and bad arguments end as one line (exit 1 and 2)."""
    try:
        rv = app(args=argv, prog_name="cardarena", standalone_mode=False)
    except click_exc.UsageError as e:
        hint = f" ({e.param_hint})" if isinstance(e, click_exc.BadParameter) and e.param_hint and "--" not in e.format_message() else ""
        err.print(f"cardarena: {e.format_message()}{hint}", markup=False)
        return_code = 2
    except CliError as e:
        err.print(f"cardarena: {e}", markup=False)
        return_code = 1
    except typer.Abort:
        err.print("cardarena: interrupted", markup=False)
        return_code = 130
    except KeyboardInterrupt:
        err.print("cardarena: interrupted", markup=False)
        return_code = 130
    else:
        return_code = rv if isinstance(rv, int) else 0
    if argv is None:
        sys.exit(return_code)
    return return_code


if __name__ == "__main__":
    main()
