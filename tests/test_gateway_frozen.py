"""A frozen upstream (a real ``SIGSTOP`` of a real server process): marked unavailable, and a
call waiting on it answered with an error, once a ping goes unanswered; back after ``SIGCONT``.

- Over stdio, the npm memory server (the older protocol): the gateway stops the silent process
  and starts the server again.
- Over HTTP, the SDK's ``MCPServer`` in a process of its own (the 2026 protocol, whose change
  stream simply goes quiet): the gateway reconnects once the server answers again.

The gateway pings every half second here and gives a ping half a second (``health``); the guide
states the defaults (``HEALTH``). Every wait is on the gateway's own change notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import Client

from tests.support.http_serving import serving
from tests.support.mcp_peers import reference_server
from tests.test_gateway import REPO, find
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient

DEADLINE = 180.0
HEALTH = (0.5, 0.5)


class States:
    """Waits, on the gateway's change notifications, for one upstream to reach a state."""

    def __init__(self, gateway: Gateway, name: str) -> None:
        self.upstream = gateway.upstreams[name]
        self.changed = asyncio.Event()
        self.errors: list[str] = []
        gateway.on_tools_changed(self._heard)

    async def _heard(self) -> None:
        if self.upstream.error is not None and self.upstream.state.value == "down":
            self.errors.append(self.upstream.error)
        self.changed.set()

    async def reach(self, state: str) -> None:
        async with asyncio.timeout(DEADLINE):
            while self.upstream.state.value != state:
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def gateway_in_front(
    database_url: str, server: dict[str, Any], retry: tuple[float, float]
) -> AsyncIterator[tuple[Gateway, States, Client]]:
    config = parse_config({"mcpServers": {"frozen": server}})
    async with ToolRetrievalClient(database_url) as retrieval:
        gateway = Gateway(config, retrieval, health=HEALTH, retry=retry)
        states = States(gateway, "frozen")
        async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
            await states.reach("up")
            async with asyncio.timeout(DEADLINE):
                await gateway.indexed.wait()
            yield gateway, states, client


async def freeze_and_thaw(states: States, client: Client, pid: int, call: dict[str, Any]) -> None:
    """Stop the server, call it, see the call and find_tools answer that it is unavailable;
    continue it and see it called again."""
    os.kill(pid, signal.SIGSTOP)
    try:
        waiting = await asyncio.wait_for(client.call_tool("call_tool", call), DEADLINE)
        assert waiting.is_error
        assert "no answer to a ping within 0.5 s" in waiting.content[0].text, waiting.content
        assert states.upstream.state.value == "down"
        found = await find(client, "look something up")
        assert [u["server"] for u in found["unavailable"]] == ["frozen"]
        assert found["unavailable"][0]["error"].startswith("no answer to a ping")
        assert found["tools"] == []
    finally:
        with contextlib.suppress(ProcessLookupError):  # over stdio the gateway stopped it
            os.kill(pid, signal.SIGCONT)
    await states.reach("up")
    again = await client.call_tool("call_tool", call)
    assert not again.is_error, again.content
    assert len(states.errors) == 1, states.errors


async def test_a_frozen_stdio_server_is_unavailable_then_started_again(
    database_url: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "memory.pid"
    memory = reference_server("memory", pidfile, MEMORY_FILE_PATH=str(tmp_path / "memory.jsonl"))
    async with gateway_in_front(database_url, memory, retry=(3.0, 3.0)) as (_, states, client):
        pid = int(pidfile.read_text())
        await freeze_and_thaw(states, client, pid, {"name": "frozen__read_graph", "arguments": {}})
        assert int(pidfile.read_text()) != pid, "a new process serves it"


async def test_a_frozen_http_server_is_unavailable_then_back_when_it_answers(
    database_url: str, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pidfile = tmp_path / "beta.pid"
    env = {**os.environ, "PORT": str(port), "PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.mcp_upstreams",
        "beta",
        env=env,
        cwd=REPO,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        beta = {"url": f"http://127.0.0.1:{port}/mcp"}
        async with gateway_in_front(database_url, beta, retry=(0.2, 0.2)) as (_, states, client):
            states.errors.clear()  # refused while the process was starting
            call = {"name": "frozen__search_mail", "arguments": {"query": "invoices"}}
            await freeze_and_thaw(states, client, process.pid, call)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)
        process.kill()
        await process.wait()
