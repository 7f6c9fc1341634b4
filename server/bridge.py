"""The stdin/stdout bridge: a bot in any language, over JSON lines.

``cardarena bridge [--address A] [--token T] [--game G …] -- COMMAND ARGS…`` connects to the
referee as a bot through the Python SDK, starts ``COMMAND ARGS…`` as a child program, and talks
to it over its standard input and output, one JSON object per line (UTF-8). The child's
standard error passes through (the bot's log).

Lines to the child, by ``type`` (ignore types and fields you do not know): ``decision`` (the one
line the child answers), ``match_start`` (``…, "deal_commitment"``), ``match_end`` (``…,
"results", "events", "seed", "deal_salt"``; the bridge checks the deal) and ``notice``. Lines
from the child: exactly one per ``decision`` line, in order, ``{"choice": N}`` or a bare ``N``,
the 0-based index into ``actions``; nothing else on standard output. A line that is not such an
answer is answered as choice -1 (out of range: a fault). The next decision is written only after
the child answered the previous one.

Endings: when the referee ends the stream the bridge closes the child's standard input and
exits 0; when the child exits first, the bridge exits non-zero and the referee treats the seat
as disconnected.

Design notes and measurements: docs/conduct.md (bridge).
"""
from __future__ import annotations

# asyncio is imported where it is used: the `cardarena` CLI imports this module for the command's
# help, and asyncio would cost every start of the CLI ~40 ms.
import collections
import contextlib
import json
import os
import shlex
import signal
import sys
import time
from typing import Annotated, Any, Optional

import typer

from .procs import BotStartError, bot_environment, check_command, exit_text



def _log():
    """The bridge's logger (logging is imported when the bridge runs, not when the CLI starts)."""
    import logging
    return logging.getLogger("cardarena.bridge")

CLIENT = "cardarena-bridge/0.1"
STOP_GRACE = 3.0  # seconds the child gets to exit after its standard input closes


class ChildGone(Exception):
    """The child program ended (or closed its standard output)."""


# ----------------------------------------------------------------------------- the JSON lines
def decision_line(decision, waited: float = 0.0) -> dict:
    """A decision (cardarena.client.Decision) as the ``decision`` line."""
    return {"type": "decision", "match_id": decision.match_id, "seat": decision.seat,
            "decision_id": decision.decision_id, "game": decision.game,
            "time_left": max(0.0, round(decision.time_left - waited, 4)),
            "bank_left": decision.bank_left, "view": decision.view, "actions": decision.actions,
            "labels": decision.labels, "events": decision.events}


def _events(events) -> list[dict]:
    from cardarena.client.bot import event_dict
    return [event_dict(e) for e in events]


def match_start_line(m) -> dict:
    from google.protobuf import json_format

    from cardarena.client.bot import _ints
    tc = m.time_control
    return {"type": "match_start", "match_id": m.match_id, "game": m.game, "seats": list(m.seats),
            "players": [{"seat": p.seat, "bot": p.bot} for p in m.players],
            "options": _ints(json_format.MessageToDict(m.options)),
            "time_control": {"move_seconds": tc.move_seconds, "bank_seconds": tc.bank_seconds,
                             "max_faults": tc.max_faults},
            "deal_commitment": m.deal_commitment}


def match_end_line(m) -> dict:
    return {"type": "match_end", "match_id": m.match_id, "status": m.status,
            "results": [{"seat": r.seat, "bot": r.bot, "score": r.score, "place": r.place,
                         "faults": r.faults, "forfeited": r.forfeited} for r in m.results],
            "events": _events(m.events), "seed": m.seed, "deal_salt": m.deal_salt}


def notice_line(n) -> dict:
    from cardarena.v1 import referee_pb2 as pb
    return {"type": "notice", "kind": pb.Notice.Kind.Name(n.kind), "match_id": n.match_id,
            "seat": n.seat, "decision_id": n.decision_id, "message": n.message}


