"""An honest SDK bot that is late once per match: its first decision of every match is answered
just after the deadline, every other one at once (random)."""
import asyncio
import random

from cardarena.client import run

seen: set[str] = set()


async def bot(decision):
    if decision.match_id not in seen:
        seen.add(decision.match_id)
        await asyncio.sleep(decision.time_left + 0.05)
    return random.randrange(len(decision))


run(bot)
