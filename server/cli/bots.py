"""``cardarena bot …``: register, list, pause and resume bots, and run a bot program on a
server's ladders (``bot connect``)."""

import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import procs
from .app import MAX_INT32, CliError, DbOpt, ServerOpt, bot_app, err, out
from .common import _token_file, admin_stub, caption, check_address, check_game, open_ledger, read_ledger, rpc

#: Seconds `bot connect`'s program (and its process group) gets to end after a stop signal,
#: before SIGKILL.
STOP_GRACE = 3.0


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
        _, token = open_ledger(db).add_bot(name, owner)
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
    led = read_ledger(db)
    states = {s.name: s for s in led.bot_states()}
    now = datetime.now(timezone.utc)
    bots = led.bots()
    caption(led, f"{len(bots)} bot{'s' if len(bots) != 1 else ''}")
    if bots:  # the header on stderr, as `match list`'s: the rows on stdout stay one bot a line
        sys.stderr.write("name\tregistered\towner\tstate\n")
    for b in bots:
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
        open_ledger(db).set_paused(name, paused)
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
                max_matches: Annotated[int, typer.Option("--max-matches", min=0, max=MAX_INT32, help="Ladder matches at once at most "
                                                                               "(0: the server's limit).")] = 0,
                max_matches_per_hour: Annotated[int, typer.Option(
                    "--max-matches-per-hour", min=0, max=MAX_INT32, help="Ladder matches an hour at most, evenly spread (0: only the "
                                                   "ladders' pace).")] = 0,
                restart: Annotated[bool, typer.Option("--restart/--no-restart", help="Start the program again "
                                                                                     "when it exits.")] = True):
    """Run a bot program on a server's ladders: it gets the address, its token and its games
    (CARDARENA_ADDRESS, CARDARENA_TOKEN, CARDARENA_GAMES, CARDARENA_MAX_MATCHES, which the SDKs
    read) and is started again whenever it exits (after 1 s, doubling to 60 s while it keeps
    exiting within a minute), until Ctrl-C or SIGTERM. Either stops the program and every process
    of its group (the signal, then SIGKILL after 3 s) and exits with 130 or 143."""
    check_address(address, "--address")
    for g in game or ():
        check_game(g)
    token = _token_file(token_file, "token") if token_file is not None else os.environ.get("CARDARENA_TOKEN", "")
    if not token:
        raise typer.BadParameter("no token: give --token-file or set CARDARENA_TOKEN (`cardarena bot add NAME` prints "
                                 "one)", param_hint="--token-file")
    try:
        argv = procs.check_command(shlex.join(command))
    except procs.BotStartError as e:
        raise typer.BadParameter(str(e), param_hint="COMMAND") from None
    env = procs.bot_environment(CARDARENA_ADDRESS=address, CARDARENA_TOKEN=token, CARDARENA_GAMES=",".join(game or ()),
                                CARDARENA_MAX_MATCHES=str(max_matches),
                                CARDARENA_MAX_MATCHES_PER_HOUR=str(max_matches_per_hour))
    import threading
    from .hosting import STOP_SIGNALS, _Stopped
    got: list[int] = []  # the stop signals, noted by the handlers and acted on here
    ours = threading.current_thread() is threading.main_thread()  # else signals are not ours
    previous = {sig: signal.signal(sig, lambda signum, frame: got.append(signum))
                for sig in (STOP_SIGNALS if ours else ())}
    try:
        backoff = 1.0
        while not got:
            started = time.monotonic()
            bot = procs.run_program(shlex.join(command), argv, env)
            while not bot.exited() and not got:
                time.sleep(0.05)
            if got:  # the program gets the same signal, then SIGKILL
                killed = procs.stop_all([bot], STOP_GRACE, sig=got[0])
                raise CliError(f"{_Stopped(got[0])}: the bot's program "
                               + (f"was killed after {STOP_GRACE:g} s" if killed else "ended"), code=128 + got[0])
            procs.stop_all([bot], STOP_GRACE)  # reaps it, and stops what it left running in its group
            code = bot.returncode
            if not restart:
                raise typer.Exit(code)
            if time.monotonic() - started > 60:
                backoff = 1.0
            err.print(f"cardarena: the bot {procs.exit_text(code)}; starting it again in {backoff:g} s", markup=False)
            deadline = time.monotonic() + backoff
            while not got and time.monotonic() < deadline:
                time.sleep(0.05)
            backoff = min(60.0, backoff * 2)
        raise CliError(f"{_Stopped(got[0])} before the bot's program started again", code=128 + got[0])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
