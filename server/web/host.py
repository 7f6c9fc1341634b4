"""The web served inside another command's event loop: ``serve`` (beside the gRPC referee) and
``league run --web-address`` / ``demo --web`` (beside the league's own referee).

One event loop for both means the pages see the live referee (``app.state.referee``: the
matches running now, watchable as a spectator) without a second process or any locking: the
live routes read it on the loop. uvicorn runs as a task of that loop; its own signal handling is
turned off (:class:`_Embedded`), so the host's handlers (Ctrl-C, SIGTERM) stay in charge and stop
both. Ledger reads are blocking and run in FastAPI's thread pool, never on the loop, so a slow
page never delays a decision.

:func:`bind` opens the socket before anything else starts, so that an address in use is one line
(``cannot listen on …``) before any bot is started or any match is played.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # socket is imported where a socket is made: the CLI loads this module on every start
    import socket

DEFAULT_ADDRESS = "127.0.0.1:8080"
SHUTDOWN_SECONDS = 2.0  # open streams (a live page's events) are cut after this at shutdown


def bind(address: str) -> socket.socket:
    """A listening socket on HOST:PORT (port 0: a free one); OSError if it cannot be bound."""
    import socket

    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets made with it; without, Nagle's
    # algorithm and the client's delayed ACK stall every answer on a kept-alive connection ~40 ms
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, int(port)))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def _server_class():
    import uvicorn

    class _Embedded(uvicorn.Server):
        """uvicorn without its signal handlers: the command that hosts it handles the signals."""

        @contextlib.contextmanager
        def capture_signals(self):
            yield

    return _Embedded


@dataclass
class Web:
    server: object
    task: asyncio.Task
    url: str

    async def stop(self) -> None:
        """Stop serving: no new connection, open ones closed within SHUTDOWN_SECONDS."""
        import asyncio  # here, not at the top: the CLI loads this module on every start
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self.task), SHUTDOWN_SECONDS + 3)
        if not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


async def start(app, sock: socket.socket) -> Web:
    """Serve ``app`` on the bound ``sock`` as a task of the running loop; returns once it serves."""
    import asyncio
    import uvicorn
    config = uvicorn.Config(app, log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    server = _server_class()(config)
    url = url_of(sock)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="web")
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise OSError(f"the web did not start on {url}")
        await asyncio.sleep(0.01)
    return Web(server, task, url)
