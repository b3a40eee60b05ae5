"""The rest of MCP through the gateway: resources, resource templates and prompts (namespaced),
progress notifications passed back, and a cancelled call cancelled on its server.

The upstream ``docs`` is the SDK's ``MCPServer`` in this process over streamable HTTP; the
client is the SDK's, of the older protocol over an in-memory connection (JSON-RPC, so its
cancellation is a real ``notifications/cancelled``) and of the 2026 protocol over HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client, types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import beta_server
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.gateway._server import Downstream
from toolret.retrieval._client import ToolRetrievalClient

DEADLINE = 180.0


class Docs:
    """An upstream with a resource, a resource template, a prompt, a tool that reports
    progress and one that runs until it is cancelled (and says so)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.bus = InMemorySubscriptionBus()
        server = MCPServer("docs", subscriptions=self.bus, log_level="WARNING")
        self.server = server

        @server.resource("docs://guide", name="guide", description="The user guide.")
        def guide() -> str:
            return "read the guide first"

        @server.resource("docs://pages/{page}", name="page", description="One page of the docs.")
        def page(page: str) -> str:
            return f"the page {page}"

        @server.prompt(description="Summarize a text in one line.")
        def summarize(text: str) -> str:
            return f"Summarize in one line: {text}"

        @server.tool(
            description="Build the documentation site, reporting each step as it goes.",
            annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True),
        )
        async def build(steps: int, ctx: Context) -> str:
            for done in range(1, steps + 1):
                await ctx.report_progress(done, steps, f"step {done}")
            return f"built in {steps} steps"

        @server.tool(description="Export the whole documentation archive, which takes a while.")
        async def export() -> str:
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "exported"


@asynccontextmanager
async def gateway_over(
    docs: Docs, database_url: str, *, sessions: bool = False
) -> AsyncIterator[tuple[Gateway, str]]:
    async with (
        serving(docs.server.streamable_http_app()) as upstream,
        serving(beta_server().streamable_http_app()) as beta,
    ):
        config = parse_config(
            {
                "mcpServers": {
                    "docs": {"url": f"{upstream.url}/mcp"},
                    "beta": {"url": f"{beta.url}/mcp"},
                },
                "core": ["docs__build"],
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway, sessions=sessions)) as served:
                yield gateway, f"{served.url}/mcp"


def text_of(contents: Any) -> str:
    text: str = contents[0].text
    return text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_resources_templates_and_prompts_are_every_upstreams_namespaced(
    database_url: str, mode: str
) -> None:
    docs = Docs()
    async with gateway_over(docs, database_url) as (gateway, url):
        target: Any = Downstream(gateway).server if mode == "legacy" else url
        async with Client(target, mode=mode) as client:  # type: ignore[arg-type]
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            prompts = (await client.list_prompts()).prompts
            guide = await client.read_resource("docs://guide")
            page = await client.read_resource("docs://pages/intro")
            prompt = await client.get_prompt("docs__summarize", {"text": "the launch"})
            with pytest.raises(MCPError) as unknown:
                await client.get_prompt("nobody__summarize", {"text": "x"})
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert [(r.name, r.uri) for r in resources] == [("docs__guide", "docs://guide")]
    assert [(t.name, t.uri_template) for t in templates] == [("docs__page", "docs://pages/{page}")]
    assert [p.name for p in prompts] == ["docs__summarize"]
    assert text_of(guide.contents) == "read the guide first"
    assert text_of(page.contents) == "the page intro"
    assert "Summarize in one line: the launch" in prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "no prompt is named 'nobody__summarize'" in unknown.value.message
    annotations = tools["docs__build"].annotations
    assert annotations is not None
    assert annotations.idempotent_hint is True


