"""``cardarena check``: the pre-flight of a bot before it joins a ladder.

    cardarena check --bot "python mybot.py"                # the CLI starts the program
    cardarena check --token TOKEN --address 127.0.0.1:50052 # the bot connects by itself

The check hosts a referee of its own on a local port, with two example opponents. The bot must
connect and say hello, play ``--matches`` matches of every game it claims with the ladder's time
control, and reconnect after the check cuts its stream in the second match of the first game.

**Ready** (exit 0) means: connected and said hello, every claimed game known, every match
finished with no fault and no forfeit, every game's p99 latency below the move time, one
stream from match to match, and the reconnect made in time. Anything else is ``not ready``
(exit 1) with each problem named in a line. The bot's output is kept in ``--log-dir``.

Design notes and measurements: docs/conduct.md (check).
"""
from __future__ import annotations

# asyncio and the games are imported where they are used: the `cardarena` CLI imports this module
# for the command's help, and asyncio would cost every start of the CLI ~40 ms.
import shlex
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import latency as lat

NAME = "candidate"
OPPONENTS = ("example-1", "example-2")
#: The opponents: the SDK's heuristic strategy of every game, runnable wherever cardarena is installed.
OPPONENT_COMMAND = "python -c " + shlex.quote(
    "from cardarena.client import run; from cardarena.client.strategies import for_game; "
    "run(lambda d: for_game(d.game)(d.view, d.actions))")
TABLE = 3
CUT_AFTER = 3  # the bot's decisions in the reconnect match before its stream is cut
GRACE = 10.0


@dataclass
class GameReport:
    game: str
    matches: int = 0
    decisions: int = 0
    faults: Counter = field(default_factory=Counter)
    forfeits: int = 0
    latencies: list[float] = field(default_factory=list)

    def quantile(self, q: float) -> float | None:
        return lat.quantile(lat.merge([lat.histogram(self.latencies)]), q) if self.latencies else None


@dataclass
class Report:
    connect_seconds: float | None = None
    hello: bool = False
    claimed: tuple[str, ...] = ()
    games: list[GameReport] = field(default_factory=list)
    streams_lost: list[str] = field(default_factory=list)   # matches after which the bot was gone
    reconnect: str = ""
    reconnect_ok: bool = False
    problems: list[str] = field(default_factory=list)


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


async def run_check(referee, games: list[str] | None, matches: int, move_time: float, start_timeout: float,
                    programs: dict, say=print) -> Report:
    """The check on a running referee whose bots are NAME and OPPONENTS (module docstring)."""
    import asyncio

    from .games import games as all_games, get as get_game
    report = Report()
    t0 = time.monotonic()
    program = programs.get(NAME)
    while not referee.is_connected(NAME) and time.monotonic() - t0 < start_timeout:
        if program is not None and program.returncode is not None:
            from .procs import exit_text
            report.problems.append(f"the bot's program {exit_text(program.returncode)} before connecting "
                                   f"(its output: {program.log_path})")
            return report
        await asyncio.sleep(0.05)
    if not referee.is_connected(NAME):
        report.problems.append(f"the bot did not connect within {start_timeout:g} s"
                               + (f" (its output: {program.log_path})" if program else ""))
        return report
    missing = await referee.wait_for_bots(list(OPPONENTS), start_timeout)
    if missing:
        raise RuntimeError(f"the example opponents did not connect: {', '.join(missing)}")
    report.connect_seconds = time.monotonic() - t0
    link = referee.links.get(NAME)
    try:
        await asyncio.wait_for(link.hello.wait(), 5)
        report.hello = True
    except asyncio.TimeoutError:
        report.problems.append("the bot did not say hello within 5 s of connecting")
    claimed = tuple(link.games)
    report.claimed = claimed
    unknown = [g for g in claimed if g not in all_games()]
    if unknown:
        report.problems.append(f"the bot claims games this server does not know: {', '.join(unknown)}")
    plays = [g for g in (claimed or all_games()) if g in all_games()]
    if games:
        not_claimed = [g for g in games if claimed and g not in claimed]
        if not_claimed:
            report.problems.append(f"the bot does not claim {', '.join(not_claimed)} in its hello")
        plays = [g for g in games if not claimed or g in claimed]
    from .referee import TimeControl
    tc = TimeControl(move_seconds=move_time, grace_seconds=GRACE)
    cut_done = False
    for gi, game in enumerate(plays):
        cls = get_game(game)
        seats = min(max(TABLE, cls.min_players), cls.max_players)
        rep = GameReport(game)
        report.games.append(rep)
        for i in range(matches):
            if not referee.is_connected(NAME):
                report.streams_lost.append(f"{game} match {i + 1}")
                if not await _back(referee, NAME, GRACE):
                    report.problems.append(f"the bot left before {game} match {i + 1} and did not come back")
                    return report
            at = i % seats
            table = [OPPONENTS[(k + i) % 2] for k in range(seats - 1)]
            bots = table[:at] + [NAME] + table[at:]
            watch = None
            if gi == 0 and i == 1 and not cut_done:
                cut_done = True
                watch = _Cutter(referee, at)
            say(f"  {game}: match {i + 1} of {matches}, seat {at}" + (" (its stream is cut midway)" if watch else ""))
            out = await referee.play(game, bots, seed=1000 * gi + i, match_id=f"check-{game}-{i + 1}",
                                     time_control=tc, on_events=watch)
            rep.matches += 1
            rep.decisions += len(out.latencies[at])
            rep.latencies += out.latencies[at]
            for f in out.fault_log:
                if f.seat == at and f.kind not in ("forfeit", "absent"):  # forfeits are counted apart
                    rep.faults[f.kind] += 1
            rep.forfeits += int(out.forfeited[at])
            if watch is not None:
                report.reconnect, report.reconnect_ok = await watch.verdict(out.forfeited[at])
    return report


