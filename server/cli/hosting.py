"""A referee hosted by the CLI for the bots it starts (``league run``, ``play``, ``check``): the
bots' start, the end (streams closed after their last message, END_GRACE seconds to leave, the
rest stopped) and the stop signals, which no bot program outlives."""
from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from .. import procs
from .app import CliError, err, out
from .common import ledger_auth, open_ledger


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
    from ..referee import Referee, TimeControl
    from ..service import start_server
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
    hosting = _hosted_versions(referee, ledger, [name for name, command in bots if not command])

    async def serve() -> None:
        started["hosted"] = await start_server(referee, host_address,
                                               unix_socket=str(hosting.socket) if hosting else None)
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
            from ..web import host as web_host
            from ..web.app import create_app
            started["web"] = await web_host.start(create_app(ledger or open_ledger(db), referee), web.sock)
            err.print(f"watch it live: {started['web'].url}", markup=False)
        for name, command in bots:
            if command:
                running.append(procs.start_bot(name, command, hosted.address,
                                               referee.mint_session_token(name), log_dir))
        if hosting is not None:
            os.chmod(hosting.socket, 0o666)
            hosting.start()
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
        if hosting is not None:
            await hosting.stop()
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


def _hosted_versions(referee, ledger, names: list[str]):
    """The league's bots that are hosted versions (``NAME@K``) run here in sandboxes, one a bot for
    the whole league (:mod:`cardarena.server.hosted`); None when it has none."""
    if ledger is None or not names:
        return None
    hosted = [n for n in names if ledger.is_hosted(n)]
    if not hosted:
        return None
    from .. import sandbox
    if (why := sandbox.unavailable()) is not None:
        raise CliError(f"cannot run the hosted bots {', '.join(hosted)}: {why}")
    import tempfile
    from pathlib import Path
    from ..hosted import Hosting
    from cardarena.ratings.ledger_hosted import ACTIVE, RETIRED
    workdir = Path(tempfile.mkdtemp(prefix="cardarena-hosted-"))
    os.chmod(workdir, 0o711)
    wanted = set(hosted)
    return Hosting(referee, ledger, workdir / "referee.sock", workdir, only=wanted.__contains__,
                   states=(ACTIVE, RETIRED))


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
