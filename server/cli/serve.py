"""``cardarena serve``: the referee, the admin service, health and reflection, the ladders and
the web pages, in one event loop until a stop signal (SIGTERM, Ctrl-C, SIGHUP): then the ladders
drain and it exits with 128 + the signal (143, 130)."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import CliError, DbOpt, GraceOpt, MaxFaultsOpt, WebAddressOpt, app, err
from .common import (
    _web_socket, check_address, check_seconds, check_time_control, ledger_auth, open_ledger, read_admin_token,
)


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
          live_pace: Annotated[float, typer.Option(
              "--live-pace", metavar="SECONDS", help="The live pages play a match at this many seconds a step "
                                                     "(0 to 10; 0: each step as it is played), from the deal to "
                                                     "its end, also once it has ended; a page's ?pace= overrides "
                                                     "it.")] = 1.0,
          spectator_delay: Annotated[float, typer.Option(
              "--spectator-delay", metavar="SECONDS", help="Show everything public about a running match (its "
                                                           "live frames, the matches playing now, who plays) as "
                                                           "of this many seconds ago, as chess broadcasts do.")] = 0.0,
          ladder: Annotated[Optional[list[str]], typer.Option(
              "--ladder", help="GAME[:SEATS][@RATE]: keep rated matches of GAME going among the connected bots "
                               "that play it (repeat for several ladders); @RATE: this ladder's own pace, matches a "
                               "minute at most (instead of --rate), e.g. sixth-card:4@30.")] = None,
          rate: Annotated[float, typer.Option(
              "--rate", help="The pace of every ladder without its own @RATE: matches a minute it starts at most, "
                             "evenly spread (one every 60/N s, never a burst); 0: no pace. The default keeps a "
                             "day of one ladder's ledger under ~200 MB (docs/arena.md).")] = 12.0,
          max_matches: Annotated[int, typer.Option("--max-matches", help="Ladder matches a bot plays at once at "
                                                                         "most (its Hello may ask fewer).")] = 2,
          bench_seconds: Annotated[float, typer.Option("--bench-seconds", help="How long the quarantine rule "
                                                                               "benches a bot.")] = 600.0,
          bench_window: Annotated[int, typer.Option("--bench-window", help="The quarantine rule judges a bot's "
                                                                             "last N ladder matches.")] = 10,
          bench_forfeits: Annotated[int, typer.Option("--bench-forfeits", help="Forfeits in that window that "
                                                                                 "bench a bot.")] = 3,
          drain: Annotated[float, typer.Option("--drain", help="Seconds running ladder matches get to finish at "
                                                               "shutdown; the rest are marked unplayed.")] = 30.0,
          host_bots: Annotated[Optional[bool], typer.Option(
              "--host-bots/--no-host-bots", help="Run the hosted bots (`bot submit`) in sandboxes. Default: when "
                                                 "bubblewrap can run here; --host-bots: exit 1 if it cannot.")] = None,
          max_submission_mb: Annotated[int, typer.Option(
              "--max-submission-mb", min=1, max=4096, help="The largest submission (`bot submit`), MB packed.")] = 50,
          keep_logs: Annotated[Optional[float], typer.Option(
              "--keep-logs", metavar="DAYS", help="Prune the step and event logs of ladder matches finished more than "
                                                  "DAYS days ago, at start and hourly (`ledger prune`: results, "
                                                  "ratings and deals kept). Default: keep every log.")] = None):
    """Host the referee and admin services, the ladders, and the web pages beside them, until interrupted.

    The pages and JSON API (default http://127.0.0.1:8080/) run in the referee's own event loop,
    so the matches running now can be watched as a spectator sees them. With --ladder the server
    is an arena: registered bots that connect play rated matches among themselves (see the
    docs/arena.md for how tables are drawn and the quarantine rule). SIGTERM or Ctrl-C:
    no new match starts, running ones get --drain seconds to finish; then exit 143 (Ctrl-C: 130)."""
    import asyncio
    import secrets
    from ..referee import Referee, TimeControl
    from ..service import start_server
    from .hosting import STOP_SIGNALS, _Stopped
    check_address(address, "--address")
    check_time_control(move_time, 0.0, max_faults, grace)
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("give both --tls-cert and --tls-key", param_hint="--tls-cert")
    if no_web and (web_address is not None or web_private):
        raise typer.BadParameter("--no-web serves no pages: drop --web-address / --web-private", param_hint="--no-web")
    from ..ladder import LadderError, LadderSpec, QuarantineRule, rate_error
    from ..web.broadcast import MAX_PACE
    if (why := rate_error(rate)) is not None:
        raise typer.BadParameter(why, param_hint="--rate")
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
    check_seconds(live_pace, "--live-pace")
    if live_pace > MAX_PACE:
        raise typer.BadParameter(f"must be at most {MAX_PACE:g} seconds a step", param_hint="--live-pace")
    check_seconds(spectator_delay, "--spectator-delay")
    if keep_logs is not None and not 0 <= keep_logs < float("inf"):
        raise typer.BadParameter("must be a finite number of days, 0 or more", param_hint="--keep-logs")
    admin_token = read_admin_token(admin_token, admin_token_file)
    web_sock = None if no_web else _web_socket(web_address, required=web_address is not None or web_private)
    tls = None
    if tls_cert and tls_key:
        tls = (_read_pem(tls_cert, "--tls-cert"), _read_pem(tls_key, "--tls-key"))
    _check_free(address)  # before the ledger is opened and an admin token made and shown
    ledger = open_ledger(db)
    refusal = None
    if host_bots is not False:
        from .. import sandbox
        refusal = sandbox.unavailable()
        if refusal and host_bots:
            raise CliError(f"cannot host bots: {refusal} (--no-host-bots runs without them)")
        if refusal and ledger.hosted_versions():
            err.print(f"cardarena: warning: the hosted bots do not run here: {refusal}", markup=False)
    else:
        refusal = "it was started with --no-host-bots"
    if not admin_token:
        admin_token = secrets.token_urlsafe(32)
        err.print("admin token (shown once; set CARDARENA_ADMIN_TOKEN to it for --server commands):")
        print(admin_token, flush=True)

    async def main() -> int:
        stop = asyncio.Event()  # the handlers come first: a signal right after the first line is ours
        got: list[int] = []
        loop = asyncio.get_running_loop()

        def stopping(signum: int) -> None:
            got.append(signum)
            stop.set()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stopping, sig)
        referee = Referee(ledger_auth(ledger), TimeControl(move_seconds=move_time, max_faults=max_faults,
                                                           grace_seconds=grace))
        arena = None
        if ladders:
            from ..ladder import Arena
            arena = Arena(referee, ledger, ladders, max_per_bot=max_matches,
                          rule=QuarantineRule(window=bench_window, max_forfeits=bench_forfeits,
                                              bench_seconds=bench_seconds), drain_seconds=drain, rate=rate)
        hosting = workdir = None
        if refusal is None:
            import os
            import tempfile
            from ..hosted import Hosting
            workdir = Path(tempfile.mkdtemp(prefix="cardarena-hosted-"))
            os.chmod(workdir, 0o711)  # the sandboxes' users reach the socket and their files, list nothing
            hosting = Hosting(referee, ledger, workdir / "referee.sock", workdir, arena=arena)
        from ..hosting_service import HostingService
        service = HostingService(ledger, hosting, refusal, max_archive=max_submission_mb * 1024 * 1024)
        try:
            hosted = await start_server(referee, address, ledger=ledger, admin_token=admin_token, tls=tls,
                                        arena=arena, hosting=service,
                                        unix_socket=str(hosting.socket) if hosting else None)
        except (RuntimeError, OSError) as e:
            if workdir is not None:
                import shutil
                shutil.rmtree(workdir, ignore_errors=True)
            raise CliError(f"cannot listen on {address}: {e}") from None
        if hosting is not None:
            os.chmod(hosting.socket, 0o666)
            hosting.start()
        host = address.rsplit(":", 1)[0]
        err.print(f"cardarena referee listening on {host}:{hosted.port} ({'TLS' if tls else 'plaintext'}); Ctrl-C stops")
        if hosting is not None:
            err.print("hosted bots (`bot submit`): run here, each in a sandbox", markup=False)
        web = None
        if web_sock is not None:
            from ..web import host as web_host
            from ..web.app import create_app
            web_app = create_app(ledger, referee, admin_token if web_private else None, arena=arena,
                                 live_pace=live_pace, spectator_delay=spectator_delay)
            web = await web_host.start(web_app, web_sock)
            err.print(f"cardarena web: {web.url}" + (" (private: sign in with the admin token)" if web_private else ""),
                      markup=False)
        if arena is not None:
            arena.start()
            paces = {s.game: arena.pace(s) for s in ladders}
            err.print("ladders: " + ", ".join(f"{s.game} (tables of {s.seats}, " + (
                f"at most {paces[s.game]:g} matches a minute)" if paces[s.game] else "no pace)") for s in ladders)
                      + f"; at most {max_matches} matches a bot at once", markup=False)
        keeper = None
        if keep_logs is not None:
            from .. import retention
            keeper = retention.start(ledger, keep_logs, lambda line: err.print(line, markup=False),
                                     web_app if web is not None else None)
        await stop.wait()
        if keeper is not None:
            await keeper.stop()
        if arena is not None:
            running = len(arena.tasks)
            if running:
                err.print(f"stopping: {running} ladder matches may take up to {drain:g} s to finish", markup=False)
            await arena.stop()
        if hosting is not None:
            await hosting.stop()
        if web is not None:
            await web.stop()
        await hosted.stop(2)
        return got[0]

    signum = asyncio.run(main())
    raise CliError(str(_Stopped(signum)), code=128 + signum)


def _read_pem(path: Path, hint: str) -> bytes:
    """A TLS file's bytes; one that cannot be read is a bad argument (one line, exit 2)."""
    try:
        return path.read_bytes()
    except OSError as e:
        raise typer.BadParameter(f"cannot read {str(path)!r}: {e.strerror or e}", param_hint=hint) from None


def _check_free(address: str) -> None:
    """One line (exit 1) if the referee's TCP address is taken or not this machine's, found by
    binding it as grpc would (SO_REUSEADDR) before grpc tries: grpc's own failure comes with a
    log line of its own on stderr."""
    import socket
    host, _, port = address.rpartition(":")
    if address.startswith("unix:") or not port.isdigit() or int(port) == 0:
        return
    try:
        found = socket.getaddrinfo(host.strip("[]") or None, int(port), type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError:
        return  # grpc says what it makes of the name
    for family, kind, proto, _, where in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as e:
                raise CliError(f"cannot listen on {address}: {e.strerror or e}") from None