async def test_progress_comes_back_and_a_cancelled_call_is_cancelled_on_its_server(
    database_url: str,
) -> None:
    docs = Docs()
    async with (
        gateway_over(docs, database_url) as (gateway, _),
        Client(Downstream(gateway).server, mode="legacy") as client,
    ):
        heard: list[tuple[float, float | None, str | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            heard.append((done, total, message))

        built = await client.call_tool("docs__build", {"steps": 3}, progress_callback=progress)
        assert not built.is_error, built.content
        through = await client.call_tool(
            "call_tool",
            {"name": "docs__build", "arguments": {"steps": 2}},
            progress_callback=progress,
        )
        assert not through.is_error, through.content

        call = asyncio.ensure_future(
            client.call_tool("call_tool", {"name": "docs__export", "arguments": {}})
        )
        async with asyncio.timeout(DEADLINE):
            await docs.started.wait()
        call.cancel()
        async with asyncio.timeout(DEADLINE):
            await docs.cancelled.wait()
        assert call.cancelled()
    assert heard == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
        (1, 2, "step 1"),
        (2, 2, "step 2"),
    ]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_progress_comes_back_over_http(database_url: str, mode: str) -> None:
    """Over stateless HTTP a call that asks for progress is answered as an event stream, and
    find_tools as a JSON body: both answer; and a call a 2026 client cancels is cancelled on
    its server. (A 2025 client's ``notifications/cancelled`` comes over stateless HTTP as a
    request of its own, which no server can match to the call: docs/gateway.md says so.)"""
    docs = Docs()
    heard: list[float] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(done)

    async with (
        gateway_over(docs, database_url) as (_, url),
        Client(url, mode=mode) as client,  # type: ignore[arg-type]
    ):
        streamed = await client.call_tool("docs__build", {"steps": 2}, progress_callback=progress)
        plain = await client.call_tool("docs__build", {"steps": 2})
        found = await client.call_tool("find_tools", {"capabilities": ["build the docs site"]})
        if mode == "auto":  # a 2026 client cancels by leaving the request: its stream ends
            call = asyncio.ensure_future(client.call_tool("call_tool", {"name": "docs__export"}))
            async with asyncio.timeout(DEADLINE):
                await docs.started.wait()
            call.cancel()
            async with asyncio.timeout(DEADLINE):
                await docs.cancelled.wait()
    assert text_of(streamed.content) == text_of(plain.content) == "built in 2 steps"
    assert heard == [1, 2]
    assert not found.is_error


async def test_a_connection_of_the_older_protocol_is_kept_until_it_closes(
    database_url: str,
) -> None:
    """The SDK makes a session per request: the gateway keeps the connection behind them from
    the first request, so later changes reach it, and lets it go when it closes."""
    docs = Docs()
    async with gateway_over(docs, database_url) as (gateway, _):
        downstream = Downstream(gateway)
        async with Client(downstream.server, mode="legacy") as client:
            await client.list_tools()
            await client.list_prompts()
            assert downstream.legacy_connections == 1
        assert downstream.legacy_connections == 0
        await downstream.tools_changed()  # nobody left to tell: no error


async def test_with_sessions_an_http_client_of_the_older_protocol_hears_changes_and_cancels(
    database_url: str,
) -> None:
    """``--sessions``: a 2025 client over HTTP keeps its session, so the gateway's
    ``list_changed`` reaches it and its ``notifications/cancelled`` cancels the call."""
    docs = Docs()
    heard: asyncio.Queue[object] = asyncio.Queue()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.put_nowait(message)

    async with (
        gateway_over(docs, database_url, sessions=True) as (gateway, url),
        Client(url, mode="legacy", message_handler=on_message) as client,
    ):
        await client.list_tools()

        def publish(text: str) -> str:
            return text

        docs.server.add_tool(publish, description="Publish the documentation site to the web.")
        await docs.bus.publish(ToolsListChanged())
        async with asyncio.timeout(DEADLINE):
            while True:
                await heard.get()
                if gateway.catalog is not None and "docs__publish" in gateway.catalog:
                    break

        call = asyncio.ensure_future(client.call_tool("call_tool", {"name": "docs__export"}))
        async with asyncio.timeout(DEADLINE):
            await docs.started.wait()
        call.cancel()
        async with asyncio.timeout(DEADLINE):
            await docs.cancelled.wait()
