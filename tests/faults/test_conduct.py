"""The referee's connection policy against hostile and unlucky bots: real referee on
a real port, real bot processes, a real SQLite ledger, the league runner, and a real TCP proxy
for network cuts. Each test would fail (or hang until its time-out) under the old policy.

* a staller (drops its stream on every decision, comes back just inside the grace) forfeits
  once its time away in a match, summed, reaches the grace: it cannot stall a match;
* an honest SDK bot late once per match keeps its seat past the flood limit (late answers are
  one ``late`` fault each and never count as a flood);
* the SDK random bot behind a proxy that cuts its connection several times mid-match gets no
  fault (only decisions still waiting for it are sent again);
* a bot that stops reading is cut off (bounded outbox) and its seats forfeit;
* a second stream with the same token replaces the first; the SDK says so and exits non-zero.
"""
from __future__ import annotations

import asyncio
import logging

import pytest

from conductkit import RANDOM, assert_unaffected, bot_script, league, own_log

import cardarena.server.referee as referee_module
from cardarena.server import procs
from cardarena.server.referee import FLOOD_BURST, FLOOD_RATE, Referee, TimeControl
from cardarena.server.service import start_server
from cardarena.v1 import referee_pb2 as pb

pytestmark = pytest.mark.any_ledger  # the subject is the referee's conduct: the SQLite pass only


def test_a_staller_forfeits_once_its_time_away_in_a_match_reaches_the_grace(tmp_path, ledger_url, caplog):
    """Old policy: each disconnect started a fresh grace, so the staller's matches never ended."""
    caplog.set_level(logging.INFO, logger="cardarena")
    grace = 1.0
    bots = {f"good-{i}": RANDOM for i in (1, 2, 3)} | {"staller": bot_script("staller.py")}
    played = league(tmp_path, bots, db=ledger_url(), seats=3, move=1.0, grace=grace, env={"CARDARENA_STALL": "0.9"})
    assert_unaffected(played, "staller")
    seats = played.seats_of("staller")
    assert len(seats) == 9
    for m, seat in seats:
        assert m.forfeited[seat]
        why = [f["detail"] for f in m.result_details["faults"] if f["seat"] == seat and f["kind"] == "forfeit"]
        assert len(why) == 1 and why[0].startswith("away for"), why
        away = float(why[0].split()[2])
        # never before the grace; after it by the referee's timer lag, bounded with 10x the
        # margin a quiet machine needs (0.25 s): a loaded one may fire the timer late
        assert grace - 0.05 <= away <= grace + 2.5, f"time away, summed over disconnects: {away} s"
        assert m.faults[seat] == 0, "a bot that is away is held, never timed out"
    assert caplog.text.count("bot staller connected") >= 3, "it did drop and come back"


def test_a_quick_staller_forfeits_at_the_reconnect_cap(tmp_path, ledger_url):
    """The other half of the bound (docs/time-control.md: grace + max_reconnects × (move + bank)): a staller
    that comes back at once never spends its grace, so the reconnect cap ends it: its seat
    forfeits after max_reconnects + 1 new streams while a decision of the match waited."""
    cap = 3
    bots = {f"good-{i}": RANDOM for i in (1, 2, 3)} | {"staller": bot_script("staller.py")}
    played = league(tmp_path, bots, db=ledger_url(), seats=3, move=1.0, grace=10.0, max_reconnects=cap,
                    env={"CARDARENA_STALL": "0.05"})
    assert_unaffected(played, "staller")
    for m, seat in played.seats_of("staller"):
        why = [f["detail"] for f in m.result_details["faults"] if f["seat"] == seat and f["kind"] == "forfeit"]
        assert why == [f"{cap + 1} new streams while a decision of this match waited for it (at most {cap})"], why


def test_an_sdk_bot_late_once_per_match_keeps_its_seat_past_the_flood_limit(tmp_path, ledger_url, monkeypatch):
    """Old policy: every late answer also counted as one of the unusable messages a stream may
    send (FLOOD_BURST, 200, refilled at FLOOD_RATE), so the stream was closed after about 200
    matches and every later seat forfeited. Here the limit is 5 and does not refill: 16 matches,
    each with one late answer, pass it three times over (bench/conduct.py plays 300 at the real
    limit)."""
    monkeypatch.setattr(referee_module, "FLOOD_BURST", 5)
    monkeypatch.setattr(referee_module, "FLOOD_RATE", 1e-9)
    n = 16
    bots = {"late": bot_script("late_once.py"), "random": RANDOM}
    played = league(tmp_path, bots, db=ledger_url(), seats=2, move=1.0, matches=n, concurrency=8, timeout=240)
    assert_unaffected(played, "late")
    seats = played.seats_of("late")
    assert len(seats) == n
    for m, seat in seats:
        assert not m.forfeited[seat], f"match {m.id}: the late-once bot keeps its seat"
        assert [f["kind"] for f in m.result_details["faults"] if f["seat"] == seat] == ["late"]
    assert played.alive["late"], "its stream was never cut: the SDK is still playing"


