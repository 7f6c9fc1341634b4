#!/usr/bin/env python3
"""Referee throughput against the raw transport, measured in one run on this machine.

1. Raw grpc.aio: a bidirectional echo stream, 4 client processes each doing ping-pong round
   trips (a 600-byte message down, a 20-byte answer up, like a decision and its answer).
2. The referee: a Sixth Card league of 4 random bot processes (the Python SDK), 4 matches at
   once, every match recorded in a SQLite ledger; decisions per second from the first match to
   the last.

Prints both rates and their ratio (machine noise cancels in the ratio).
Usage: python bench/referee.py [--seconds S] [--matches N]
"""
from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
METHOD = "/bench.Echo/Ping"


def _identity(b):
    return b


async def _echo(request_iterator, context):
    async for msg in request_iterator:
        yield msg[:20]


async def _serve_echo(ready, stop, port_value):
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Ping": grpc.stream_stream_rpc_method_handler(_echo, request_deserializer=_identity, response_serializer=_identity)})
    server.add_generic_rpc_handlers((handler,))
    port_value.value = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.05)
    await server.stop(0)


def _echo_server(ready, stop, port_value):
    asyncio.run(_serve_echo(ready, stop, port_value))


async def _ping(port: int, seconds: float, counter) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        call = ch.stream_stream(METHOD, request_serializer=_identity, response_deserializer=_identity)()
        payload = b"x" * int(__import__("os").environ.get("PAYLOAD", "600"))
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


def raw_pingpong(seconds: float, clients: int = 4) -> float:
    ctx = mp.get_context("spawn")
    ready, stop, go = ctx.Event(), ctx.Event(), ctx.Event()
    port = ctx.Value("i", 0)
    counter = ctx.Value("q", 0)
    server = ctx.Process(target=_echo_server, args=(ready, stop, port))
    server.start()
    ready.wait(30)
    procs = [ctx.Process(target=_ping_client, args=(port.value, seconds, counter, go)) for _ in range(clients)]
    for p in procs:
        p.start()
    time.sleep(1.0)  # let every client import grpc
    go.set()
    for p in procs:
        p.join()
    stop.set()
    server.join()
    return counter.value / seconds


async def _league(matches: int) -> tuple[float, int, float]:
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
    running = [procs.start_bot(b, f"python {ROOT / 'examples' / 'python' / 'random_bot.py'}", hosted.address,
                               referee.mint_session_token(b), tmp / "logs") for b in bots]
    try:
        missing = await referee.wait_for_bots(bots, 30)
        assert not missing, missing
        plans = [MatchPlan(0, i, derive_seed(1, i), bots[i % 4:] + bots[:i % 4]) for i in range(matches)]
        for b in bots:
            ledger.add_bot(b)
        league_id = ledger.create_league("sixth-card", {}, {"bench": True}, plans)
        t0 = time.perf_counter()
        await play_league(referee, ledger, league_id, "sixth-card", {}, TimeControl(move_seconds=5), 4)
        elapsed = time.perf_counter() - t0
    finally:
        for p in running:
            p.stop()
        await hosted.server.stop(0)
    decisions = sum(s.decisions for s in referee.stats.values())
    return decisions / elapsed, decisions, elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="length of the raw ping-pong run")
    ap.add_argument("--matches", type=int, default=40, help="matches in the referee league")
    args = ap.parse_args()
    raw = raw_pingpong(args.seconds)
    print(f"raw grpc.aio ping-pong, 4 client processes: {raw:,.0f} round trips/s")
    rate, decisions, elapsed = asyncio.run(_league(args.matches))
    print(f"referee, Sixth Card league of 4 random bot processes: {rate:,.0f} decisions/s "
          f"({decisions} decisions in {elapsed:.1f} s, {args.matches} matches recorded)")
    print(f"ratio referee / raw: {rate / raw:.0%}")


if __name__ == "__main__":
    main()
