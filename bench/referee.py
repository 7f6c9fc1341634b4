#!/usr/bin/env python3
"""Referee throughput against the raw transport, measured in one run on this machine.

1. Raw grpc.aio: a bidirectional stream, 4 client processes each doing ping-pong round trips
   with the sizes of a decision and its answer: a 20-byte message up, and down a reply as long
   as the referee's mean 4-seat Sixth Card decision (measured from a played match, ~1.2 kB).
   Then the same echo shaped like the referee's ``Play`` stream (server/service.py): a task of
   its own reads the stream and puts each reply in an outbox, which the handler drains as an
   async generator. Its CPU over plain raw's is what the referee's stream costs as a transport;
   the referee's CPU over the shaped echo's is its own work a decision.
2. The referee: a Sixth Card league of 4 random bot processes, ``--concurrency`` matches at
   once (4, the CLI's default), every match recorded in a SQLite ledger by the league's
   recorder process (its start-up, ~0.5 s, included); decisions per second from the start of
   the league to its last record. Played twice: with the C++ random bot
   (examples/cpp, built by ``make examples``; skipped if it is not built), where the referee is
   the busy process, and with the Python SDK's random bot, whose four processes need about as
   much CPU per decision as the referee itself, so that on a 2-core machine the league measures
   the bots as much as the referee.

Prints the rates, their ratios (machine noise cancels in a ratio), and the CPU each side spends
per round trip or decision (Linux), which says where the time goes; the referee's CPU a decision
over raw grpc.aio's CPU a round trip is the figure with a target (at most 1.5x). Each side's
CPU is also split: its event loop's thread, the rest being grpc's own threads (its poller and
event engine), which the referee's Python code does not run on.
Usage: python bench/referee.py [--seconds S] [--matches N] [--concurrency J]
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing as mp
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
METHOD = "/bench.Echo/Ping"


def _identity(b):
    return b


def decision_size() -> int:
    """The mean length in bytes of the decisions of a 4-seat Sixth Card match, as sent."""
    sys.path.insert(0, str(ROOT))
    import random

    from cardarena.server import wire
    from cardarena.server.match import Match

    match, rng, sizes, cache = Match("sixth-card", 4, 1, {}, "1"), random.Random(1), [], {}
    while not match.is_over():
        seats = match.to_act()
        shared = {} if len(seats) > 1 else None
        for d in match.decisions(seats):
            sizes.append(len(wire.decision_bytes(match.game, "1", d.seat, d.decision_id, d.view, d.actions,
                                                 d.events, 2.0, 0.0, cache, shared)))
        match.step({s: rng.randrange(len(match.game.legal_actions(s))) for s in seats})
    return round(sum(sizes) / len(sizes))


REPLY = b""


async def _echo(request_iterator, context):
    async for _ in request_iterator:
        yield REPLY


async def _echo_shaped(request_iterator, context):
    """The echo with the referee's stream's shape: a reading task, an outbox, a draining writer."""
    out: collections.deque = collections.deque()
    wake: list = [None]

    def put(item) -> None:
        out.append(item)
        future, wake[0] = wake[0], None
        if future is not None and not future.done():
            future.set_result(None)

    async def read() -> None:
        while await context.read() is not grpc.aio.EOF:
            put(REPLY)
        put(None)

    reader = asyncio.create_task(read())
    try:
        while True:
            while not out:
                wake[0] = asyncio.get_running_loop().create_future()
                await wake[0]
            item = out.popleft()
            if item is None:
                break
            yield item
    finally:
        reader.cancel()


async def _serve_echo(ready, stop, port_value, reply_size, shaped=False):
    global REPLY
    REPLY = b"x" * reply_size
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Ping": grpc.stream_stream_rpc_method_handler(_echo_shaped if shaped else _echo,
                                                      request_deserializer=_identity, response_serializer=_identity)})
    server.add_generic_rpc_handlers((handler,))
    port_value.value = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.05)
    await server.stop(0)


def _echo_server(ready, stop, port_value, reply_size, shaped=False):
    asyncio.run(_serve_echo(ready, stop, port_value, reply_size, shaped))


async def _ping(port: int, seconds: float, counter) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        call = ch.stream_stream(METHOD, request_serializer=_identity, response_deserializer=_identity)()
        payload = b"x" * 20  # an answer's size
        n = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            await call.write(payload)
            await call.read()
            n += 1
        await call.done_writing()
    with counter.get_lock():
        counter.value += n


def _ping_client(port, seconds, counter, go):
    go.wait()
    asyncio.run(_ping(port, seconds, counter))


def raw_pingpong(seconds: float, reply_size: int, clients: int = 4,
                 shaped: bool = False) -> tuple[float, float, float, float]:
    """Round trips per second, and the CPU per round trip (µs) of the server, of the clients,
    and of the server's event loop thread alone (the rest is grpc's threads); ``shaped``: the
    server's stream shaped like the referee's."""
    ctx = mp.get_context("spawn")
    ready, stop, go = ctx.Event(), ctx.Event(), ctx.Event()
    port = ctx.Value("i", 0)
    counter = ctx.Value("q", 0)
    server = ctx.Process(target=_echo_server, args=(ready, stop, port, reply_size, shaped))
    server.start()
    ready.wait(30)
    procs = [ctx.Process(target=_ping_client, args=(port.value, seconds, counter, go)) for _ in range(clients)]
    for p in procs:
        p.start()
    time.sleep(1.0)  # let every client import grpc
    go.set()
    cpu0 = _cpu_seconds(server.pid), sum(_cpu_seconds(p.pid) for p in procs), _cpu_seconds(server.pid, thread=True)
    time.sleep(seconds * 0.95)  # the clients are still at it
    cpu1 = _cpu_seconds(server.pid), sum(_cpu_seconds(p.pid) for p in procs), _cpu_seconds(server.pid, thread=True)
    for p in procs:
        p.join()
    stop.set()
    server.join()
    rate = counter.value / seconds
    per_trip = 1e6 / (rate * seconds * 0.95) if rate else 0.0
    return rate, (cpu1[0] - cpu0[0]) * per_trip, (cpu1[1] - cpu0[1]) * per_trip, (cpu1[2] - cpu0[2]) * per_trip


def _cpu_seconds(pid: int, thread: bool = False) -> float:
    """User + system CPU time of a process, or of its main thread alone (its event loop's)
    (Linux /proc; 0 elsewhere)."""
    try:
        path = f"/proc/{pid}/task/{pid}/stat" if thread else f"/proc/{pid}/stat"
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


@dataclass
class LeagueRun:
    rate: float
    decisions: int
    elapsed: float
    faults: int
    referee_us: float  # CPU of the referee process per decision (all its threads)
    bots_us: float     # CPU of the four bot processes together per decision
    loop_us: float     # of referee_us, its event loop's thread (the rest is grpc's threads)


async def _league(matches: int, concurrency: int, command: str) -> LeagueRun:
    sys.path.insert(0, str(ROOT))
    from cardarena.ratings import Ledger, MatchPlan
    from cardarena.server import procs
    from cardarena.server.league import derive_seed, play_league
    from cardarena.server.referee import Referee, TimeControl
    from cardarena.server.service import start_server

    tmp = Path(tempfile.mkdtemp())
    ledger = Ledger(str(tmp / "bench.db"))
    referee = Referee()
    hosted = await start_server(referee)
    bots = ["r0", "r1", "r2", "r3"]
    running = [procs.start_bot(b, command, hosted.address, referee.mint_session_token(b), tmp / "logs") for b in bots]
    try:
        missing = await referee.wait_for_bots(bots, 30)
        if missing:
            sys.exit(f"bench: the bots {missing} did not connect; their logs are in {tmp / 'logs'}")
        plans = [MatchPlan(0, i, derive_seed(1, i), bots[i % 4:] + bots[:i % 4]) for i in range(matches)]
        for b in bots:
            ledger.add_bot(b)
        league_id = ledger.create_league("sixth-card", {}, {"bench": True}, plans)
        me = os.getpid()
        cpu0 = _cpu_seconds(me), sum(_cpu_seconds(p.proc.pid) for p in running), _cpu_seconds(me, thread=True)
        t0 = time.perf_counter()
        await play_league(referee, ledger, league_id, "sixth-card", {}, TimeControl(move_seconds=5), concurrency)
        elapsed = time.perf_counter() - t0
        cpu1 = _cpu_seconds(me), sum(_cpu_seconds(p.proc.pid) for p in running), _cpu_seconds(me, thread=True)
    finally:
        for p in running:
            p.stop()
        await hosted.server.stop(0)
    finished = ledger.league(league_id).counts["finished"]
    if finished != matches:
        sys.exit(f"bench: only {finished} of {matches} matches finished")
    decisions = sum(s.decisions for s in referee.stats.values())
    faults = sum(s.faults for s in referee.stats.values())
    return LeagueRun(decisions / elapsed, decisions, elapsed, faults,
                     1e6 * (cpu1[0] - cpu0[0]) / decisions, 1e6 * (cpu1[1] - cpu0[1]) / decisions,
                     1e6 * (cpu1[2] - cpu0[2]) / decisions)


CPP_BOT = ROOT / "examples" / "cpp" / "build" / "random_bot"
PYTHON_BOT = f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="length of the raw ping-pong run")
    ap.add_argument("--matches", type=int, default=120, help="matches in each referee league")
    ap.add_argument("--concurrency", type=int, default=4, help="matches a league plays at once")
    args = ap.parse_args()
    size = decision_size()
    raw, server_us, clients_us, raw_loop_us = raw_pingpong(args.seconds, size)
    print(f"raw grpc.aio ping-pong, 4 client processes, 20 bytes up and {size:,} down: {raw:,.0f} round trips/s; "
          f"CPU per round trip: server {server_us:.0f} µs (its event loop's thread {raw_loop_us:.0f}), "
          f"the 4 clients {clients_us:.0f} µs")
    _, shaped_us, _, shaped_loop_us = raw_pingpong(args.seconds, size, shaped=True)
    print(f"the same, the server's stream shaped like the referee's (a reading task, an outbox): CPU per round "
          f"trip: server {shaped_us:.0f} µs (its event loop's thread {shaped_loop_us:.0f}), "
          f"{shaped_us / server_us:.2f}x raw" if server_us >= 1 else "")
    leagues = [("C++", str(CPP_BOT))] if CPP_BOT.exists() else []
    if not leagues:
        print(f"(no C++ random bot at {CPP_BOT.relative_to(ROOT)}: `make examples` builds it)")
    leagues.append(("Python SDK", PYTHON_BOT))
    for name, command in leagues:
        run = asyncio.run(_league(args.matches, args.concurrency, command))
        print(f"referee, Sixth Card league of 4 random bot processes ({name}), {args.concurrency} matches at once: "
              f"{run.rate:,.0f} decisions/s ({run.decisions} decisions in {run.elapsed:.1f} s, {args.matches} "
              f"matches recorded, {run.faults} faults); CPU per decision: referee {run.referee_us:.0f} µs "
              f"(its event loop's thread {run.loop_us:.0f}), the 4 bots {run.bots_us:.0f} µs")
        ratio = f"{run.referee_us / server_us:.2f}x" if server_us >= 1 else "not measured (the raw server's CPU read 0)"
        print(f"ratio referee / raw ({name} bots): {run.rate / raw:.0%} of the rate; CPU a decision / CPU a round "
              f"trip: {ratio} (target: at most 1.5x); beyond the shaped echo's round trip, the referee's own "
              f"work: {run.referee_us - shaped_us:.0f} µs a decision")


if __name__ == "__main__":
    main()