def parse_answer(text: str) -> int | None:
    """``{"choice": N}`` or ``N`` → N; anything else → None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict):
        value = value.get("choice")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def encode(obj: dict) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


# ----------------------------------------------------------------------------- the bot side
class Bridge:
    """The bot handed to the SDK: every decision becomes a line to the child and its answer.

    Decisions are written one at a time (``lock``); answers are matched to decisions in order
    (``pending``), so a decision abandoned by the SDK (reconnect) cannot shift later answers.
    """

    def __init__(self, proc: asyncio.subprocess.Process):
        import asyncio
        self.proc = proc
        self.lock = asyncio.Lock()
        self.pending: collections.deque[asyncio.Future] = collections.deque()
        self.gone = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    def _write(self, obj: dict) -> None:
        stdin = self.proc.stdin
        if self.gone.is_set() or stdin is None or stdin.is_closing():
            return
        try:
            stdin.write(encode(obj))
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            self.gone.set()

    async def _read(self) -> None:
        import asyncio
        assert self.proc.stdout is not None
        try:
            while True:
                line = await self.proc.stdout.readline()
                if not line:
                    break
                text = line.decode("utf-8", "replace").strip()
                if not text:
                    continue
                if not self.pending:
                    _log().warning("the bot program wrote a line no decision asked for: %.200s", text)
                    continue
                fut = self.pending.popleft()
                if not fut.done():
                    fut.set_result(text)
        except (ValueError, asyncio.LimitOverrunError):  # a line over the reader's limit
            _log().error("the bot program wrote a line too long to be an answer")
        finally:
            self.gone.set()
            for fut in self.pending:
                if not fut.done():
                    fut.set_exception(ChildGone())

    async def decide(self, decision) -> int:
        import asyncio
        received = time.monotonic()
        try:
            async with self.lock:
                if self.gone.is_set():
                    raise ChildGone()
                fut = asyncio.get_running_loop().create_future()
                self.pending.append(fut)
                self._write(decision_line(decision, time.monotonic() - received))
                try:
                    await self.proc.stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    self.gone.set()
                    raise ChildGone() from None
                text = await fut
        except ChildGone:
            # no answer: run_bridge sees the child gone and stops everything (this waits to be cancelled)
            await asyncio.Event().wait()
            raise
        choice = parse_answer(text)
        if choice is None:
            _log().warning("not an answer (want {\"choice\": N} or N) for decision %s of match %s: %.200s",
                        decision.decision_id, decision.match_id, text)
            return -1  # the referee faults it as out of range and sends a notice
        return choice

    # the SDK's optional hooks (protobuf messages in, JSON lines out)
    def on_start(self, m) -> None:
        self._write(match_start_line(m))

    def on_end(self, m) -> None:
        self._write(match_end_line(m))

    def on_notice(self, n) -> None:
        _log().info("notice: %s", n.message)
        self._write(notice_line(n))


def exit_code_of(returncode: int | None) -> int:
    """A child's return code as the bridge's exit code: non-zero whenever the child stopped."""
    if returncode is None or returncode == 0:
        return 1
    return 128 - returncode if returncode < 0 else returncode


async def _stop_child(proc: asyncio.subprocess.Process, grace: float) -> None:
    import asyncio
    if proc.returncode is not None:
        return
    with contextlib.suppress(Exception):
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(proc.wait(), grace)
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(proc.wait(), 2.0)
        return
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    await proc.wait()


async def run_bridge(argv: list[str], address: str, token: str, *, games: tuple[str, ...] = (),
                     max_matches: int = 0, ca_file: str | None = None, retry_seconds: float = 30.0,
                     max_matches_per_hour: int = 0) -> int:
    """Start the child, play until the referee or the child ends; the bridge's exit code."""
    import asyncio

    from cardarena.client.bot import BotError, play

    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=None,
            limit=1 << 20, env=bot_environment())
    except OSError as e:
        print(f"cardarena bridge: cannot start {' '.join(argv)!r}: {e.strerror or e}", file=sys.stderr)
        return 1
    bridge = Bridge(proc)
    player = asyncio.create_task(play(bridge, address, token, games=games, max_matches=max_matches,
                                      max_matches_per_hour=max_matches_per_hour,
                                      retry_seconds=retry_seconds, ca_file=ca_file))
    child_done = asyncio.create_task(bridge.gone.wait())
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    stopped = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({player, child_done, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if player.done():
            try:
                player.result()
            except BotError as e:
                print(f"cardarena bridge: {e}", file=sys.stderr)
                return 1
            await _stop_child(proc, STOP_GRACE)
            return 0
        if stopped.done():
            return 143
        # the child ended (or closed its output) while the referee still plays
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), 2.0)
        code = exit_code_of(proc.returncode)
        how = "closed its output" if proc.returncode is None else exit_text(proc.returncode)
        print(f"cardarena bridge: the bot program {how}; leaving the referee", file=sys.stderr)
        return code
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        for t in (player, child_done, stopped, bridge.reader):
            t.cancel()
        await asyncio.gather(player, child_done, stopped, bridge.reader, return_exceptions=True)
        await _stop_child(proc, 0.5)


