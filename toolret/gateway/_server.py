"""The gateway as an MCP server, on the MCP SDK's low-level ``Server``, and over stdio.

``tools/list`` answers the core tools of the servers that are up, ``find_tools`` and
``call_tool``; ``tools/call`` answers find_tools through toolret and routes everything else to
its upstream, passing its progress notifications back and its cancellation on. Resources,
resource templates and prompts are every upstream's (``toolret.gateway._proxy``). Each of these
requests first waits for the gateway to be ready (``Gateway.wait_ready``).

When what the gateway offers changes (a new catalog, a server down or back, an upstream's
prompts or resources) clients hear ``notifications/*/list_changed``: through
``subscriptions/listen`` on the 2026 protocol, and on the connection itself for clients of the
older one. The SDK makes a ``ServerSession`` per request, so the gateway keeps each such
client's connection (what the sessions share) from its first request until it closes.

Over HTTP (``toolret.gateway._http``) the same server answers at ``/mcp``; what it says it
offers is the same on every transport (``toolret.gateway._capabilities``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, TypeVar

from toolret.gateway import _proxy
from toolret.gateway._exposed import CALL_TOOL, FIND_TOOLS, error_result, json_result
from toolret.gateway._gateway import Gateway
from toolret.gateway._traffic import Traffic
from toolret.gateway._upstream import UpstreamUnavailable
from toolret.retrieval._find_tools import capabilities_of

if TYPE_CHECKING:
    from mcp import types
    from mcp.server import Server
    from mcp.server.connection import Connection
    from mcp.server.context import ServerRequestContext
    from mcp.shared.dispatcher import ProgressFnT

__all__ = ["Downstream", "run_stdio"]

log = logging.getLogger("toolret.gateway")

_T = TypeVar("_T")

INSTRUCTIONS = (
    "This server stands in front of many MCP servers. Use the tools listed directly when they "
    "fit; otherwise call find_tools with the capability you need, then call_tool with a tool it "
    "returned."
)


class Downstream:
    """The MCP server the downstream client talks to, over one ``Gateway``."""

    def __init__(self, gateway: Gateway, *, pushes_changes: bool = True) -> None:
        """``pushes_changes``: whether a client of the older protocol hears list changes on
        its connection (not over stateless HTTP; see ``GatewayServer``)."""
        from mcp.server.subscriptions import InMemorySubscriptionBus

        from toolret.gateway._capabilities import GatewayServer, listen_without_resources

        self.gateway = gateway
        self.bus = InMemorySubscriptionBus()
        self._legacy: set[Connection] = set()
        """The open connections of clients of the older protocol, to notify on their own."""
        self.traffic = Traffic(gateway.client, lambda: gateway.catalog)
        """What each connection searched and called: misses and tools used together."""
        self.server: Server[Any] = GatewayServer(
            "toolret-gateway",
            pushes_changes=pushes_changes,
            version=version("toolret"),
            instructions=INSTRUCTIONS,
            get_tool_input_schema=gateway.input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_subscriptions_listen=listen_without_resources(self.bus),
        )
        gateway.on_tools_changed(self.tools_changed)
        gateway.on_list_changed(self.list_changed)

    @property
    def legacy_connections(self) -> int:
        """How many connections of the older protocol are open (and hear list_changed)."""
        return len(self._legacy)

    async def tools_changed(self) -> None:
        """Tell every client that the tool list changed."""
        from mcp.server.subscriptions import ToolsListChanged

        await self.bus.publish(ToolsListChanged())
        for connection in list(self._legacy):
            await connection.send_tool_list_changed()  # never raises: best effort

    async def list_changed(self, kind: str) -> None:
        """Tell every client that the ``prompts`` or ``resources`` list changed."""
        from mcp.server.subscriptions import PromptsListChanged, ResourcesListChanged

        if kind == "prompts":
            await self.bus.publish(PromptsListChanged())
        else:
            await self.bus.publish(ResourcesListChanged())
        for connection in list(self._legacy):
            if kind == "prompts":
                await connection.send_prompt_list_changed()
            else:
                await connection.send_resource_list_changed()

    async def _ready(self, ctx: ServerRequestContext[Any]) -> None:
        self._remember(ctx)
        await self.gateway.wait_ready()

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        from mcp import types

        await self._ready(ctx)
        return types.ListToolsResult(tools=self.gateway.tools())

    async def _list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        from mcp import types

        await self._ready(ctx)
        resources = await _proxy.list_resources(self._upstreams)
        return types.ListResourcesResult(resources=resources)

    async def _list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        from mcp import types

        await self._ready(ctx)
        templates = await _proxy.list_resource_templates(self._upstreams)
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def _read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        await self._ready(ctx)
        return await _as_mcp_error(_proxy.read_resource(self._upstreams, params.uri))

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        from mcp import types

        await self._ready(ctx)
        return types.ListPromptsResult(prompts=await _proxy.list_prompts(self._upstreams))

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        await self._ready(ctx)
        prompt = _proxy.get_prompt(self._upstreams, params.name, params.arguments)
        return await _as_mcp_error(prompt)

    @property
    def _upstreams(self) -> list[Any]:
        return list(self.gateway.upstreams.values())

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        await self._ready(ctx)
        progress = _progress_to(ctx)
        arguments = params.arguments or {}
        if params.name == FIND_TOOLS:
            capabilities = capabilities_of(arguments)
            if not capabilities:
                return error_result(
                    'call find_tools with {"capabilities": ["<what you need>", ...]}'
                )
            connection = _connection(ctx)
            answer = await self.gateway.find_tools(capabilities, self.traffic.turn(connection))
            self.traffic.searched(connection, answer)
            return json_result(answer)
        if params.name == CALL_TOOL:
            name, inner = arguments.get("name"), arguments.get("arguments", {})
            if not isinstance(name, str) or not isinstance(inner, dict):
                return error_result(
                    'call call_tool with {"name": "<a name find_tools gave>", "arguments": {...}}'
                )
            await self.traffic.called(_connection(ctx), name, one_client=_one_client(ctx))
            return await self.gateway.call_with_progress(name, inner, progress)
        return await self.gateway.call_with_progress(params.name, params.arguments, progress)

    def _remember(self, ctx: ServerRequestContext[Any]) -> None:
        """Keep the connection of a client of the older protocol, to notify it on its own
        connection, until the connection closes (its exit stack unwinds)."""
        connection: Connection | None = getattr(ctx.session, "_connection", None)
        if connection is None or connection in self._legacy or not _one_client(ctx):
            return
        self._legacy.add(connection)
        connection.exit_stack.callback(self._legacy.discard, connection)

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options()


async def run_stdio(gateway: Gateway) -> None:
    """Serve over stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    downstream = Downstream(gateway)
    upstreams = await gateway.start()
    try:
        async with stdio_server() as (read, write):
            await downstream.server.run(read, write, downstream.initialization_options())
    finally:
        upstreams.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await upstreams


def _progress_to(ctx: ServerRequestContext[Any]) -> ProgressFnT:
    """Pass an upstream's progress on to the client, against the client's own progress token
    (nothing when the client asked for none)."""
    session = ctx.session

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        await session.report_progress(progress, total, message)

    return forward


async def _as_mcp_error(answer: Awaitable[_T]) -> _T:
    """``answer``, with a server that is down or lacks the item as the client's error."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    try:
        return await answer
    except MCPError:
        raise
    except UpstreamUnavailable as error:
        raise MCPError(INVALID_PARAMS, str(error)) from error
    except Exception as error:
        raise MCPError(INVALID_PARAMS, f"{type(error).__name__}: {error}") from error


def _one_client(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the request's connection is one client's: the older protocol on a connection with
    a channel of its own (under the 2026 protocol, and over stateless HTTP, each request stands
    alone)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return False
    connection = getattr(ctx.session, "_connection", None)
    return connection is not None and bool(connection.has_standalone_channel)


def _connection(ctx: ServerRequestContext[Any]) -> object:
    """The client connection a request came on: the SDK makes a ``ServerSession`` per request
    and keeps the connection behind it (not public; the session itself where it is absent)."""
    return getattr(ctx.session, "_connection", None) or ctx.session
