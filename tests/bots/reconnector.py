"""Plays well, but drops its stream every few decisions and connects again 0.3 s later."""
import asyncio

from rawbot import answer, session


class Drop(Exception):
    pass


n = 0


async def handle(call, msg):
    global n
    if msg.WhichOneof("kind") == "decision":
        n += 1
        if n % 7 == 0:
            raise Drop  # leave without answering; the decision is re-sent after reconnecting
        await call.write(answer(msg.decision, 0))


async def forever():
    while True:
        try:
            await session(handle)
            return
        except Drop:
            await asyncio.sleep(0.3)


asyncio.run(forever())
