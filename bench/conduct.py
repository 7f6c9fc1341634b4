#!/usr/bin/env python3
"""What hostile and unlucky bots cost, measured with real bot processes.

1. **Staller**: a 3-match Sixth Card league (tables of 3) of two random bots and a bot that drops
   its stream on every decision and comes back just inside the grace (9.5 s of 10), at the CLI's
   default time control; against the same league of three random bots. Prints both league times
   and the bound docs/time-control.md states (``TimeControl.worst_delay``).
2. **Late once per match**: an honest SDK bot whose first decision of every match is late, against
   a random bot, ``--late-matches`` matches (default 300): matches it kept its seat in, faults.
3. **Blipped**: the SDK random bot behind a TCP proxy that cuts its connection ``--cuts`` times
   during a league against two slower bots: its faults and forfeits.
4. **Non-reader**: the referee's resident memory over ``--deaf-matches`` matches (default 2,000)
   in which one seat is held by a bot that never reads its stream, with the outbox bound and,
   for comparison, without it (as before the bound).

Usage: python bench/conduct.py [--late-matches N] [--deaf-matches N] [--cuts K] [--only NAME]
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "faults"))

from conductkit import RANDOM, bot_script, league  # noqa: E402

from cardarena.server import procs  # noqa: E402
from cardarena.server.referee import Referee, TimeControl  # noqa: E402
from cardarena.server.service import start_server  # noqa: E402


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def staller() -> None:
    tc = TimeControl()
    for label, bots in (("3 random bots", {f"random-{i}": RANDOM for i in (1, 2, 3)}),
                        ("2 random bots + staller", {"random-1": RANDOM, "random-2": RANDOM,
                                                     "staller": bot_script("staller.py")})):
        with tempfile.TemporaryDirectory() as tmp:
            played = league(Path(tmp), bots, seats=3, move=tc.move_seconds, grace=tc.grace_seconds,
                            env={"CARDARENA_STALL": "9.5"}, timeout=600)
            forfeits = sum(m.forfeited[s] for m, s in played.seats_of("staller")) if "staller" in bots else 0
            print(f"staller: {label}: {len(played.matches())} matches in {played.elapsed:.1f} s "
                  f"(staller seats forfeited: {forfeits})")
    print(f"staller: the bound (docs/time-control.md) on the delay per match at the default time control: "
          f"{tc.worst_delay():g} s")


def late_once(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        played = league(Path(tmp), {"late": bot_script("late_once.py"), "random": RANDOM}, seats=2, move=0.1,
                        matches=n, concurrency=8, timeout=1200)
        seats = played.seats_of("late")
        kept = sum(not m.forfeited[s] for m, s in seats)
        faults = sum(m.faults[s] for m, s in seats)
        print(f"late once per match: kept its seat in {kept} of {len(seats)} matches, {faults} late faults, "
              f"SDK process {'still running' if played.alive['late'] else 'gone'} at the end")


def blipped(cuts: int) -> None:
    async def cutter(referee, proxy):
        while not referee.runs:
            await asyncio.sleep(0.02)
        for _ in range(cuts):
            await asyncio.sleep(0.6)
            proxy.cut()

    with tempfile.TemporaryDirectory() as tmp:
        bots = {"blip": RANDOM, "slow-1": bot_script("slow_bot.py"), "slow-2": bot_script("slow_bot.py")}
        played = league(Path(tmp), bots, seats=3, move=2.0, grace=10.0, via_proxy=("blip",), during=cutter,
                        env={"CARDARENA_THINK": "0.4"})
        seats = played.seats_of("blip")
        print(f"blipped: {played.proxy.cuts} cuts, {played.proxy.connections} connections through the proxy; "
              f"faults {sum(m.faults[s] for m, s in seats)}, forfeits {sum(m.forfeited[s] for m, s in seats)} "
              f"in {len(seats)} matches")


def non_reader(n: int) -> None:
    async def run(outbox) -> tuple[float, float, float]:
        referee = Referee(time_control=TimeControl(move_seconds=0.05, grace_seconds=1.0), outbox=outbox)
        hosted = await start_server(referee)
        with tempfile.TemporaryDirectory() as tmp:
            running = [procs.start_bot(name, command, hosted.address, referee.mint_session_token(name), Path(tmp),
                                       extra_env={"PYTHONPATH": str(ROOT / "tests" / "bots")})
                       for name, command in (("deaf", bot_script("non_reader.py")), ("random", RANDOM))]
            try:
                await referee.wait_for_bots(["deaf", "random"], 30)
                sem = asyncio.Semaphore(8)
                marks = {}

                async def one(i: int) -> None:
                    async with sem:
                        await referee.play("sixth-card", ["deaf", "random"] if i % 2 else ["random", "deaf"], i,
                                           {"rounds": 1}, str(i))
                    if i == n // 10:
                        marks["early"] = rss_mb()
                t0 = time.monotonic()
                await asyncio.gather(*(one(i) for i in range(n)))
                return marks.get("early", 0.0), rss_mb(), time.monotonic() - t0
            finally:
                for p in running:
                    p.stop()
                await hosted.stop(0)

    for label, outbox in (("bounded outbox (2,000 messages, 8 MiB)", (2000, 8 << 20)),
                          ("no bound (as before)", (10**9, 1 << 40))):
        start = rss_mb()
        early, end, secs = asyncio.run(run(outbox))
        print(f"non-reader, {label}: referee RSS {start:.0f} MB before, {early:.0f} MB after {n // 10} matches, "
              f"{end:.0f} MB after {n} matches ({secs:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--late-matches", type=int, default=300)
    ap.add_argument("--deaf-matches", type=int, default=2000)
    ap.add_argument("--cuts", type=int, default=5)
    ap.add_argument("--only", choices=["staller", "late", "blipped", "non-reader"])
    a = ap.parse_args()
    if a.only in (None, "non-reader"):
        non_reader(a.deaf_matches)
    if a.only in (None, "staller"):
        staller()
    if a.only in (None, "late"):
        late_once(a.late_matches)
    if a.only in (None, "blipped"):
        blipped(a.cuts)


if __name__ == "__main__":
    main()
