#!/usr/bin/env python3
"""The arena under load: ``--bots`` connected bots (default 200) on three
ladders for ``--seconds`` (default 60) against a real ``cardarena serve --ladder … --no-web``.

The bots are registered in a temporary ledger first; then this process holds every bot's stream
itself: one asyncio task per bot, each the Python SDK's ``play`` coroutine with a random bot
(every game: an empty ``Hello.games``), each on its own gRPC channel and connection (as bots in
their own processes would be: :func:`own_connection`). ``serve`` is a subprocess
(its own interpreter, so its figures are its own); SIGTERM ends it after the time, with
``--drain`` seconds for the matches still running (those are then marked unplayed).

Printed, from the ledger afterwards and from /proc:

- **matches/s** and **decisions/s**: ladder matches finished between the first match's start and
  the SIGTERM, and their decisions (every seat's answer or default at every step), over that time;
- **scheduling latency** p50/p99 (and max): from a bot being free to its next match start, per
  bot from the ledger's times: a match's ``claimed_at`` is its start, ``finished_at`` frees the
  slot it held; with ``--max-matches`` slots a bot, a start takes the slot that has been free the
  longest (the arena's own ``free_since``). A bot's first matches, free since it connected, are
  not counted;
- the referee's **RSS** over time (``VmRSS`` of /proc/PID/status every ``--sample`` seconds) and
  its CPU time over the run (utime + stime of /proc/PID/stat);
- the **fairness** of the draw: finished matches per bot (min/median/max, overall and per ladder)
  and distinct opponents per bot;
- the **ledger's bytes a match** (the SQLite file over its finished matches) before and after
  ``cardarena ledger prune --older-than 0`` (the step and event logs dropped, the file vacuumed),
  and what a day adds at a pace of ``--rate`` matches a minute (default 12) either way.

``--hosted N`` runs bench/arena_hosted.py instead: N hosted bots (``bot submit``) in sandboxes,
the sandbox's start cost against a plain process start, submit to first rated match, memory a
hosted bot (its own options: ``--hosted N --help``).

``--simulate N`` runs bench/arena_sim.py instead: the real matchmaker and ledger with N in-process
bots on a simulated clock, no gRPC (its own options: ``--simulate N --help``).

Usage: python bench/arena.py [--seconds 60] [--bots 200] [--ladder sixth-card:4 --ladder scout:3
--ladder unsorted:3] [--max-matches 2] [--move-time 2] [--sample 5] [--drain 10] [--rate 12]
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict, deque
from datetime import datetime, timezone
from pathlib import Path

import grpc

from cardarena.client import bot as sdk
from cardarena.client.bot import play
from cardarena.ratings import Ledger

LADDERS = ("sixth-card:4", "scout:3", "unsorted:3")
RATE = 12.0  # matches a minute: the pace a day's ledger growth is figured at, unless --rate says
ADMIN_TOKEN = "bench-arena-admin-token"
TICKS = os.sysconf("SC_CLK_TCK")


def own_connection(address: str, ca_file: str | None):
    """The SDK's channel on a connection of its own. gRPC shares one connection among a process's
    channels to the same address by default, and the referee allows 16 streams a connection
    (``grpc.max_concurrent_streams``): without this, bots past the 16th would wait, never seated,
    where bots in their own processes would each have a connection."""
    return grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


sdk._channel = own_connection


def decide(decision) -> int:
    return random.randrange(len(decision))


def rss_mb(pid: int) -> float | None:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def bot_names(n: int) -> list[str]:
    return [f"bot{i:03d}" for i in range(n)]


def spread(values) -> str:
    if not values:
        return "none"
    return f"min {min(values)}, median {statistics.median(values):g}, max {max(values)}"


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def start_serve(db: Path, ladders: list[str], args) -> tuple[subprocess.Popen, str, list[str]]:
    """`cardarena serve` on a free port; its address once it listens, and its stderr lines (kept
    by a thread, so the pipe never fills)."""
    argv = [sys.executable, "-m", "cardarena.server.cli", "serve", "--db", str(db), "--address", "127.0.0.1:0",
            "--no-web", "--max-matches", str(args.max_matches), "--move-time", str(args.move_time),
            "--drain", str(args.drain), "--rate", "0"]  # no pace: the arena as fast as it goes
    for spec in ladders:
        argv += ["--ladder", spec]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "CARDARENA_ADMIN_TOKEN": ADMIN_TOKEN})
    lines: list[str] = []
    address: list[str] = []
    listening = threading.Event()

    def read():
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if "referee listening on" in line and not address:
                address.append(line.split("listening on ", 1)[1].split()[0])
                listening.set()
        listening.set()
    threading.Thread(target=read, daemon=True).start()
    if not listening.wait(60) or not address:
        proc.kill()
        sys.exit("serve did not start:\n" + "\n".join(lines))
    return proc, address[0], lines


async def load(address: str, tokens: dict[str, str], proc: subprocess.Popen, args) -> tuple[datetime, list, float]:
    """Every bot's stream for ``--seconds``, the referee's RSS sampled meanwhile; the UTC time of
    the SIGTERM, the samples (seconds, MB) and the referee's CPU seconds until then."""
    bots = [asyncio.create_task(play(decide, address, token, retry_seconds=10), name=name)
            for name, token in tokens.items()]
    samples = []
    t0 = time.monotonic()
    while (elapsed := time.monotonic() - t0) < args.seconds:
        samples.append((elapsed, rss_mb(proc.pid)))
        await asyncio.sleep(min(args.sample, args.seconds - elapsed))
    samples.append((time.monotonic() - t0, rss_mb(proc.pid)))
    cpu = cpu_seconds(proc.pid)
    stopped = datetime.now(timezone.utc)
    proc.send_signal(signal.SIGTERM)
    while proc.poll() is None:  # the drain: the bots play the running matches out
        await asyncio.sleep(0.2)
    for t in bots:
        t.cancel()
    await asyncio.gather(*bots, return_exceptions=True)
    return stopped, samples, cpu


