"""The gateway's HTTP transport at its limits: a request body over ``MAX_BODY`` (4 MiB) is
answered 413 with a JSON-RPC error the MCP SDK's client raises as such, stateless or with
``--sessions``; a body under it is served."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import beta_server
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import MAX_BODY, http_app
from toolret.retrieval._client import ToolRetrievalClient


@pytest.mark.parametrize("sessions", [False, True])
async def test_a_body_over_the_limit_is_a_json_rpc_error(database_url: str, sessions: bool) -> None:
    assert MAX_BODY == 4 * 1024 * 1024
    huge = "x" * (MAX_BODY + 1)
    async with serving(beta_server().streamable_http_app()) as beta:
        config = parse_config({"mcpServers": {"beta": {"url": f"{beta.url}/mcp"}}})
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway, sessions=sessions)) as served:
                url = f"{served.url}/mcp"
                async with Client(url, mode="legacy") as client:
                    with pytest.raises(MCPError) as refused:
                        await client.call_tool("beta__search_mail", {"query": huge})
                    fits = await client.call_tool("beta__search_mail", {"query": "x" * 100_000})
                request = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
                body = json.dumps(request).encode() + b" " * MAX_BODY
                async with httpx.AsyncClient() as http:
                    answer = await http.post(
                        url,
                        content=body,
                        headers={"Accept": "application/json, text/event-stream"},
                    )
    assert "4 MiB" in refused.value.message, refused.value.message
    assert not fits.is_error
    assert answer.status_code == 413
    assert answer.headers["content-type"].startswith("application/json")
    error = answer.json()
    assert error["jsonrpc"] == "2.0"
    assert error["id"] is None
    assert error["error"]["code"] == -32600
    assert "4 MiB" in error["error"]["message"]
