"""A lost upstream said plainly, the same way on every transport: which server, what happened,
and what the gateway does next, for the call that was waiting on it as for the next one.

The ``patient`` server runs in a process of its own, over stdio or over streamable HTTP, and is
killed (``SIGKILL``) while a call waits on it: its progress says the call has started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.support.http_serving import serving
from tests.test_gateway import DEADLINE, REPO, find
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient

WAIT = {"name": "py__wait", "arguments": {"seconds": 600}}


@contextlib.asynccontextmanager
async def patient(transport: str, tmp_path: Path) -> AsyncIterator[tuple[dict[str, Any], str]]:
    """The ``mcpServers`` entry of the patient server over ``transport``, and what its loss is
    said to be."""
    pidfile = tmp_path / "patient.pid"
    env = {"PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.support.mcp_upstreams", "patient"]
    if transport == "stdio":
        entry = {"command": command[0], "args": command[1:], "env": env, "cwd": str(REPO)}
        yield entry, "its process exited (killed by SIGKILL); restarting it in"
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        *command,
        env={**os.environ, **env, "PORT": str(port)},
        cwd=REPO,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        await listening(port)

        yield {"url": url}, f"the connection to {url} was lost; reconnecting in"
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


async def listening(port: int) -> None:
    """Return once something accepts connections on ``port`` (polled, with a deadline)."""
    async with asyncio.timeout(DEADLINE):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)  # polling a condition, with a deadline
                continue
            writer.close()
            return


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_killed_upstream_is_said_plainly_to_the_pending_call_and_the_next(
    database_url: str, tmp_path: Path, transport: str
) -> None:
    async with patient(transport, tmp_path) as (entry, lost):
        config = parse_config({"mcpServers": {"py": entry}})
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
                assert (await find(client, "wait a while"))["unavailable"] == []
                started = asyncio.Event()

                async def progress(done: float, total: float | None, message: str | None) -> None:
                    started.set()

                pending = asyncio.ensure_future(
                    client.call_tool("call_tool", WAIT, progress_callback=progress)
                )
                async with asyncio.timeout(DEADLINE):
                    await started.wait()
                os.kill(int((tmp_path / "patient.pid").read_text()), signal.SIGKILL)
                async with asyncio.timeout(DEADLINE):
                    answered = await pending
                following = await client.call_tool("call_tool", WAIT)
                found = await find(client, "wait a while")
    said = rf"^server 'py' is unavailable: {re.escape(lost)} [\d.]+ s$"
    assert answered.is_error
    assert re.match(said, answered.content[0].text), answered.content[0].text
    assert following.is_error
    assert re.match(said, following.content[0].text), following.content[0].text
    (unavailable,) = found["unavailable"]
    assert re.match(said.replace("server 'py' is unavailable: ", ""), unavailable["error"])
