"""Connects with a token the referee never issued."""
import grpc

from rawbot import main


async def handle(call, msg):
    pass


try:
    main(handle, token="not-a-real-token-" + "x" * 30)
except grpc.aio.AioRpcError as e:
    raise SystemExit(f"refused: {e.code().name}")
