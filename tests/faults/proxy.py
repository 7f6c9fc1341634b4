"""A real TCP proxy for the conduct tests: bots connect through it to the referee, and
:meth:`Proxy.cut` drops every connection at once (a network blip, seen by both ends)."""
from __future__ import annotations

import asyncio


class Proxy:
    def __init__(self, target_port: int):
        self.target_port = target_port
        self.server: asyncio.base_events.Server | None = None
        self.pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self.connections = 0
        self.cuts = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def start(self) -> "Proxy":
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.connections += 1
        pair = (writer, up_writer)
        self.pairs.add(pair)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self.pairs.discard(pair)

    def cut(self, count: bool = True) -> None:
        """Drop every open connection (both sides see it closed)."""
        self.cuts += count
        for down, up in list(self.pairs):
            for w in (down, up):
                w.transport.abort()

    async def close(self) -> None:
        self.cut(count=False)
        self.server.close()
        await self.server.wait_closed()
