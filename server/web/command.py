"""The ``cardarena web`` command (registered on the CLI's app like ``bridge``). It imports the
web stack only when it runs, so the CLI works without the ``web`` extra installed.

``cardarena web --db DB --address HOST:PORT`` (default ``127.0.0.1:8080``; port 0 takes a free
one) opens an existing ledger, binds the address, prints the URL of the pages and serves them
and the JSON API with uvicorn until Ctrl-C (one line, exit 130) or SIGTERM or SIGHUP (one line,
128 + the signal). As every command of the CLI, a known failure is one line and exit 1: a ledger
that does not exist (the web only reads: it never makes an empty one), a damaged one, an address
that cannot be bound, the web extra not installed (``pip install 'cardarena[web]'``).

``--private`` puts every page behind the admin token, as ``serve --web-private`` does
(:mod:`.private`). This command sees only the ledger: live matches are shown by ``cardarena
serve`` (and ``league run --web-address``), which serve the same pages beside the referee.
"""
from __future__ import annotations

import gc
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .host import DEFAULT_ADDRESS, bind, url_of

if TYPE_CHECKING:
    import socket


def _missing_file(db: str) -> bool:
    """A ledger given as a file path that does not exist (URLs and ``:memory:`` are not files)."""
    return bool(db.strip()) and "://" not in db and db != ":memory:" and not Path(db).expanduser().exists()


def register(app: typer.Typer) -> None:
    @app.command()
    def web(db: Annotated[str, typer.Option("--db", envvar="CARDARENA_DB",
                                            help="Ledger: a SQLite file or an SQLAlchemy URL.")] = "cardarena.db",
            address: Annotated[str, typer.Option("--address", help="HOST:PORT to serve on (port 0: a free one).")]
            = DEFAULT_ADDRESS,
            private: Annotated[bool, typer.Option(
                "--private", help="Every page and API answer needs the admin token (from --admin-token-file or "
                                  "CARDARENA_ADMIN_TOKEN): a bearer header, or the sign-in page's cookie.")] = False,
            admin_token_file: Annotated[Path | None, typer.Option(
                "--admin-token-file", help="With --private: the file holding the admin token.")] = None):
        """Serve the pages and the JSON API over a ledger (needs the web extra)."""
        from cardarena.server import cli  # the CLI's own checks and messages
        try:
            check_extra()
            token = None
            if admin_token_file is not None and not private:
                raise typer.BadParameter("--admin-token-file goes with --private", param_hint="--admin-token-file")
            if private:
                token = cli.read_admin_token(None, admin_token_file)
                if not token:
                    raise cli.CliError("--private needs the admin token: --admin-token-file or CARDARENA_ADMIN_TOKEN")
            if address.startswith("unix:"):
                raise typer.BadParameter("the web serves on HOST:PORT, not a unix socket", param_hint="--address")
            cli.check_address(address, "--address")
            if _missing_file(db):
                raise cli.CliError(f"no ledger at {db!r} (play a league into it first, e.g. `cardarena demo`)")
            from cardarena.ratings.ledger import WEB_MAPPED
            ledger = cli.open_ledger(db, mapped=WEB_MAPPED)
            try:
                sock = bind(address)
            except OSError as e:
                raise cli.CliError(f"cannot listen on {address}: {e.strerror or e}") from None
        except cli.CliError as e:  # said here: under `python -m`, the running CLI is another module object
            cli.err.print(f"cardarena: {e}", markup=False)
            raise typer.Exit(e.code) from None
        try:
            serve(ledger, sock, cli.out, token)
        except Signalled as e:
            cli.err.print(f"cardarena: stopped by {signal.Signals(e.signum).name}", markup=False)
            raise typer.Exit(128 + e.signum) from None


def check_extra() -> None:
    from cardarena.server.cli import CliError
    try:
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        raise CliError(f"the web needs {e.name}: pip install 'cardarena[web]'") from None


class Signalled(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _signalled(signum, frame):
    raise Signalled(signum)


#: The collector's thresholds while serving: Python's (700, 10, 10) but a full pass after 100
#: passes of the middle generation, not 10.
GC_THRESHOLDS = (700, 10, 100)


def serve(ledger, sock: socket.socket, out, private_token: str | None = None) -> None:
    """Serve the app over ``ledger`` on the bound ``sock`` until a signal stops uvicorn.

    uvicorn answers SIGINT and SIGTERM by shutting down, then raises the signal again under the
    handler it found: Ctrl-C ends as the CLI's KeyboardInterrupt (one line, 130), SIGTERM (and
    SIGHUP, which uvicorn leaves alone) as :class:`Signalled`.
    """
    import uvicorn

    from .app import create_app
    out.print(f"cardarena web: {url_of(sock)} (Ctrl-C stops)", markup=False)
    config = uvicorn.Config(create_app(ledger, private_token=private_token), log_level="warning", lifespan="off")
    main = threading.current_thread() is threading.main_thread()  # only it may take signals
    previous = {sig: signal.signal(sig, _signalled) for sig in (signal.SIGTERM, signal.SIGHUP)} if main else {}
    # what the imports (FastAPI, pydantic, the ledger) leave is kept out of the collector's full
    # passes, whose pauses reached 300 ms over 900 requests (20 ms frozen: bench/web.py); and a
    # full pass comes a tenth as often (GC_THRESHOLDS): what the web keeps (rating tables, lines,
    # answers) still costs each ~15 ms on 100,000 matches, a page's p99
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        gc.set_threshold(*thresholds)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
