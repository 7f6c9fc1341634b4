"""The app: the ``cardarena`` Typer app and its command groups, the consoles, :class:`CliError`
and the options several commands share.

Each command module (``bots``, ``leagues``, ``matches``, ``ratings``, ``ledger``, ``serve``,
``play``, ``rules``, ``demo``) registers its commands on these apps; ``cardarena.server.cli.main``
runs them and turns every known error into one line.

Start-up (``cardarena --help`` under 200 ms, ``cardarena ratings`` under 300 ms, as
new processes; bench/cli.py measures them). No command module imports the ledger, grpc, the
games or asyncio when it loads; each command imports what it uses when it runs. Three choices
about typer itself keep it so: help is click's plain text (``rich_markup_mode=None``; no help
text uses rich markup); a group's ``str`` options, and its flags without an environment
variable, skip typer's pydantic coercion (:func:`_plain_params`); and each command is a
:class:`_LazyCommand`, built on its first use (tests/test_fast_cli.py checks every help text is
the same either way).

Design notes and measurements: docs/conduct.md (CLI start-up).
"""
import inspect

from pathlib import Path
from typing import Annotated, Optional

import typer

try:  # typer ≥ 0.20 vendors click
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - older typer over click
    from click import exceptions as click_exc

VERSION = "0.2.0"

#: The largest whole number the ledger holds (a 64-bit integer): ids, seeds and counts past it are
#: bad arguments, refused before anything is read.
MAX_INT = 2**63 - 1
#: The largest count a bot's hello carries (an int32 of the protocol).
MAX_INT32 = 2**31 - 1


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


class _LazyCommand:
    """A typer command that typer builds on first use (module docstring, "Start-up"): its name,
    help and ``hidden`` are known without building it, everything else is the built command's."""

    def __init__(self, info, build, settings: dict):
        callback = info.callback
        self.name = info.name or typer.main.get_command_name(callback.__name__)
        self.help = inspect.getdoc(callback) if info.help is None else inspect.cleandoc(info.help)
        self.short_help = info.short_help
        self.hidden = info.hidden
        self._info, self._build, self._settings, self._command = info, build, settings, None

    def built(self):
        if self._command is None:
            self._command = self._build(self._info, **self._settings)
        return self._command

    def __getattr__(self, name: str):
        return getattr(self.built(), name)


def _lazy_commands() -> None:
    build = getattr(typer.main, "get_command_from_info", None)
    if build is None or getattr(build, "lazy", False):  # another typer, or already lazy
        return

    def lazy(command_info, **settings):
        return _LazyCommand(command_info, build, settings)

    lazy.lazy = True
    typer.main.get_command_from_info = lazy


_lazy_commands()

def _plain_params(command, ctx) -> None:
    """Give ``command``'s ``str`` options, and its flags without an environment variable,
    typer's pass-through coercion instead of a pydantic adapter (module docstring). Another
    typer, without these internals, keeps its own coercion."""
    try:
        from typer._coercion import PassThroughRuntimeParam
    except ImportError:  # pragma: no cover - another typer
        return
    for param in command.get_params(ctx):  # its --help too
        kind = getattr(param, "type_descriptor", None)
        if kind is None or getattr(param, "_runtime_param", False) is not None:
            continue
        plain = kind.annotation is str or (kind.annotation is bool and not param.envvar)
        if plain and not (kind.is_file or kind.is_path or kind.is_choice or kind.parameter_info.parser):
            param._runtime_param = PassThroughRuntimeParam(parameter_info=kind.parameter_info,
                                                           annotation=kind.annotation)


class _Group(typer.core.TyperGroup):
    """A command group whose help lists each command with the whole first paragraph of its help,
    as typer's rich panels do (click's plain list would cut it to the width with "..."), and whose
    plain options need no pydantic (:func:`_plain_params`)."""

    def parse_args(self, ctx, args):
        _plain_params(self, ctx)
        return super().parse_args(ctx, args)

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, " ".join((cmd.short_help or cmd.help or "").strip().split("\n\n")[0].split()))
                for name, cmd in ((n, self.get_command(ctx, n)) for n in self.list_commands(ctx))
                if cmd is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _typer(**settings) -> typer.Typer:
    """A Typer app of the CLI: plain help text, plain options (module docstring, "Start-up")."""
    return typer.Typer(cls=_Group, rich_markup_mode=None, **settings)


app = _typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
             help="cardarena: a tournament server for card-game bots.")
bot_app = _typer(no_args_is_help=True, help="Register and list bots.")
league_app = _typer(no_args_is_help=True, help="Run and inspect leagues.")
match_app = _typer(no_args_is_help=True, help="List, show, export and verify recorded matches.")
ratings_app = _typer()  # its help is the callback's docstring (the `ratings` command itself)
ledger_app = _typer(no_args_is_help=True, help="Audit, upgrade and prune the ledger.")
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
