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

One module per command group, each command parsing its arguments and delegating: ``app`` (the
Typer app, the consoles, :class:`CliError`, the shared options), ``common`` (the checks and
helpers several commands share), ``hosting`` (a referee hosted for the bots the CLI starts),
``rules`` (games, rules), ``bots``, ``ratings``, ``serve``, ``leagues``, ``matches``, ``ledger``,
``play`` and ``demo``; ``bridge``, ``web`` and ``check`` register their commands from their own
modules. :func:`main` is the one place where errors become one line.
"""
from __future__ import annotations

import signal
import sys

# Ctrl-C while the CLI is still being imported: remembered here and answered by main() as one
# line with exit code 130, instead of a KeyboardInterrupt traceback out of an import.
_EARLY_SIGINT: list[int] = []


def _early_sigint(signum, frame) -> None:
    _EARLY_SIGINT.append(signum)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler and sys.argv and (
        sys.argv[0] == "-m" or sys.argv[0].endswith("cardarena")):  # `python -m cardarena.server.cli`, `cardarena`
    signal.signal(signal.SIGINT, _early_sigint)

import typer  # noqa: E402

# The names other modules and the tests use (server/check.py, server/web/command.py, tests/).
from .app import VERSION, CliError, app, click_exc, err, out  # noqa: E402,F401
from .common import (  # noqa: E402,F401
    check_address, check_game, check_programs, check_seconds, check_time_control, make_log_dir, open_ledger,
    parse_bots, parse_options, read_admin_token,
)

# The command groups, in the order `cardarena --help` lists them.
from . import rules, bots, hosted, ratings, serve, leagues, matches, ledger, play, demo  # noqa: E402,F401
from .. import bridge  # noqa: E402  (the stdin/stdout bridge command lives beside its logic)

bridge.register(app)

from ..web import command as web_command  # noqa: E402  (imports the web stack only when it runs)

web_command.register(app)

from .. import check as check_command  # noqa: E402  (`cardarena check`, the pre-flight of a bot)

check_command.register(app)




def __getattr__(name: str):
    """``_run_hosting`` and ``_Stopped`` (server/check.py) import the referee's hosting only when used."""
    if name in ("_run_hosting", "_Stopped"):
        from . import hosting
        return getattr(hosting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------- entry point
#: The known failures of what the commands delegate to, each said as its own one line (exit 1):
#: a ledger's (no such bot, league or match; a damaged or full database), a league's, a game's
#: options, a bot program that cannot start. A module is looked at only once something imported
#: it, so a command that never opened the ledger does not import it here.
KNOWN_ERRORS = (("cardarena.ratings.ledger", "LedgerError"), ("cardarena.ratings.ledger", "LedgerStorageError"),
                ("cardarena.server.league", "LeagueError"), ("cardarena.server.games.base", "GameError"),
                ("cardarena.server.procs", "BotStartError"))


def _known_error(e: Exception) -> bool:
    return any(isinstance(e, getattr(sys.modules[module], name))
               for module, name in KNOWN_ERRORS if module in sys.modules)


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
        message = e.format_message()
        if isinstance(e, click_exc.NoSuchOption) and e.option_name[1:].isdigit():  # `match show -1`
            message, hint = f"{e.option_name} is not an id or a count: they are whole numbers from 1", ""
        err.print(f"cardarena: {message}{hint}", markup=False)
        return_code = 2
    except CliError as e:
        err.print(f"cardarena: {e}", markup=False)
        return_code = e.code
    except (typer.Abort, KeyboardInterrupt):
        err.print("cardarena: interrupted", markup=False)
        return_code = 130
    except Exception as e:
        if not _known_error(e):
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
