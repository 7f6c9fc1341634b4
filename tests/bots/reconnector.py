"""Plays well, but drops its stream every few decisions and connects again 0.3 s later."""
from rawbot import Drop, answer, main_reconnecting

n = 0


async def handle(call, msg):
    global n
    if msg.WhichOneof("kind") == "decision":
        n += 1
        if n % 7 == 0:
            raise Drop  # leave without answering; the decision is re-sent after reconnecting
        await call.write(answer(msg.decision, 0))


main_reconnecting(handle, 0.3)