class _Cutter:
    """``on_events`` of the reconnect match: cuts the bot's stream after its CUT_AFTER-th decision."""

    def __init__(self, referee, seat: int):
        self.referee, self.seat = referee, seat
        self.cut_at: float | None = None
        self.back_at: float | None = None
        self.old = None
        self.task: asyncio.Task | None = None

    def __call__(self, match, events) -> None:
        import asyncio
        if self.cut_at is not None:
            return
        answered = sum(1 for step in match.steps if self.seat in step)
        if answered >= CUT_AFTER:
            self.old = self.referee.links.get(NAME)
            if self.old is None:
                return
            self.cut_at = time.monotonic()
            self.old.abort("the check cuts the stream to see the bot reconnect", code="UNAVAILABLE")
            self.task = asyncio.ensure_future(self._wait_back())

    async def _wait_back(self) -> None:
        import asyncio
        while time.monotonic() - self.cut_at < GRACE + 1:
            link = self.referee.links.get(NAME)
            if link is not None and link is not self.old:
                self.back_at = time.monotonic()
                return
            await asyncio.sleep(0.01)

    async def verdict(self, forfeited: bool) -> tuple[str, bool]:
        if self.cut_at is None:
            return "not tried: the match ended before the bot's third decision", True
        if self.task is not None:
            await self.task
        if self.back_at is None:
            return f"cut after its {CUT_AFTER}rd decision; it did not come back within {GRACE:g} s", False
        took = self.back_at - self.cut_at
        if forfeited:
            return f"cut after its {CUT_AFTER}rd decision; back in {_ms(took)}, but its seat forfeited", False
        return f"cut after its {CUT_AFTER}rd decision; back in {_ms(took)}, and the match finished with no forfeit", True


async def _back(referee, name: str, timeout: float) -> bool:
    return not await referee.wait_for_bots([name], timeout)


def verdicts(report: Report, move_time: float) -> list[str]:
    """The problems that keep the bot off a ladder (empty: ready)."""
    problems = list(report.problems)
    for g in report.games:
        if g.faults:
            problems.append(f"{g.game}: {sum(g.faults.values())} faults ("
                            + ", ".join(f"{n} {k}" for k, n in sorted(g.faults.items())) + ")")
        if g.forfeits:
            problems.append(f"{g.game}: {g.forfeits} forfeited seats")
        p99 = g.quantile(0.99)
        if p99 is not None and p99 >= move_time:
            problems.append(f"{g.game}: p99 latency {_ms(p99)} is not below the move time {move_time:g} s")
        if g.matches and not g.decisions:
            problems.append(f"{g.game}: the bot answered no decision")
    if report.streams_lost:
        problems.append("the bot lost its stream between matches (before " + ", ".join(report.streams_lost) + ")")
    if report.reconnect and not report.reconnect_ok:
        problems.append(f"reconnect: {report.reconnect}")
    return problems


def format_report(report: Report, move_time: float) -> list[str]:
    lines = []
    if report.connect_seconds is not None:
        claims = ", ".join(report.claimed) if report.claimed else "every game"
        lines.append(f"connected in {_ms(report.connect_seconds)}; "
                     + (f"said hello, playing {claims}" if report.hello else "no hello"))
    if report.games:
        head = f"{'game':<16}{'matches':>8}{'decisions':>10}{'faults':>8}{'forfeits':>9}{'p50':>10}{'p99':>10}  move time"
        lines += [head, "─" * len(head)]
        for g in report.games:
            lines.append(f"{g.game:<16}{g.matches:>8}{g.decisions:>10}{sum(g.faults.values()):>8}{g.forfeits:>9}"
                         f"{_ms(g.quantile(0.5)):>10}{_ms(g.quantile(0.99)):>10}  {move_time:g} s")
        matches = sum(g.matches for g in report.games)
        lines.append(f"match start and end: " + ("one stream from match to match over "
                                                  f"{matches} matches" if not report.streams_lost else
                                                  "the stream was lost between matches"))
    if report.reconnect:
        lines.append(f"reconnect: {report.reconnect}")
    return lines


