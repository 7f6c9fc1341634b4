"""Connects, says hello, and never reads a message again (its stream stays open)."""
import asyncio
import os

import grpc

from rawbot import hello
from cardarena.v1 import referee_pb2_grpc


async def main():
    # no BDP probing: its receive window stays at 64 KiB, so what it does not read backs up at the
    # referee at once instead of first filling a window grown to megabytes
    async with grpc.aio.insecure_channel(os.environ["CARDARENA_ADDRESS"], options=[("grpc.http2.bdp_probe", 0)]) as ch:
        call = referee_pb2_grpc.RefereeStub(ch).Play(
            metadata=(("authorization", f"Bearer {os.environ['CARDARENA_TOKEN']}"),))
        await call.write(hello())
        await asyncio.sleep(3600)


asyncio.run(main())
