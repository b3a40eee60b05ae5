"""What the gateway tells its clients and its operator, and only when it is true.

- ``initialize`` says ``listChanged`` exactly where the gateway pushes list changes: over
  ``--sessions`` and on the 2026 protocol, not to a client of the older protocol over stateless
  HTTP.
- An upstream that keeps failing to reconnect changes nothing a client sees, so no client
  hears ``list_changed`` for it.
- An upstream cancelled while it reconnects stops (the gateway exits on SIGTERM).
- ``toolret gateway`` at its default level: an upstream's error log message is a line on its
  stderr, and a server killed and started again is one line down and one line up again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import beta_server
from tests.test_gateway import REPO, structured
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.gateway._server import Downstream
from toolret.gateway._upstream import Upstream
from toolret.retrieval._client import ToolRetrievalClient

DEADLINE = 180.0


@pytest.mark.parametrize(
    ("sessions", "mode", "pushed"),
    [(True, "legacy", True), (False, "legacy", False), (False, "auto", True), (True, "auto", True)],
)
async def test_initialize_says_list_changed_where_changes_are_pushed(
    database_url: str, sessions: bool, mode: str, pushed: bool
) -> None:
    async with serving(beta_server().streamable_http_app()) as beta:
        config = parse_config({"mcpServers": {"beta": {"url": f"{beta.url}/mcp"}}})
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with (
                serving(http_app(gateway, sessions=sessions)) as served,
                Client(f"{served.url}/mcp", mode=mode) as client,  # type: ignore[arg-type]
            ):
                capabilities = client.server_capabilities
    assert capabilities.tools is not None
    assert capabilities.prompts is not None
    assert capabilities.resources is not None
    said = (
        capabilities.tools.list_changed,
        capabilities.prompts.list_changed,
        capabilities.resources.list_changed,
    )
    assert said == (pushed, pushed, pushed)


class Refusing:
    """An HTTP server that answers every request 500, counting them."""

    def __init__(self, enough: int) -> None:
        self.requests = 0
        self.enough = enough
        self.reached = asyncio.Event()
        self.app = Starlette(routes=[Route("/mcp", self.refuse, methods=["GET", "POST"])])

    async def refuse(self, request: Request) -> Response:
        self.requests += 1
        if self.requests >= self.enough:
            self.reached.set()
        return PlainTextResponse("broken", status_code=500)


async def test_failed_reconnects_tell_no_client_that_the_tools_changed(database_url: str) -> None:
    heard: list[Any] = []

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.append(message)

    refusing = Refusing(enough=1)
    async with (
        serving(refusing.app) as broken,
        serving(beta_server().streamable_http_app()) as beta,
    ):
        config = parse_config(
            {
                "mcpServers": {
                    "broken": {"url": f"{broken.url}/mcp"},
                    "beta": {"url": f"{beta.url}/mcp"},
                }
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(0.01, 0.01))
            downstream = Downstream(gateway)
            running = await gateway.start()
            try:
                async with asyncio.timeout(DEADLINE):
                    await gateway.indexed.wait()
                async with Client(
                    downstream.server, mode="legacy", message_handler=on_message
                ) as client:
                    await client.list_tools()  # the gateway now notifies this connection
                    assert downstream.legacy_connections == 1
                    refusing.reached.clear()
                    refusing.enough = refusing.requests + 20  # twenty more failed attempts
                    async with asyncio.timeout(DEADLINE):
                        await refusing.reached.wait()
                    await client.list_tools()  # a round trip: anything sent before it is in
            finally:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
    assert gateway.upstreams["broken"].state.value == "down"
    assert heard == []


async def lines_of(path: Path, wanted: str) -> list[str]:
    """The lines of ``path`` once one holds ``wanted`` (polled, with a deadline)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        lines = (await asyncio.to_thread(path.read_text)).splitlines()
        if any(wanted in line for line in lines):
            return lines
        assert time.monotonic() < deadline, f"no line with {wanted!r} in:\n" + "\n".join(lines)
        await asyncio.sleep(0.05)  # polling a file for a condition, with a deadline


async def test_an_upstream_s_error_log_and_its_restart_are_lines_on_stderr(
    database_url: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "noisy.pid"
    noisy = {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_upstreams", "noisy"],
        "env": {"PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)},
        "cwd": str(REPO),
    }
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {"noisy": noisy}}))
    gateway = StdioServerParameters(
        command=str(Path(sys.executable).with_name("toolret")),
        args=["gateway", "--config", str(config)],
        env={"DATABASE_URL": database_url, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as errlog:
        async with Client(stdio_client(gateway, errlog=errlog)) as client:
            checked = await client.call_tool("call_tool", {"name": "noisy__check_disks"})
            assert not checked.is_error, checked.content
            logged = await lines_of(stderr, "97% full")
            first = int(pidfile.read_text())
            os.kill(first, signal.SIGKILL)
            lines = await lines_of(stderr, "noisy is up again")
            assert int(pidfile.read_text()) != first
            found = structured(
                await client.call_tool("find_tools", {"capabilities": ["is a disk full"]})
            )
    said = "toolret gateway: noisy [error]: the disk /srv is 97% full"
    assert any(line.endswith(said) for line in logged), logged
    assert len([line for line in lines if "noisy is down" in line]) == 1, lines
    assert len([line for line in lines if "noisy is up again" in line]) == 1, lines
    assert found["unavailable"] == []


async def test_a_server_that_exits_at_once_is_reported_with_its_status_and_last_words(
    database_url: str,
) -> None:
    failing = (
        "import sys; print('starting', file=sys.stderr); "
        "print('error: cannot open /srv/nope: no such directory', file=sys.stderr); sys.exit(3)"
    )
    config = parse_config(
        {"mcpServers": {"broken": {"command": sys.executable, "args": ["-c", failing]}}}
    )
    async with ToolRetrievalClient(database_url) as retrieval:
        gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
        running = await gateway.start()
        try:
            found = await gateway.find_tools(["anything"])
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    (unavailable,) = found["unavailable"]
    assert unavailable["server"] == "broken"
    said = (
        "its process exited with status 3 (its last stderr lines: starting | "
        "error: cannot open /srv/nope: no such directory); restarting it in "
    )
    assert unavailable["error"].startswith(said), unavailable["error"]
    assert unavailable["error"].endswith(" s")


async def test_an_upstream_cancelled_while_it_reconnects_stops() -> None:
    """Cancelled while a connection attempt fails, the SDK's task group raises the failure
    alone: the supervisor must still stop, not reconnect forever (a gateway that never exits on
    SIGTERM). The race is narrow, so it is run many times, at varied moments."""
    config = parse_config({"mcpServers": {"gone": {"url": "http://127.0.0.1:9/mcp"}}})

    async def changed(upstream: Upstream) -> None:
        return None

    for attempt in range(60):
        upstream = Upstream(config.upstreams[0], changed, retry=(0.001, 0.001))
        running = asyncio.ensure_future(upstream.run())
        await asyncio.sleep(0.03 + (attempt % 9) * 0.002)  # a varied moment to cancel at
        running.cancel()
        done, _ = await asyncio.wait({running}, timeout=DEADLINE)
        assert done, f"attempt {attempt}: the cancelled supervisor kept reconnecting"
        assert running.cancelled()