# ----------------------------------------------------------------------------- the command
def register(app: typer.Typer) -> None:
    """Add the ``bridge`` command to the ``cardarena`` Typer app."""

    @app.command("bridge", context_settings={"allow_interspersed_args": False})
    def bridge(
        command: Annotated[list[str], typer.Argument(
            metavar="COMMAND",
            help="The bot program and its arguments, after --.")],
        address: Annotated[Optional[str], typer.Option(
            "--address", help="The referee's HOST:PORT (default: CARDARENA_ADDRESS, else 127.0.0.1:50051).")] = None,
        token: Annotated[Optional[str], typer.Option(
            "--token", help="The bot's token (default: CARDARENA_TOKEN).")] = None,
        game: Annotated[Optional[list[str]], typer.Option(
            "--game", help="A game id the bot plays on the ladders (Hello.games; repeat); default: "
                           "CARDARENA_GAMES (a comma list), else every game.")] = None,
        max_matches: Annotated[Optional[int], typer.Option(
            "--max-matches", help="Ladder matches at once at most (Hello.max_matches; 0: the server's "
                                  "limit); default: CARDARENA_MAX_MATCHES, else 0.")] = None,
        max_matches_per_hour: Annotated[Optional[int], typer.Option(
            "--max-matches-per-hour", help="Ladder matches an hour at most, evenly spread "
                                           "(Hello.max_matches_per_hour; 0: no limit of its own); default: "
                                           "CARDARENA_MAX_MATCHES_PER_HOUR, else 0.")] = None,
        ca_file: Annotated[Optional[str], typer.Option(
            "--ca-file", help="PEM CA certificates: connect with TLS.")] = None,
    ):
        """Play as a bot program in any language, over JSON lines on stdin/stdout.

        Usage: cardarena bridge [--address A] [--token T] -- COMMAND ARGS...

        Each decision is one line to the program, answered by one line {"choice": N}; see clients/README.md.
        """
        address = address or os.environ.get("CARDARENA_ADDRESS") or "127.0.0.1:50051"
        token = token or os.environ.get("CARDARENA_TOKEN") or ""
        if not token:
            raise typer.BadParameter("no token: set CARDARENA_TOKEN or pass --token", param_hint="--token")
        if not command:
            raise typer.BadParameter("give the bot program after --, e.g. `cardarena bridge -- ./mybot`",
                                     param_hint="COMMAND")
        try:
            check_command(shlex.join(command))  # a program that cannot run is a bad argument
        except BotStartError as e:
            raise typer.BadParameter(str(e), param_hint="COMMAND") from None
        import logging
        logging.basicConfig(level=os.environ.get("CARDARENA_LOG", "WARNING"),
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        games = tuple(game or (g.strip() for g in os.environ.get("CARDARENA_GAMES", "").split(",") if g.strip()))
        max_matches = _count(max_matches, "CARDARENA_MAX_MATCHES", "--max-matches")
        max_matches_per_hour = _count(max_matches_per_hour, "CARDARENA_MAX_MATCHES_PER_HOUR", "--max-matches-per-hour")
        import asyncio
        code = asyncio.run(run_bridge(list(command), address, token, games=games, max_matches=max_matches,
                                      ca_file=ca_file, max_matches_per_hour=max_matches_per_hour))
        raise typer.Exit(code)


def _count(given: int | None, env: str, option: str) -> int:
    """An option's count, else the environment's (a whole number, else 0); a negative one is a
    bad argument."""
    if given is None:
        text = os.environ.get(env, "")
        given = int(text) if text.isdigit() else 0
    if given < 0:
        raise typer.BadParameter("must be 0 or more", param_hint=option)
    return given


def main(argv: list[str] | None = None) -> Any:
    """``python -m cardarena.server.bridge [OPTIONS] -- COMMAND ARGS…``: the command on its own."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app(args=argv, prog_name="cardarena bridge")


if __name__ == "__main__":
    main()
