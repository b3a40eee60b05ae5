"""Serve an ASGI application with uvicorn on a free loopback port, in this test's event loop.

The socket is bound and listening before uvicorn starts, so a client may connect at once: the
kernel queues the connection until uvicorn accepts it, after its lifespan has started. Leaving
the block asks uvicorn to stop as SIGTERM would (drain, then the lifespan's shutdown) and waits
for it.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn

__all__ = ["Serving", "serving"]


class Serving:
    """A running server: its base URL, and ``stop()`` for a test that stops it early."""

    def __init__(self, server: uvicorn.Server, task: asyncio.Task[None], url: str) -> None:
        self.server = server
        self.task = task
        self.url = url

    async def stop(self) -> None:
        """Stop as on SIGTERM and wait until the lifespan's shutdown has run."""
        self.server.should_exit = True
        await self.task


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[Serving]:
    """Serve ``app`` on ``127.0.0.1`` at a free port for the duration of the block."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    running = Serving(server, task, f"http://127.0.0.1:{port}")
    try:
        yield running
    finally:
        if not task.done():
            await running.stop()
        sock.close()
