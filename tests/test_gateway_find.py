"""The gateway's find_tools: several capabilities in one call, a description naming the servers
behind it, and example requests from the configuration (what ``toolret examples suggest``
wrote and a person kept), over the MCP SDK's client and a real upstream MCP server."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from arq.worker import Worker
from mcp import Client
from mcp.server.mcpserver import MCPServer

from tests.support.http_serving import serving
from toolret import BundledE5Embedder, Settings
from toolret.adapters._source import load_examples
from toolret.authoring._suggest import write_examples
from toolret.gateway._config import GatewayConfig, parse_config, read_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.gateway._server import Downstream
from toolret.gateway._traffic import TURN_GAP
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._vector_store import VectorStore

DEADLINE = 180.0
REMEMBER = "remember that Sam drinks his tea without sugar"


def memory_server() -> MCPServer:
    server = MCPServer("memory", subscriptions=False, log_level="WARNING")

    @server.tool(description="Create multiple new entities in the knowledge graph")
    def create_entities(names: list[str]) -> str:
        return "created"

    @server.tool(description="Add new observations to existing entities in the knowledge graph")
    def add_observations(entity: str, contents: list[str]) -> str:
        return "added"

    @server.tool(description="Delete multiple entities from the knowledge graph")
    def delete_entities(names: list[str]) -> str:
        return "deleted"

    @server.tool(description="Send an email message to a list of recipients with a subject.")
    def send_email(to: list[str], subject: str) -> str:
        return "sent"

    return server


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    answer: dict[str, Any] = result.structured_content or json.loads(result.content[0].text)
    return answer


def test_examples_in_the_configuration_are_read_inline_or_from_a_side_file(
    tmp_path: Path,
) -> None:
    path = write_examples(
        tmp_path / "fleet.examples.toml", {"memory__add_observations": [REMEMBER]}
    )
    config_file = tmp_path / "gateway.json"
    config_file.write_text(
        json.dumps(
            {"mcpServers": {"memory": {"url": "http://127.0.0.1:1/mcp"}}, "examples": path.name}
        )
    )
    assert read_config(config_file).examples == load_examples(path)
    inline = parse_config(
        {"mcpServers": {"m": {"url": "http://127.0.0.1:1/mcp"}}, "examples": {"m__a": ["x"]}}
    )
    assert inline.examples == {"m__a": ("x",)}


async def test_several_capabilities_and_examples_from_the_configuration(database_url: str) -> None:
    async with serving(memory_server().streamable_http_app()) as upstream:
        config = parse_config(
            {
                "mcpServers": {"memory": {"url": f"{upstream.url}/mcp"}},
                "examples": {"memory__add_observations": [REMEMBER]},
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served:
                async with asyncio.timeout(DEADLINE):
                    await gateway.indexed.wait()
                assert gateway.catalog is not None
                assert gateway.catalog["memory__add_observations"].examples == (REMEMBER,)
                async with Client(f"{served.url}/mcp") as client:
                    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                    finder = listed["find_tools"]
                    assert (finder.description or "").endswith(
                        "Behind it: 4 tools from 1 server: memory."
                    )
                    assert finder.input_schema["required"] == ["capabilities"]
                    asked = [REMEMBER, "email the team"]
                    answer = payload(await client.call_tool("find_tools", {"capabilities": asked}))
                    legacy = payload(await client.call_tool("find_tools", {"capability": REMEMBER}))
                    blank = await client.call_tool("find_tools", {"capabilities": [" "]})
    first, second = answer["results"]
    assert [first["capability"], second["capability"]] == asked
    assert first["tools"][0]["name"] == "memory__add_observations"
    assert first["tools"][0]["inputSchema"]["required"] == ["entity", "contents"]
    assert second["tools"][0]["name"] == "memory__send_email"
    names = [tool["name"] for result in answer["results"] for tool in result["tools"]]
    assert len(names) == len(set(names)) == 4
    assert legacy["results"][0]["tools"][0]["name"] == "memory__add_observations"
    assert blank.is_error


def filler_server() -> MCPServer:
    """A dozen tools of a calendar, so a search returns five of thirteen."""
    server = MCPServer("calendar", subscriptions=False, log_level="WARNING")
    for verb, thing in itertools.product(
        ("create", "move", "cancel", "list"), ("meeting", "reminder", "holiday")
    ):

        def tool(when: str) -> str:
            return "ok"

        server.add_tool(
            tool,
            name=f"{verb}_{thing}",
            description=f"{verb.capitalize()} a {thing} on the calendar.",
        )
    return server


@contextlib.asynccontextmanager
async def memory_and_calendar() -> AsyncIterator[GatewayConfig]:
    """The memory server and the filler calendar served over HTTP, as one gateway config."""
    async with (
        serving(memory_server().streamable_http_app()) as memory,
        serving(filler_server().streamable_http_app()) as calendar,
    ):
        yield parse_config(
            {
                "mcpServers": {
                    "memory": {"url": f"{memory.url}/mcp"},
                    "calendar": {"url": f"{calendar.url}/mcp"},
                }
            }
        )


async def test_a_search_the_model_rephrased_is_learned_over_one_session(
    database_url: str, redis_url: str, worker: Callable[..., Worker]
) -> None:
    """Over one connection of the older protocol, a capability whose answer did not hold the
    tool the model then called, after a later search that did, is a miss the worker learns: the
    same capability finds the tool next time."""
    asked = "jot down what I learned about Sam"
    embedder = BundledE5Embedder()
    settings = Settings(redis_url=redis_url, learn=True)
    async with (
        memory_and_calendar() as config,
        VectorStore.from_url(database_url) as store,
        ToolRetrievalClient(store=store, embedder=embedder, settings=settings) as retrieval,
    ):
        gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
        downstream = Downstream(gateway)
        running = asyncio.get_running_loop().create_task(gateway.run())
        try:
            async with asyncio.timeout(DEADLINE):
                await gateway.ready.wait()
            indexing = worker(ctx={"store": store, "embedder": embedder})
            await indexing.main()  # the gateway queued its catalog: index it
            async with Client(downstream.server, mode="legacy") as client:
                first = payload(await client.call_tool("find_tools", {"capabilities": [asked]}))
                shown = {tool["name"] for tool in first["results"][0]["tools"]}
                assert len(shown) == 5
                assert gateway.catalog is not None
                missed = next(
                    t.name
                    for t in gateway.catalog.candidates
                    if t.name not in shown and t.name.startswith("calendar__")
                )
                again = gateway.catalog[missed].description
                second = payload(await client.call_tool("find_tools", {"capabilities": [again]}))
                assert missed in {t["name"] for t in second["results"][0]["tools"]}
                called = await client.call_tool(
                    "call_tool", {"name": missed, "arguments": {"when": "now"}}
                )
                assert not called.is_error, called.content
                assert retrieval._feedback is not None
                await retrieval._feedback.flush()  # type: ignore[attr-defined]
                learning = worker(ctx={"store": store, "embedder": embedder})
                await learning.main()
                assert learning.jobs_failed == 0
                later = payload(await client.call_tool("find_tools", {"capabilities": [asked]}))
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    assert missed in {tool["name"] for tool in later["results"][0]["tools"]}


async def test_tools_called_together_through_the_gateway_are_found_together(
    database_url: str, redis_url: str, worker: Callable[..., Worker]
) -> None:
    """Over one connection of the older protocol, the tools called in one turn (no pause of
    ``TURN_GAP``) are counted once the turn ends; after two such turns a find_tools call made
    after one of them was called offers the other, whatever the capability."""
    embedder = BundledE5Embedder()
    settings = Settings(redis_url=redis_url)
    pair = ["memory__create_entities", "calendar__cancel_holiday"]
    async with (
        memory_and_calendar() as config,
        VectorStore.from_url(database_url) as store,
        ToolRetrievalClient(
            store=store, embedder=embedder, settings=settings, companion_refresh=0.0
        ) as retrieval,
    ):
        gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
        downstream = Downstream(gateway)
        running = asyncio.get_running_loop().create_task(gateway.run())
        try:
            async with asyncio.timeout(DEADLINE):
                await gateway.ready.wait()
            indexing = worker(ctx={"store": store, "embedder": embedder})
            await indexing.main()
            async with Client(downstream.server, mode="legacy") as client:
                asked = {"capabilities": ["email the team"]}
                before = payload(await client.call_tool("find_tools", asked))
                for _ in range(2):  # two turns, each calling both tools
                    for name in pair:
                        arguments = {"names": ["Sam"]} if "memory" in name else {"when": "x"}
                        called = await client.call_tool(
                            "call_tool", {"name": name, "arguments": arguments}
                        )
                        assert not called.is_error, called.content
                    ended = downstream.traffic.end_turns(time.monotonic() + TURN_GAP)
                    assert ended == 1
                await retrieval.flush()
                counting = worker(ctx={"store": store, "embedder": embedder})
                await counting.main()
                assert (counting.jobs_complete, counting.jobs_failed) == (2, 0)
                await client.call_tool(
                    "call_tool", {"name": pair[0], "arguments": {"names": ["Ada"]}}
                )
                after = payload(await client.call_tool("find_tools", asked))
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
    assert pair[1] not in {tool["name"] for tool in before["results"][0]["tools"]}
    assert pair[1] in {tool["name"] for tool in after["results"][0]["tools"]}
