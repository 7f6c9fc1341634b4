"""The referee waits for the decisions of a step together (one wake-up, one timer). A seat's
answer that comes after its own deadline, while the step still waits for another seat whose
deadline is later (its bank is fuller), is ignored with a notice: the seat's one fault is the
``late`` one already counted, never a second ``unknown-decision`` (referee.py, "Faults").

The referee's deadlines are its event loop's clock (``loop.time()``); here that clock is
looptime's, which moves only by the timers and sleeps of the loop, so the 60-80 ms between the
bots' answers and their deadlines hold on a machine of any load, and the test takes no real
time to wait."""
from __future__ import annotations

import asyncio

import looptime

from cardarena.server.match import Match
from cardarena.server.referee import Link, Referee, TimeControl
from cardarena.v1 import referee_pb2 as pb

MOVE, BANK = 0.3, 1.0


def _seed_with_two_choose_steps() -> int:
    """A 2-seat Sixth Card deal where, both seats playing their lowest card, both act again."""
    for seed in range(200):
        m = Match("sixth-card", 2, seed, {"rounds": 1})
        m.step({0: 0, 1: 0})
        if m.to_act() == (0, 1):
            return seed
    raise AssertionError("no such seed")


async def _scenario(seed: int):
    referee = Referee(time_control=TimeControl(move_seconds=MOVE, bank_seconds=BANK, max_faults=0))
    a, b = Link("a"), Link("b")
    referee.attach(a)
    referee.attach(b)
    notices: list[pb.Notice] = []

    async def bot(link: Link, delays: list[float]):
        n = 0
        while (msg := await link.get()) is not None:
            if isinstance(msg, bytes):
                msg = pb.RefereeMessage.FromString(msg)
            kind = msg.WhichOneof("kind")
            if kind == "notice":
                notices.append(msg.notice)
            if kind != "decision":
                continue
            d = msg.decision
            delay = delays[n] if n < len(delays) else 0.0
            n += 1
            await asyncio.sleep(delay)
            referee.on_answer(link, pb.Answer(match_id=d.match_id, seat=d.seat, decision_id=d.decision_id, choice=0))

    # step 1: seat 0 (a) takes 0.5 s, 0.2 s of its bank; seat 1 (b) answers at once.
    # step 2: a's deadline is 0.3 + 0.8 s, b's 0.3 + 1.0 s; a answers at 1.18 s (late), while
    # the step still waits for b, who answers at 1.24 s (in time).
    tasks = [asyncio.create_task(bot(a, [0.5, 1.18])), asyncio.create_task(bot(b, [0.0, 1.24]))]
    play = asyncio.create_task(referee.play("sixth-card", ["a", "b"], seed, {"rounds": 1}, "m1"))
    try:
        out = await asyncio.wait_for(play, 60)
    finally:
        a.close()
        b.close()
        await asyncio.gather(*tasks, return_exceptions=True)
    return out, notices


def on_loop_time(coro):
    """Run ``coro`` on an event loop whose clock moves only with its own timers (looptime)."""
    loop = looptime.patch_event_loop(asyncio.new_event_loop(), start=0)
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def test_an_answer_after_its_deadline_while_the_step_waits_is_one_late_fault():
    out, notices = on_loop_time(_scenario(_seed_with_two_choose_steps()))
    late = [f for f in out.fault_log if f.kind == "late"]
    assert [(f.seat, f.step) for f in late] == [(0, 1)], out.fault_log
    assert out.faults == [1, 0], "seat 0 has the late fault only; seat 1 none"
    assert any(n.kind == pb.Notice.UNKNOWN_DECISION and "after the decision's deadline" in n.message
               for n in notices), [n.message for n in notices]