def test_the_sdk_bot_behind_a_connection_cut_mid_match_gets_no_fault(tmp_path, ledger_url, caplog):
    """Old policy: on reconnect the referee sent again the decisions the bot had answered (that
    waited for slower seats of the same sealed step), and answering them was a fault."""
    caplog.set_level(logging.INFO, logger="cardarena")
    cuts = 4

    async def cutter(referee, proxy):
        while not referee.runs:
            await asyncio.sleep(0.02)
        for _ in range(cuts):  # while its answers wait for the slow seats of the same sealed step
            await asyncio.sleep(0.6)
            proxy.cut()

    bots = {"blip": RANDOM, "slow-1": bot_script("slow_bot.py"), "slow-2": bot_script("slow_bot.py")}
    played = league(tmp_path, bots, db=ledger_url(), seats=3, move=1.0, grace=3.0, via_proxy=("blip",), during=cutter,
                    env={"CARDARENA_THINK": "0.4"})
    assert played.proxy.cuts >= cuts and played.proxy.connections >= cuts + 1, "the bot was cut and came back"
    assert_unaffected(played, "blip")
    for m, seat in played.seats_of("blip"):
        assert m.faults[seat] == 0 and not m.forfeited[seat], m.result_details["faults"]


def test_a_bot_that_stops_reading_is_cut_off_and_forfeits(tmp_path, ledger_url, caplog):
    """Old policy: a link's outbox had no bound, so a bot that never reads grew the referee's
    memory by every message of every match it was seated in (bench/conduct.py has the figure)."""
    caplog.set_level(logging.INFO, logger="cardarena")
    referee = Referee(outbox=(20, 256 * 1024))
    bots = {f"good-{i}": RANDOM for i in (1, 2, 3)} | {"deaf": bot_script("non_reader.py")}
    played = league(tmp_path, bots, db=ledger_url(), seats=3, move=1.0, grace=0.5, referee=referee, matches=24,
                    options={"rounds": 2})
    assert_unaffected(played, "deaf")
    assert "bot deaf" in caplog.text and "does not read its stream" in caplog.text
    assert all(m.forfeited[s] for m, s in played.seats_of("deaf"))
    assert "deaf" not in referee.links, "treated as disconnected"
    assert "Traceback" not in own_log(caplog.records), "no stream ends with a traceback, the cut one included"


def test_a_second_stream_of_a_bot_replaces_the_first_and_the_sdk_exits_non_zero(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="cardarena")

    async def main():
        referee = Referee()
        hosted = await start_server(referee)
        token = referee.mint_session_token("twin")
        first = second = None
        try:
            first = procs.start_bot("twin", RANDOM, hosted.address, token, tmp_path / "a")
            assert not await referee.wait_for_bots(["twin"], 20)
            first_peer = referee.links["twin"].peer
            second = procs.start_bot("twin", RANDOM, hosted.address, token, tmp_path / "b")
            for _ in range(400):
                if first.returncode is not None:
                    break
                await asyncio.sleep(0.05)
            assert first.returncode not in (None, 0), "the replaced SDK bot exits non-zero"
            assert referee.is_connected("twin") and referee.links["twin"].peer != first_peer
            out = await referee.play("sixth-card", ["twin", "twin"], 1, {"rounds": 1}, "m", TimeControl(move_seconds=2))
            assert out.faults == [0, 0], "the new stream plays"
            return first_peer, referee.links["twin"].peer, first.log_path.read_text()
        finally:
            for p in (first, second):
                if p is not None:
                    p.stop()
            await hosted.server.stop(0)

    old_peer, new_peer, first_log = asyncio.run(main())
    assert "a new connection of this bot" in first_log and "replaces this one" in first_log
    assert "Traceback" not in first_log
    assert f"a new stream from {new_peer} replaces its stream from {old_peer}" in caplog.text


