"""``cardarena demo``: a league of the example bots over real gRPC, then the rating table."""

import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from .app import REPO, CliError, DbOpt, WebAddressOpt, app, err, out
from .common import check_address, check_game
from .leagues import _SERVE_AFTER, league_run


@app.command()
def demo(db: DbOpt = "cardarena-demo.db",
         game: Annotated[str, typer.Option("--game", help="Game id.")] = "sixth-card",
         rounds: Annotated[int, typer.Option("--rounds", min=1, max=1000)] = 2,
         web: Annotated[bool, typer.Option("--web", help="Serve the web pages from the start (watch the matches "
                                                         "live) and on after the league, until Ctrl-C.")] = False,
         web_address: WebAddressOpt = None):
    """A league of the example bots over real gRPC on a local port, then the rating table.

    Its last line is the command that shows the league in a browser; with --web the pages are
    served while it plays and after, until Ctrl-C."""
    cls = check_game(game)
    examples = REPO / "examples" / "python"
    if not examples.is_dir():
        raise CliError(f"the example bots are not at {examples}: run the demo from a clone of cardarena")
    seats = min(4, cls.max_players)
    bots = [f"random-{i}=python {examples / 'random_bot.py'}" for i in (1, 2)]
    bots += [f"heuristic-{i}=python {examples / 'heuristic_bot.py'}" for i in (1, 2)]
    if web_address is not None and not web:
        raise typer.BadParameter("--web-address goes with --web", param_hint="--web-address")
    if web_address is not None:
        check_address(web_address, "--web-address")
    err.print(f"demo: {game}, 4 example bots (Python) over gRPC, ledger {db}")
    token = _SERVE_AFTER.set(web)
    try:
        league_run(game=game, bot=bots, seats=seats, rounds=rounds, seed=None, concurrency=4,
                   move_time=2.0, option=None, server=None, start_timeout=30.0, log_dir=Path("logs"), db=db,
                   web_address=web_address)
    finally:
        _SERVE_AFTER.reset(token)
    me = own_command()
    shown = db if " " not in db else shlex.quote(db)
    out.print(f"see a match: {me} match list --db {shown}; {me} match show ID --db {shown}", markup=False)
    out.print(f"{me} web --db {shown}    # the league in a browser (it prints its URL)", markup=False)


def own_command() -> str:
    """How to run this cardarena from the shell that ran it: ``cardarena`` when that is what the
    PATH finds (an activated venv, an install), else the path it was run by (``make demo``'s
    ``.venv/bin/cardarena``), else ``python -m``."""
    exe = Path(sys.argv[0]) if sys.argv and Path(sys.argv[0]).name == "cardarena" else None
    if exe is None:
        return f"{shlex.quote(sys.executable)} -m cardarena.server.cli"
    found = shutil.which("cardarena")
    if found and Path(found).resolve() == exe.resolve():
        return "cardarena"
    return shlex.quote(str(exe) if exe.is_absolute() or "/" in str(exe) else str(exe.resolve()))
