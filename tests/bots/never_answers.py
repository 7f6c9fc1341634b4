"""Connects, reads every decision, answers none."""
from rawbot import main


async def handle(call, msg):
    pass


main(handle)
