"""An honest SDK bot that thinks CARDARENA_THINK seconds (default 0.1) before every answer."""
import asyncio
import os
import random

from cardarena.client import run

THINK = float(os.environ.get("CARDARENA_THINK", "0.1"))


async def bot(decision):
    await asyncio.sleep(THINK)
    return random.randrange(len(decision))


run(bot)
