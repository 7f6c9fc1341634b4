"""The referee killed mid-league, and a bounded fuzz of the bot stream and the admin service."""
from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cardarena.ratings import Ledger
from cardarena.server import procs
from cardarena.server.league import LeagueSpec, run_league
from cardarena.server.referee import Referee
from cardarena.server.service import start_server
from cardarena.v1 import admin_pb2, referee_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "examples" / "python" / "random_bot.py"


def test_sigkill_during_a_league_leaves_no_half_written_match(tmp_path, ledger_url):
    db = ledger_url()
    tag = f"--tag={uuid.uuid4().hex}"  # marks this test's bot processes, to clean them up
    bots = [a for i in range(4) for a in ("--bot", f"k{i}=python {RANDOM_BOT} {tag}")]
    cli = subprocess.Popen([sys.executable, "-m", "cardarena.server.cli", "league", "run", "--game", "sixth-card",
                            *bots, "--seats", "3", "--rounds", "3", "-j", "3", "--db", db,
                            "--log-dir", str(tmp_path / "logs")],
                           cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        finished = 0
        while time.monotonic() < deadline and finished < 3:
            time.sleep(0.2)
            try:  # the CLI may not have made the ledger yet
                led = Ledger(db)
                finished = sum(1 for m in led.matches(limit=None) if m.status == "finished")
                led.close()
            except Exception:
                pass
        assert finished >= 3, "the league got going"
        os.killpg(cli.pid, signal.SIGKILL)
        cli.wait()
    finally:
        subprocess.run(["pkill", "-9", "-f", tag])
    led = Ledger(db)
    matches = led.matches(limit=None)
    assert len(matches) == 36, "the whole schedule was written before play"
    statuses = {m.status for m in matches}
    assert statuses <= {"finished", "running", "scheduled"}
    assert "finished" in statuses and statuses != {"finished"}
    for m in matches:
        d = led.match(m.id)
        if d.status == "finished":
            assert all(p is not None for p in d.places) and d.events and d.steps
        else:
            assert all(p is None for p in d.places) and not d.events, f"match {m.id} is half-written"
    assert led.check() == []
    rated = {r.bot: r.matches for r in led.ratings("sixth-card")}
    per_bot = {f"k{i}": sum(1 for m in matches if m.status == "finished" and f"k{i}" in m.bots) for i in range(4)}
    assert rated == {b: n for b, n in per_bot.items() if n}, "ratings count exactly the finished matches"


def random_message(rng: random.Random, match_ids: list[str]) -> pb.BotMessage:
    kind = rng.choice(["answer", "answer", "hello", "empty"])
    if kind == "hello":
        return pb.BotMessage(hello=pb.Hello(client="".join(rng.choice("ab\x00é") for _ in range(rng.randrange(50))),
                                            games=[rng.choice(["sixth-card", "x" * rng.randrange(300)])]))
    if kind == "empty":
        return pb.BotMessage()
    return pb.BotMessage(answer=pb.Answer(
        match_id=rng.choice(match_ids + ["", "nope", "9" * 40]), seat=rng.randrange(-5, 12),
        decision_id=rng.randrange(0, 2 ** 63), choice=rng.randrange(-2 ** 31, 2 ** 31)))


def test_fuzzing_the_bot_stream_and_the_admin_service_harms_no_match(tmp_path, ledger_url):
    rng = random.Random(20261129)
    ledger = Ledger(ledger_url())
    good = ["g1", "g2", "g3"]
    for b in good:
        ledger.add_bot(b)

    async def main():
        referee = Referee(lambda t: None)
        hosted = await start_server(referee, ledger=ledger, admin_token="fuzz-admin")
        address = hosted.address
        running = [procs.start_bot(b, f"python {RANDOM_BOT}", address, referee.mint_session_token(b), tmp_path / "logs")
                   for b in good]
        fuzz_token = referee.mint_session_token("fuzzer")
        spec = LeagueSpec(game="sixth-card", bots=good, seats=3, rounds=4, seed=8, concurrency=2,
                          move_seconds=5, options={}, start_timeout=20)
        league = asyncio.create_task(run_league(referee, ledger, spec))
        health_checks = 0
        busy_checks = 0  # health checks answered while matches were being played
        ident = lambda b: b  # noqa: E731
        try:
            async with grpc.aio.insecure_channel(address) as ch:
                health = health_pb2_grpc.HealthStub(ch)
                play_raw = ch.stream_stream("/cardarena.v1.Referee/Play", request_serializer=ident,
                                            response_deserializer=ident)
                admin_methods = ["AddBot", "ListBots", "Ratings", "ListMatches", "GetMatch"]
                for case in itertools.count():  # 240 cases at least, and on until the league ends
                    if (case >= 240 and league.done()) or case >= 5000:
                        break
                    token = rng.choice([fuzz_token, fuzz_token, "", "wrong"])
                    md = (("authorization", f"Bearer {token}"),)
                    what = case % 4
                    try:
                        if what == 0:  # random bytes on the bot stream
                            call = play_raw(metadata=md)
                            await call.write(rng.randbytes(rng.randrange(1, 400)))
                            await asyncio.wait_for(call.read(), 2)
                            call.cancel()
                        elif what == 1:  # random well-formed messages on the bot stream
                            call = ch.stream_stream("/cardarena.v1.Referee/Play",
                                                    request_serializer=pb.BotMessage.SerializeToString,
                                                    response_deserializer=pb.RefereeMessage.FromString)(metadata=md)
                            for _ in range(rng.randrange(1, 30)):
                                await call.write(random_message(rng, list(referee.runs)))
                            await asyncio.wait_for(call.read(), 2)
                            call.cancel()
                        elif what == 2:  # random bytes to an admin method
                            method = rng.choice(admin_methods + ["RunLeague"])
                            admin_md = (("authorization", "Bearer " + rng.choice(["fuzz-admin", "bad"])),)
                            if method == "RunLeague":
                                fn = ch.unary_stream(f"/cardarena.v1.Admin/{method}", request_serializer=ident,
                                                     response_deserializer=ident)
                                call = fn(rng.randbytes(rng.randrange(0, 200)), metadata=(("authorization", "Bearer bad"),))
                                async for _ in call:
                                    pass
                            else:
                                fn = ch.unary_unary(f"/cardarena.v1.Admin/{method}", request_serializer=ident,
                                                    response_deserializer=ident)
                                await asyncio.wait_for(fn(rng.randbytes(rng.randrange(0, 200)), metadata=admin_md), 5)
                        else:  # random well-formed admin requests with the right token
                            admin_md = (("authorization", "Bearer fuzz-admin"),)
                            from cardarena.v1 import admin_pb2_grpc
                            stub = admin_pb2_grpc.AdminStub(ch)
                            choice = rng.randrange(4)
                            if choice == 0:
                                await stub.GetMatch(admin_pb2.GetMatchRequest(match_id=rng.choice(["1", "x", "-3", "99999"])), metadata=admin_md)
                            elif choice == 1:
                                await stub.ListMatches(admin_pb2.ListMatchesRequest(league_id=rng.choice(["", "1", "zz"]), limit=rng.randrange(-5, 500)), metadata=admin_md)
                            elif choice == 2:
                                await stub.Ratings(admin_pb2.RatingsRequest(game=rng.choice(["", "sixth-card", "\x00"])), metadata=admin_md)
                            else:
                                await stub.AddBot(admin_pb2.AddBotRequest(name=rng.choice(["", " ", "fz" + str(case), "a" * 300, "g1"])), metadata=admin_md)
                    except (grpc.aio.AioRpcError, asyncio.TimeoutError, asyncio.InvalidStateError):
                        pass  # the server refused or closed the call: as it should
                    if case % 20 == 0:
                        reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
                        assert reply.status == health_pb2.HealthCheckResponse.SERVING
                        health_checks += 1
                        busy_checks += referee.active_matches > 0
            return await asyncio.wait_for(league, 180), health_checks, busy_checks
        finally:
            for p in running:
                p.stop()
            await hosted.server.stop(0)

    league_id, health_checks, busy_checks = asyncio.run(main())
    assert health_checks >= 12 and busy_checks >= 6, "the fuzz ran while matches were played"
    matches = [ledger.match(m.id) for m in ledger.league_matches(league_id)]
    assert len(matches) == 12 and all(m.status == "finished" for m in matches)
    faults = [(m.id, f) for m in matches for f in (m.result_details or {}).get("faults", [])]
    assert all(f == 0 for m in matches for f in m.faults), f"the fuzz never touched a good bot's match: {faults}"
    assert ledger.check() == []
