"""Answers every decision correctly, but just after its deadline."""
import asyncio

from rawbot import answer, main


async def handle(call, msg):
    if msg.WhichOneof("kind") == "decision":
        d = msg.decision
        async def later():
            await asyncio.sleep(d.time_left + 0.1)
            await call.write(answer(d, 0))
        asyncio.get_running_loop().create_task(later())


main(handle)
