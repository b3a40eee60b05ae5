"""The gateway in front of the npm reference ``server-everything`` (over stdio), the server that
exercises every MCP feature: output schemas, resource subscriptions with updates, and a tool that
must run as a task.

- find_tools' answer carries a tool's ``outputSchema``, and the call's ``structuredContent``
  matches it.
- A tool with ``taskSupport: "required"`` is neither offered nor called: the gateway does not
  run task-augmented calls, and ``call_tool`` says so.
- Resource subscriptions are not advertised, in either protocol, and a 2026 ``subscriptions/
  listen`` asking for one is acknowledged without it, though the server sends updates.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client

from tests.support.http_serving import serving
from tests.support.mcp_peers import reference_server
from tests.test_gateway import find, structured
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient

DEADLINE = 180.0
RESEARCH = "everything__simulate-research-query"


@asynccontextmanager
async def gateway_over_everything(database_url: str, tmp_path: Path) -> AsyncIterator[str]:
    """A gateway in front of server-everything, served over HTTP; its ``/mcp`` URL."""
    everything = reference_server("everything", tmp_path / "everything.pid")
    config = parse_config({"mcpServers": {"everything": everything}})
    async with ToolRetrievalClient(database_url) as retrieval:
        gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
        async with serving(http_app(gateway)) as served:
            async with asyncio.timeout(DEADLINE):
                await gateway.indexed.wait()
            yield f"{served.url}/mcp"


async def test_find_tools_carries_the_output_schema_the_result_follows(
    database_url: str, tmp_path: Path
) -> None:
    async with (
        gateway_over_everything(database_url, tmp_path) as url,
        Client(url) as client,
    ):
        found = await find(client, "get the weather in Chicago as structured data")
        called = await client.call_tool(
            "call_tool",
            {"name": "everything__get-structured-content", "arguments": {"location": "Chicago"}},
        )
    tools = {tool["name"]: tool for tool in found["tools"]}
    weather = tools["everything__get-structured-content"]
    schema = weather["outputSchema"]
    assert set(schema["properties"]) == {"temperature", "conditions", "humidity"}
    result = structured(called)
    assert set(result) == set(schema["required"])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_tool_that_must_run_as_a_task_is_not_offered_and_says_why(
    database_url: str, tmp_path: Path, mode: str
) -> None:
    async with (
        gateway_over_everything(database_url, tmp_path) as url,
        Client(url, mode=mode) as client,  # type: ignore[arg-type]
    ):
        found = await find(client, "run a deep research query on a topic")
        listed = [tool.name for tool in (await client.list_tools()).tools]
        called = await client.call_tool(
            "call_tool", {"name": RESEARCH, "arguments": {"topic": "tea"}}
        )
    assert found["tools"], "the rest of the server's tools are found"
    assert RESEARCH not in [tool["name"] for tool in found["tools"]]
    assert RESEARCH not in listed
    assert called.is_error
    text = called.content[0].text
    assert "must run as a task" in text, text
    assert "configure its server in the client directly" in text, text


async def test_resource_subscriptions_are_not_advertised_in_either_protocol(
    database_url: str, tmp_path: Path
) -> None:
    """server-everything sends ``notifications/resources/updated`` to a subscriber; the gateway
    holds one connection to it for all its clients, so it does not offer subscriptions: neither
    protocol's capabilities say ``subscribe``, and a 2026 listen asking for a resource is
    acknowledged without it (the client knows to read the resource again)."""
    async with gateway_over_everything(database_url, tmp_path) as url:
        async with Client(url, mode="legacy") as legacy:
            assert legacy.server_capabilities.resources is not None
            assert not legacy.server_capabilities.resources.subscribe
            (resource, *_) = (await legacy.list_resources()).resources
            old = legacy.protocol_version
        async with Client(url) as modern:
            assert modern.protocol_version != old
            assert modern.server_capabilities.resources is not None
            assert not modern.server_capabilities.resources.subscribe
            async with modern.listen(
                resources_list_changed=True, resource_subscriptions=[resource.uri]
            ) as subscription:
                assert subscription.honored.resources_list_changed is True
                assert not subscription.honored.resource_subscriptions
            read = await modern.read_resource(resource.uri)
    assert read.contents
