"""Answers each decision after a flood of junk answers naming no seat it holds."""
from rawbot import answer, main


async def handle(call, msg):
    if msg.WhichOneof("kind") == "decision":
        d = msg.decision
        for i in range(300):
            await call.write(answer(d, 0, match_id="junk", decision_id=i))
        await call.write(answer(d, 0))


main(handle)
