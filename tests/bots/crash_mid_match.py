"""Plays five decisions well, then dies without a word (os._exit)."""
import os

from rawbot import answer, main

seen = 0


async def handle(call, msg):
    global seen
    if msg.WhichOneof("kind") == "decision":
        seen += 1
        if seen > 5:
            os._exit(1)
        await call.write(answer(msg.decision, 0))


main(handle)