def register(app: typer.Typer) -> None:
    @app.command()
    def check(bot: Annotated[Optional[str], typer.Option("--bot", help="The bot's COMMAND: the check starts it "
                                                                      "with CARDARENA_ADDRESS and CARDARENA_TOKEN.")] = None,
              token: Annotated[Optional[str], typer.Option(
                  "--token", help="Instead of --bot: the token the bot connects with by itself (to --address).")] = None,
              address: Annotated[str, typer.Option("--address", help="HOST:PORT of the check's referee "
                                                                     "(port 0: a free one).")] = "127.0.0.1:0",
              game: Annotated[Optional[list[str]], typer.Option("--game", help="Check only this game (repeat); "
                                                                               "default: every game the bot claims.")] = None,
              matches: Annotated[int, typer.Option("--matches", help="Matches per game.")] = 3,
              move_time: Annotated[float, typer.Option("--move-time", help="Seconds per decision (the ladder's).")] = 2.0,
              start_timeout: Annotated[float, typer.Option("--start-timeout", help="Seconds to wait for the bot to "
                                                                                  "connect.")] = 30.0,
              log_dir: Annotated[Path, typer.Option("--log-dir", help="Where the bots' output goes.")] = Path("logs")):
        """Pre-flight: play a few quick matches of every game the bot claims and say whether it is ready.

        Exit 0 only when it is: connected and said hello, no fault, no forfeit, p99 latency below
        the move time, one stream from match to match, and back in time after a cut stream."""
        from cardarena.server import cli, procs
        from .games import UnknownGame, games as all_games, get as get_game
        try:
            if (bot is None) == (token is None):
                raise typer.BadParameter("give the bot as --bot COMMAND or --token TOKEN", param_hint="--bot")
            if token is not None and address.endswith(":0"):
                raise typer.BadParameter("with --token, give the --address your bot connects to (HOST:PORT)",
                                         param_hint="--address")
            cli.check_address(address, "--address")
            cli.check_seconds(move_time, "--move-time", above_zero=True)
            cli.check_seconds(start_timeout, "--start-timeout")
            if matches < 1:
                raise typer.BadParameter("must be at least 1", param_hint="--matches")
            for g in game or ():
                try:
                    get_game(g)
                except (KeyError, UnknownGame):
                    raise typer.BadParameter(f"no game {g!r} (games: {', '.join(all_games())})",
                                             param_hint="--game") from None
            bots = [(NAME, bot), *((o, OPPONENT_COMMAND) for o in OPPONENTS)]
            cli.check_programs([b for b in bots if b[1]])
            folder = log_dir / time.strftime("check-%Y%m%d-%H%M%S")
            cli.make_log_dir([b for b in bots if b[1]], folder)
            if token is not None:
                bots[0] = (NAME, None)
            cli.err.print(f"check: {'`' + bot + '`' if bot else 'the bot with that token'} against "
                          f"{len(OPPONENTS)} example bots, {matches} matches per game; logs in {folder}", markup=False)

            def authenticate(given: str) -> str | None:
                return NAME if token is not None and given == token else None

            async def start(referee, ledger, running):
                if token is not None:
                    cli.err.print(f"waiting for the bot at {address} (CARDARENA_ADDRESS={address}, "
                                  f"its token in CARDARENA_TOKEN)", markup=False)
                return await run_check(referee, game, matches, move_time, start_timeout,
                                       {p.name: p for p in running},
                                       say=lambda line: cli.err.print(line, markup=False))
            try:
                report = cli._run_hosting(bots, None, folder, start, move_time=move_time, host_address=address,
                                          authenticate=authenticate, grace=GRACE)
            except cli._Stopped as e:
                raise cli.CliError(f"{e}; the check's bots are stopped", code=128 + e.signum) from None
            except (OSError, RuntimeError) as e:
                raise cli.CliError(f"cannot listen on {address}: {getattr(e, 'strerror', None) or e}") from None
        except cli.CliError as e:  # said here: under `python -m`, the running CLI is another module object
            cli.err.print(f"cardarena: {e}", markup=False)
            raise typer.Exit(e.code) from None
        for line in format_report(report, move_time):
            cli.out.print(line, markup=False)
        problems = verdicts(report, move_time)
        if problems:
            cli.out.print("not ready for the ladder:", markup=False)
            for p in problems:
                cli.out.print(f"  - {p}", markup=False)
            raise typer.Exit(1)
        cli.out.print("ready for the ladder", markup=False)
