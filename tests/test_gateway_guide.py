"""What docs/gateway.md says of three edges, checked against what the gateway does.

- A client of the older protocol over stateless ``--http`` that cancels a call: its
  ``notifications/cancelled`` reaches nothing, so the call runs on while the client's
  connection is open; when the client closes it, the call's stream ends and the gateway
  cancels the call on its server.
- A missing prompt of an npm reference server (the TypeScript SDK writes its code into its
  message): the error says ``MCP error -32602`` once, where a client adds it.
- A non-core tool called straight through ``tools/call``, by its ``server__tool`` name: served,
  as through ``call_tool``, and ``allowed`` still refuses one outside the list.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import beta_server
from tests.test_gateway_everything import gateway_over_everything
from tests.test_gateway_proxy import DEADLINE, Docs, gateway_over
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient


async def test_an_older_client_s_cancelled_call_ends_when_it_closes_its_connection(
    database_url: str,
) -> None:
    docs = Docs()
    async with gateway_over(docs, database_url) as (_, url):
        client = Client(url, mode="legacy")
        async with client:
            call = asyncio.ensure_future(client.call_tool("call_tool", {"name": "docs__export"}))
            async with asyncio.timeout(DEADLINE):
                await docs.started.wait()
            call.cancel()
            await client.list_tools()  # a round trip after the cancellation was sent
            assert not docs.cancelled.is_set(), "stateless: the cancellation matches nothing"
        async with asyncio.timeout(DEADLINE):
            await docs.cancelled.wait()  # the connection closed: the call's stream ended


async def test_a_missing_prompt_s_error_says_its_code_once(
    database_url: str, tmp_path: Path
) -> None:
    async with (
        gateway_over_everything(database_url, tmp_path) as url,
        Client(url) as client,
    ):
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("everything__nope")
    message = missing.value.message
    assert "MCP error" not in message, message
    assert message == "server 'everything': Prompt nope not found", message
    assert missing.value.code == -32602


async def test_a_non_core_tool_called_straight_through_tools_call_is_served_if_allowed(
    database_url: str,
) -> None:
    async with serving(beta_server().streamable_http_app()) as beta:
        config = parse_config(
            {"mcpServers": {"beta": {"url": f"{beta.url}/mcp"}}, "allowed": ["beta__search_mail"]}
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
                listed = [tool.name for tool in (await client.list_tools()).tools]
                searched = await client.call_tool("beta__search_mail", {"query": "invoices"})
                sent = await client.call_tool(
                    "beta__send_email", {"to": ["x"], "subject": "s", "body": "b"}
                )
    assert listed == ["find_tools", "call_tool"]
    assert not searched.is_error, searched.content
    assert searched.content[0].text == "no mail matches invoices"
    assert sent.is_error
    assert sent.content[0].text == "'beta__send_email' is not among the tools this gateway allows"
