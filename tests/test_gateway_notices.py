"""What the gateway tells its clients and its operator, and only when it is true.

- ``initialize`` says ``listChanged`` exactly where the gateway pushes list changes: over
  ``--sessions`` and on the 2026 protocol, not to a client of the older protocol over stateless
  HTTP.
- An upstream that keeps failing to reconnect changes nothing a client sees, so no client
  hears ``list_changed`` for it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from mcp import Client, types
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import beta_server
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.gateway._server import Downstream
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