def waits_of(spans: list[tuple[datetime, datetime]], slots: int) -> list[float]:
    """Seconds from a free slot to the next match start, for one bot (module docstring)."""
    events = sorted([(end, 0) for _, end in spans] + [(start, 1) for start, _ in spans])
    free: deque = deque([None] * slots)
    out = []
    for at, is_start in events:
        if not is_start:
            free.append(at)
        elif free:
            since = free.popleft()
            if since is not None:
                out.append((at - since).total_seconds())
    return out


def report(db: Path, stopped: datetime, samples: list, cpu: float | None, args, ladders: list[str]) -> None:
    ledger = Ledger(str(db))
    listed = ledger.matches(kind="ladder", limit=None)
    spans: dict[str, list] = defaultdict(list)
    per_ladder: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    opponents: dict[str, set] = defaultdict(set)
    finished: dict[str, int] = defaultdict(int)  # by game, by the SIGTERM
    drained = unplayed = decisions = 0
    first = None
    for m in listed:
        d = ledger.match(m.id)  # its claimed_at and steps
        if d.claimed_at is None:
            continue
        start = d.claimed_at if d.claimed_at.tzinfo else d.claimed_at.replace(tzinfo=timezone.utc)
        end = d.finished_at or stopped
        end = end if end.tzinfo else end.replace(tzinfo=timezone.utc)
        first = start if first is None else min(first, start)
        for b in set(d.bots):
            spans[b].append((start, end))
        if d.status != "finished":
            unplayed += 1
            continue
        for b in d.bots:
            per_ladder[d.game][b] += 1
            opponents[b].update(o for o in d.bots if o != b)
        if end <= stopped:
            finished[d.game] += 1
            decisions += sum(len(step) for step in d.steps)
        else:
            drained += 1
    ledger.close()
    window = (stopped - first).total_seconds() if first else float("nan")
    waits = [w for b in spans for w in waits_of(spans[b], args.max_matches)]
    print(f"arena: {args.bots} bots on {', '.join(ladders)}, at most {args.max_matches} matches a bot, "
          f"{args.seconds:g} s (first match start to SIGTERM: {window:.1f} s)")
    total = sum(finished.values())
    print(f"matches: {total} finished by the SIGTERM ({total / window:.1f}/s: "
          + ", ".join(f"{g} {n}" for g, n in sorted(finished.items()))
          + f"); {drained} more finished in the drain, {unplayed} not (unplayed, or failed)")
    print(f"decisions: {decisions} ({decisions / window:.0f}/s)")
    if waits:
        print(f"scheduling latency (a bot free → its next match start): p50 {1000 * percentile(waits, 50):.1f} ms, "
              f"p99 {1000 * percentile(waits, 99):.1f} ms, max {1000 * max(waits):.1f} ms over {len(waits)} starts")
    series = ", ".join(f"{t:.0f}s {mb:.0f}" for t, mb in samples if mb is not None)
    known = [mb for _, mb in samples if mb is not None]
    print(f"referee RSS (MB) over time: {series}" + (f" (min {min(known):.0f}, max {max(known):.0f})" if known else ""))
    if cpu is not None:
        print(f"referee CPU: {cpu:.1f} s over the run ({100 * cpu / max(samples[-1][0], 1e-9):.0f} % of one core)")
    client = resource.getrusage(resource.RUSAGE_SELF)
    print(f"bots' process (this one) CPU: {client.ru_utime + client.ru_stime:.1f} s")
    names = bot_names(args.bots)
    print(f"fairness: finished matches per bot: {spread([sum(per_ladder[g].get(b, 0) for g in per_ladder) for b in names])}")
    for game in sorted(per_ladder):
        print(f"  {game}: {spread([per_ladder[game].get(b, 0) for b in names])}")
    print(f"  distinct opponents per bot: {spread([len(opponents[b]) for b in names])}")
    idle = [b for b in names if not spans.get(b)]
    if idle:
        print(f"  never seated: {len(idle)} bots ({', '.join(idle[:10])}{' …' if len(idle) > 10 else ''})")


