"""Never answers: on every decision it drops its stream, stays away just under the grace
(CARDARENA_STALL seconds, default 0.9) and connects again, to have the decision sent again."""
import asyncio
import os

from rawbot import session

STALL = float(os.environ.get("CARDARENA_STALL", "0.9"))


class Drop(Exception):
    pass


async def handle(call, msg):
    if msg.WhichOneof("kind") == "decision":
        raise Drop


async def forever():
    while True:
        try:
            await session(handle)
            return
        except Drop:
            await asyncio.sleep(STALL)


asyncio.run(forever())