def test_undecodable_messages_are_malformed_at_a_rate_and_logged_in_few_lines(tmp_path, caplog, monkeypatch):
    """Bytes that are no BotMessage used to end in grpc's own traceback per message (a 40 s flood
    wrote 17 MB of log). Now each is a malformed message: a flood of them closes the stream with
    RESOURCE_EXHAUSTED after the burst, and the log says so in a few rate-limited lines.

    The bucket does not refill here (rate 0): at FLOOD_RATE a loaded machine that takes more than
    0.1 s to read the 201 messages lets one more through, and a write after the close would fail
    locally as INTERNAL. The refill is the next test's."""
    import grpc
    monkeypatch.setattr(referee_module, "FLOOD_RATE", 0.0)

    caplog.set_level(logging.INFO, logger="cardarena")
    caplog.set_level(logging.INFO, logger="grpc")

    code, details = _flood([b"\xff\xff\xff\xff not a protobuf message"] * (FLOOD_BURST + 1))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "unusable messages" in details
    log = own_log(caplog.records)
    assert "Traceback" not in log and "deserializ" not in log.lower()
    lines = [r for r in caplog.records if "does not decode as a BotMessage" in r.getMessage()]
    assert 1 <= len(lines) <= 10, f"{len(lines)} log lines for {FLOOD_BURST + 1} undecodable messages"


def _flood(messages: list[bytes], before=None):
    """Send ``messages`` on one Play stream of a bot "junk" to a real referee (given first to
    ``before``), reading what comes back until it ends; (its status code, its details)."""
    import grpc

    async def main():
        referee = Referee()
        if before is not None:
            before(referee)
        hosted = await start_server(referee)
        token = referee.mint_session_token("junk")
        try:
            async with grpc.aio.insecure_channel(hosted.address) as ch:
                call = ch.stream_stream("/cardarena.v1.Referee/Play", request_serializer=lambda b: b,
                                        response_deserializer=lambda b: b)(
                    metadata=(("authorization", f"Bearer {token}"),))

                async def flood():
                    # the referee closes the stream on the last one (no write after that, which
                    # grpc would fail locally as INTERNAL)
                    try:
                        for message in messages:
                            await call.write(message)
                        await call.done_writing()
                    except grpc.aio.AioRpcError:
                        pass
                writer = asyncio.create_task(flood())
                try:
                    async for _ in call:
                        pass
                except grpc.aio.AioRpcError as e:
                    return e.code(), e.details()
                finally:
                    await writer
                return await call.code(), await call.details()
        finally:
            await hosted.stop(0)

    return asyncio.run(main())


def test_a_hello_again_on_a_connection_is_ignored_and_a_flood_of_them_closes_it(monkeypatch):
    """A connection's first message is its hello; each later one is told about and counted as an
    unusable message (it costs the referee a parse: 3.9 MB hellos were once taken without end)."""
    import grpc
    monkeypatch.setattr(referee_module, "FLOOD_RATE", 0.0)
    hello = pb.BotMessage(hello=pb.Hello(client="junk", games=["sixth-card"] * 1000)).SerializeToString()
    code, details = _flood([hello] * (FLOOD_BURST + 2))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "unusable messages" in details



def test_late_answers_to_an_ended_match_are_free_only_for_decisions_it_made(monkeypatch):
    """The first late answer to each decision of an ended match is told about and not counted;
    one to a decision id past the match's last is invented, and counted (uncounted, a million of
    them kept a stream open at 14,000 a second, each id remembered)."""
    import grpc
    monkeypatch.setattr(referee_module, "FLOOD_RATE", 0.0)

    def ended(referee):  # as Referee.play leaves a finished match of 400 decisions, "junk" in seat 0
        referee._ended["7"] = (["junk", "other"], set(), 2 * FLOOD_BURST)

    def answers(ids):
        return [pb.BotMessage(answer=pb.Answer(match_id="7", seat=0, decision_id=i)).SerializeToString() for i in ids]

    hello = pb.BotMessage(hello=pb.Hello(client="junk")).SerializeToString()
    code, _ = _flood([hello, *answers(range(1, 2 * FLOOD_BURST + 1))], before=ended)  # twice the burst: none counted
    assert code == grpc.StatusCode.OK
    code, details = _flood([hello, *answers(range(10**12, 10**12 + FLOOD_BURST + 1))], before=ended)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "unusable messages" in details


def test_the_flood_bucket_forgives_a_burst_and_then_refills_at_its_rate(monkeypatch):
    """The flood rule (referee module docstring): ``FLOOD_BURST`` unusable messages at once, then
    ``FLOOD_RATE`` a second, never a lifetime total."""
    from types import SimpleNamespace

    from cardarena.server import referee as referee_module
    now = [100.0]
    monkeypatch.setattr(referee_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    bucket = referee_module._Bucket(FLOOD_RATE, FLOOD_BURST)
    assert all(bucket.take() for _ in range(FLOOD_BURST)) and not bucket.take()
    now[0] += 0.6 / FLOOD_RATE
    assert not bucket.take(), "part of a token is not a message"
    now[0] += 0.6 / FLOOD_RATE
    assert bucket.take() and not bucket.take(), "one token a 1/FLOOD_RATE s"
    now[0] += 3600
    assert sum(bucket.take() for _ in range(2 * FLOOD_BURST)) == FLOOD_BURST, "refilled to the burst, no more"