def retention(db: Path, base: int, args) -> None:
    """The ledger's bytes a match (beyond ``base``, its bytes with the bots alone) before and after
    ``ledger prune --older-than 0``, and a day's growth at ``--rate`` matches a minute."""
    ledger = Ledger(str(db))
    matches = ledger.counts()["matches"]["finished"]
    before = ledger.storage_bytes()
    ledger.close()
    if not matches or not before:
        print("ledger: no finished match to measure")
        return
    r = subprocess.run([sys.executable, "-m", "cardarena.server.cli", "ledger", "prune", "--older-than", "0",
                        "--db", str(db)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"ledger prune failed: {r.stderr.strip()}")
        return
    ledger = Ledger(str(db))
    after = ledger.storage_bytes()
    ledger.close()
    per, pruned = (before - base) / matches, max(after - base, 0) / matches
    print(f"ledger: {before:,} bytes for {matches} finished matches ({base:,} of them before any match), "
          f"{per:,.0f} a match; after `ledger prune --older-than 0`: {after:,} bytes, {pruned:,.0f} a match "
          f"({100 * (1 - pruned / per):.0f} % less)")
    pace = "the default pace" if args.rate == RATE else "--rate"
    day = args.rate * 60 * 24
    print(f"a day at {args.rate:g} matches a minute ({pace}; {day:,.0f} matches): {per * day / 1e6:,.1f} MB with "
          f"every log kept, {pruned * day / 1e6:,.1f} MB once they are pruned (serve --keep-logs DAYS keeps DAYS "
          "days of logs)")


def main() -> None:
    if any(a == "--hosted" or a.startswith("--hosted=") for a in sys.argv[1:]):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import arena_hosted
        arena_hosted.main(sys.argv[1:])
        return
    if any(a == "--simulate" or a.startswith("--simulate=") for a in sys.argv[1:]):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import arena_sim
        arena_sim.main(sys.argv[1:])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--bots", type=int, default=200)
    p.add_argument("--ladder", action="append", help=f"GAME[:SEATS] (repeat; default {' '.join(LADDERS)})")
    p.add_argument("--max-matches", type=int, default=2)
    p.add_argument("--move-time", type=float, default=2.0)
    p.add_argument("--sample", type=float, default=5.0, help="seconds between two RSS samples")
    p.add_argument("--drain", type=float, default=10.0)
    p.add_argument("--verbose", action="store_true", help="print the end of serve's log")
    p.add_argument("--rate", type=float, default=RATE,
                   help=f"matches a minute a day's ledger growth is figured at (default {RATE:g})")
    args = p.parse_args()
    if not 0 < args.rate < float("inf"):
        p.error("--rate: matches a minute, above 0")
    ladders = args.ladder or list(LADDERS)
    logging.basicConfig(level=logging.ERROR)  # the SDK's reconnect warnings at the SIGTERM are expected
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "arena.db"
        ledger = Ledger(str(db))
        tokens = {name: ledger.add_bot(name, owner="bench")[1] for name in bot_names(args.bots)}
        ledger.reclaim()  # the WAL checkpointed: the file as the matches find it
        base = ledger.storage_bytes()
        ledger.close()
        proc, address, lines = start_serve(db, ladders, args)
        try:
            stopped, samples, cpu = asyncio.run(load(address, tokens, proc, args))
        finally:
            if proc.poll() is None:
                proc.kill()
        if proc.returncode != 0 or args.verbose:
            print(f"serve exited with {proc.returncode}; its last lines:\n" + "\n".join(lines[-40:]))
        report(db, stopped, samples, cpu, args, ladders)
        retention(db, base, args)

if __name__ == "__main__":
    main()
