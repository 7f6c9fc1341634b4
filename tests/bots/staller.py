"""Never answers: on every decision it drops its stream, stays away just under the grace
(CARDARENA_STALL seconds, default 0.9) and connects again, to have the decision sent again."""
import os

from rawbot import Drop, main_reconnecting


async def handle(call, msg):
    if msg.WhichOneof("kind") == "decision":
        raise Drop


main_reconnecting(handle, float(os.environ.get("CARDARENA_STALL", "0.9")))
