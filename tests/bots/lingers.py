"""Plays (always the first action), and stays running after the referee ends its stream."""
import time

from rawbot import answer, main


async def handle(call, msg):
    if msg.WhichOneof("kind") == "decision":
        await call.write(answer(msg.decision, 0))


main(handle)
time.sleep(300)
