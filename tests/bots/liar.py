"""Sends out-of-range choices, duplicate answers and answers to decisions that do not exist."""
from rawbot import answer, main

n = 0


async def handle(call, msg):
    global n
    if msg.WhichOneof("kind") != "decision":
        return
    d = msg.decision
    n += 1
    if n % 3 == 1:
        await call.write(answer(d, len(d.actions) + 5))          # out of range
    elif n % 3 == 2:
        await call.write(answer(d, 0))
        await call.write(answer(d, 0))                           # a duplicate
    else:
        await call.write(answer(d, 0, decision_id=d.decision_id + 10_000))  # not a decision of this seat
        await call.write(answer(d, 0, seat=(d.seat + 1) % 3))    # another seat's
        await call.write(answer(d, 0))


main(handle)
