"""League benchmark: a Sixth Card league of 4 random bot processes over real gRPC, and the rating
table of a 100,000-match ledger.

    .venv/bin/python bench/league.py                          # 1,000 matches, then a 100,000-match ledger
    .venv/bin/python bench/league.py --matches 200 --ledger-matches 0      # a shorter league only

1. The league: what ``cardarena league run --matches N`` does, without the terminal: a referee
   on a free local port, four ``examples/python/random_bot.py`` processes (each with its own
   session token), a balanced schedule of N four-seat matches written to a SQLite ledger in a
   temporary folder, played ``-j`` at a time. Printed: matches per second, decisions per
   second, and the time of each ``record_match`` (the match, its seats, its event log and its
   TrueSkill update in one transaction) in the league's recorder process (ratings/recorder.py),
   and the recorder's CPU; then the same matches recorded again one by one into a fresh ledger
   with nothing else running, the ledger's own cost.
2. The rating table: a ledger of ``--ledger-matches`` finished matches among 40 bots, its facts
   written in bulk with bench/ledger.py's generator (``places_of``) and rated with
   ``Ledger.recompute`` (what ``cardarena ratings recompute`` does); then ``cardarena ratings``
   timed as a user runs it, a new process (interpreter start, imports, query, printing), and
   in-process (``main(["ratings", ...])``, the query and the printing only).

Figures are printed, never asserted (tests do not time anything).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import resource
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from ledger import GAME, write_finished  # noqa: E402  (bench/ledger.py: the big ledger's generator)

from cardarena.ratings import Ledger  # noqa: E402


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# --------------------------------------------------------------------------------- 1. the league


async def _league(folder: Path, matches: int, concurrency: int) -> None:
    from cardarena.server import procs
    from cardarena.server.league import LeagueSpec, LeagueStats, run_league
    from cardarena.server.referee import Referee, TimeControl
    from cardarena.server.service import start_server

    led = Ledger(str(folder / "league.db"))
    names = [f"random-{i}" for i in range(1, 5)]
    for n in names:
        led.add_bot(n)
    referee = Referee(time_control=TimeControl(move_seconds=5.0))
    hosted = await start_server(referee)
    bots = [procs.start_bot(n, f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}", hosted.address,
                            referee.mint_session_token(n), folder / "logs") for n in names]
    try:
        missing = await referee.wait_for_bots(names, 30)
        if missing:
            raise SystemExit(f"bots not connected: {missing}; see {folder / 'logs'}")
        spec = LeagueSpec(game=GAME, bots=names, seats=4, seed=1, concurrency=concurrency, move_seconds=5.0,
                          matches=matches)
        stats = LeagueStats()
        shown = [0.0]

        def progress(league_id, done, total, match_id):
            now = time.monotonic()
            if now - shown[0] > 5 or done == total:
                shown[0] = now
                print(f"  … {done}/{total} matches, {stats.elapsed:.0f} s", flush=True)

        league_id = await run_league(referee, led, spec, progress=progress, stats=stats)
        wall = stats.elapsed
        # the recorder is the only child that has ended so far (the bots are still running)
        recorder = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        for b in bots:
            b.stop()
        await hosted.server.stop(grace=0.5)
    rec = sorted(stats.record_seconds)
    print(f"league {league_id}: {stats.played} Sixth Card matches of 4 seats, 4 random bot processes over gRPC, "
          f"-j {concurrency}, in {wall:.1f} s")
    print(f"  {stats.played / wall:.2f} matches/s, {stats.decisions / wall:.0f} decisions/s "
          f"({stats.decisions / max(stats.played, 1):.0f} decisions per match)")
    print(f"  record_match per match, in the recorder process: median {ms(statistics.median(rec))}, "
          f"mean {ms(statistics.mean(rec))}, p95 {ms(rec[int(len(rec) * 0.95)])}; the recorder busy "
          f"{100 * sum(rec) / wall:.1f} % of the league's wall time")
    print(f"  the recorder's CPU, start-up included: {recorder.ru_utime + recorder.ru_stime:.1f} s")
    problems = led.check()
    print(f"  ledger check: {len(problems)} problems")

    # the same matches recorded again one by one into a fresh ledger, with nothing else running:
    # the ledger's own cost, without the referee and the bots competing for the CPU
    alone = Ledger(str(folder / "again.db"))
    for n in names:
        alone.add_bot(n)
    details = [led.match(m.id) for m in led.league_matches(league_id)]
    from cardarena.ratings import MatchPlan
    again = alone.create_league(GAME, {}, {}, [MatchPlan(0, i, d.seed, d.bots) for i, d in enumerate(details)])
    wall, cpu = [], []
    for m, d in zip(alone.league_matches(again), details):
        alone.claim_match(m.id)
        t, c = time.perf_counter(), time.thread_time()
        alone.record_match(m.id, scores=d.scores, places=d.places, faults=d.faults, forfeited=d.forfeited,
                           steps=d.steps, events=d.events, result_details=d.result_details, duration_s=1.0)
        wall.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    wall.sort()
    print(f"  record_match of the same {len(details)} matches again, alone (mean {statistics.mean(len(d.events) for d in details):.0f} "
          f"events, {statistics.mean(len(d.steps) for d in details):.0f} steps): wall median {ms(statistics.median(wall))}, "
          f"p95 {ms(wall[int(len(wall) * 0.95)])}; CPU median {ms(statistics.median(cpu))}")
    alone.close()
    led.close()


# --------------------------------------------------------------------------------- 2. the table


def _big_ledger(path: Path, matches: int, bots: int) -> None:
    """bench/ledger.py's big ledger: finished matches written in bulk, then rated by recompute."""
    rng = random.Random(2)
    led = Ledger(str(path))
    ids = [led.add_bot(f"bot{i:03d}")[0].id for i in range(bots)]
    t = time.perf_counter()
    write_finished(led, ids, matches, rng)
    print(f"ledger of {matches} finished matches (3-5 seats, {bots} bots) written in bulk: {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    last = [0.0]

    def progress(done, total):
        if time.monotonic() - last[0] > 10:
            last[0] = time.monotonic()
            print(f"  … recompute {done}/{total}", flush=True)

    replayed = led.recompute(progress=progress)
    print(f"recompute (what `cardarena ratings recompute` does): {replayed} matches in {time.perf_counter() - t:.1f} s")
    led.close()


def _table(path: Path, runs: int) -> None:
    from cardarena.server.cli import main

    env = {**os.environ, "CARDARENA_DB": str(path)}
    cmd = [sys.executable, "-m", "cardarena.server.cli", "ratings", "--game", GAME]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode:
            raise SystemExit(r.stderr)
    rows = r.stdout.count("\n") - 2
    print(f"`cardarena ratings` on it, a new process each time ({rows} rows): median {ms(statistics.median(times))}, "
          f"worst {ms(max(times))}")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import cardarena.server.cli"], check=True)
    print(f"  of which starting Python and importing the CLI: {ms(time.perf_counter() - t)}")
    inproc = []
    for _ in range(runs):
        buf = io.StringIO()
        t = time.perf_counter()
        with contextlib.redirect_stdout(buf):
            code = main(["ratings", "--game", GAME, "--db", str(path)])
        inproc.append(time.perf_counter() - t)
        assert code == 0
    print(f"  in-process main(['ratings', …]) (query and printing): median {ms(statistics.median(inproc))}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=1000, help="matches of the league (0: skip it)")
    p.add_argument("-j", "--concurrency", type=int, default=4, help="matches played at once")
    p.add_argument("--ledger-matches", type=int, default=100_000, help="matches of the big ledger (0: skip it)")
    p.add_argument("--bots", type=int, default=40, help="bots of the big ledger")
    p.add_argument("--runs", type=int, default=5, help="times `cardarena ratings` is run")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.matches:
            asyncio.run(_league(Path(folder), args.matches, args.concurrency))
        if args.ledger_matches:
            path = Path(folder) / "big.db"
            _big_ledger(path, args.ledger_matches, args.bots)
            _table(path, args.runs)


if __name__ == "__main__":
    main()
