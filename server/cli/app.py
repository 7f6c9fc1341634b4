"""The app: the ``cardarena`` Typer app and its command groups, the consoles, :class:`CliError`
and the options several commands share.

Each command module (``bots``, ``leagues``, ``matches``, ``ratings``, ``ledger``, ``serve``,
``play``, ``rules``, ``demo``) registers its commands on these apps; ``cardarena.server.cli.main``
runs them and turns every known error into one line.
"""

from pathlib import Path
from typing import Annotated, Optional

import typer
VERSION = "0.2.0"


class _Console:
    """A rich Console made on first use: rich is not imported by a command that prints none
    (`ratings` writes its table as it is; rich's import is a good part of a short command's time)."""

    def __init__(self, stderr: bool = False):
        self._stderr = stderr
        self._console = None

    @property
    def console(self):
        if self._console is None:
            from rich.console import Console
            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.console, name)


out = _Console()
err = _Console(stderr=True)

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


# ----------------------------------------------------------------------------- options shared by commands
DbOpt = Annotated[str, typer.Option("--db", envvar="CARDARENA_DB", help="Ledger: a SQLite file or an SQLAlchemy URL.")]
ServerOpt = Annotated[Optional[str], typer.Option("--server", help="Drive a remote referee at HOST:PORT (admin token from CARDARENA_ADMIN_TOKEN).")]
REPO = Path(__file__).resolve().parents[2]


def _version(value: bool):
    if value:
        out.print(f"cardarena {VERSION}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                  help="Print the version and exit.")] = False):
    """cardarena: a tournament server for card-game bots."""


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
WebAddressOpt = Annotated[Optional[str], typer.Option(
    "--web-address", help="HOST:PORT of the web pages and JSON API (default 127.0.0.1:8080; port 0: a free one).")]
