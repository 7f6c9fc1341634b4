"""A bare protocol client for the misbehaving bots: the stream, nothing else (no SDK help)."""
import asyncio
import os

import grpc

from cardarena.v1 import referee_pb2 as pb, referee_pb2_grpc


def hello() -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(client="fault-bot"))


def answer(d: pb.Decision, choice: int, decision_id: int | None = None, seat: int | None = None,
           match_id: str | None = None) -> pb.BotMessage:
    return pb.BotMessage(answer=pb.Answer(match_id=d.match_id if match_id is None else match_id,
                                          seat=d.seat if seat is None else seat,
                                          decision_id=d.decision_id if decision_id is None else decision_id,
                                          choice=choice))


async def session(handle, token: str | None = None) -> None:
    """Open a stream and call ``await handle(call, message)`` for every message received."""
    token = os.environ["CARDARENA_TOKEN"] if token is None else token
    async with grpc.aio.insecure_channel(os.environ["CARDARENA_ADDRESS"]) as ch:
        call = referee_pb2_grpc.RefereeStub(ch).Play(metadata=(("authorization", f"Bearer {token}"),))
        await call.write(hello())
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF:
                return
            await handle(call, msg)


def main(handle, token: str | None = None) -> None:
    asyncio.run(session(handle, token))


class Drop(Exception):
    """Raised by a handler to leave the stream at once (the bot then connects again)."""


def main_reconnecting(handle, pause: float) -> None:
    """Like :func:`main`, but a handler that raises :class:`Drop` leaves the stream, waits
    ``pause`` seconds and connects again (the referee sends the waiting decisions again)."""
    async def forever():
        while True:
            try:
                await session(handle)
                return
            except Drop:
                await asyncio.sleep(pause)

    asyncio.run(forever())
