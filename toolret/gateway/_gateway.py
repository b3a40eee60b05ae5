"""The gateway's core: many upstream MCP servers as one catalog, and the three answers it gives.

Every upstream's last listing goes into one catalog (``catalog_from_mcp``: tools named
``server__tool``), indexed through the worker (``REDIS_URL``) or inline whenever a listing
changes. A server that goes down keeps its tools in the catalog (so an outage does not re-index
anything), but they are left out of find_tools' results, which name the server as unavailable
instead; its core tools leave the exposed list until it is back.

The downstream client sees the core tools, ``find_tools`` (answered by toolret, any language)
and ``call_tool`` (which routes a found tool's call to its server).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from toolret._catalog import Catalog
from toolret.adapters._mcp import catalog_from_mcp, mcp_origin, mcp_tool_name
from toolret.errors import CatalogError
from toolret.gateway._config import GatewayConfig
from toolret.gateway._upstream import PING_INTERVAL, RETRY, State, Upstream, UpstreamUnavailable
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, Reason, discover

if TYPE_CHECKING:
    from mcp import types

    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["CALL_TOOL", "FIND_TOOLS", "Gateway"]

log = logging.getLogger("toolret.gateway")

FIND_TOOLS = "find_tools"
CALL_TOOL = "call_tool"
FIND_TOOLS_DESCRIPTION = (
    "Find tools. You see a few tools; many more are available from the servers behind this "
    "gateway. Describe the capability you need in plain language, in any language: what you "
    "want to do, not a tool name (for example 'open a pull request' or 'أرسل رسالة إلى الفريق'). "
    f"Up to {MAX_DISCOVERED_TOOLS} matching tools are returned with their input schemas; call "
    "one through call_tool."
)
CALL_TOOL_DESCRIPTION = (
    "Call a tool that find_tools returned: give its name exactly as find_tools gave it and its "
    "arguments as an object matching its input schema."
)


class Gateway:
    """The upstreams, their merged catalog and its index, over one ``ToolRetrievalClient``."""

    def __init__(
        self,
        config: GatewayConfig,
        client: ToolRetrievalClient,
        *,
        ping_interval: float = PING_INTERVAL,
        retry: tuple[float, float] = RETRY,
    ) -> None:
        self.config = config
        self.client = client
        self.upstreams = {
            upstream.name: Upstream(
                upstream, self._upstream_changed, ping_interval=ping_interval, retry=retry
            )
            for upstream in config.upstreams
        }
        self.catalog: Catalog | None = None
        self.indexing = "pending"
        """``pending``, ``indexed`` (inline), ``queued`` (the worker), or ``failed: …``."""
        self.ready = asyncio.Event()
        """Set once every upstream was tried and the first catalog was indexed (or queued)."""
        self._changed = asyncio.Event()
        self._signature: object = None
        self._listeners: list[Callable[[], Awaitable[None]]] = []

    def on_tools_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` whenever what the gateway offers changed: after a new catalog was
        indexed (or queued), or a server went down or came back."""
        self._listeners.append(listener)

    async def run(self) -> None:
        """Keep every upstream connected and the catalog indexed; runs until cancelled."""
        async with asyncio.TaskGroup() as group:
            for upstream in self.upstreams.values():
                group.create_task(upstream.run(), name=f"toolret-upstream-{upstream.name}")
            group.create_task(self._maintain(), name="toolret-gateway-catalog")

    # -- what the downstream client sees ---------------------------------------------------------

    def tools(self) -> list[types.Tool]:
        """The exposed tools: core tools of the servers that are up, find_tools, call_tool."""
        from mcp import types

        exposed: list[types.Tool] = []
        for tool in self.catalog.core if self.catalog is not None else ():
            origin = mcp_origin(tool)
            if origin is None or self.upstreams[origin[0]].state is not State.UP:
                continue
            listed = tool.definition.tool
            exposed.append(listed.model_copy(update={"name": tool.name}))
        capability = {
            "type": "string",
            "description": "The capability you need, in plain language (any language)",
        }
        exposed.append(
            types.Tool(
                name=FIND_TOOLS,
                description=FIND_TOOLS_DESCRIPTION,
                input_schema={
                    "type": "object",
                    "properties": {"capability": capability},
                    "required": ["capability"],
                },
            )
        )
        exposed.append(
            types.Tool(
                name=CALL_TOOL,
                description=CALL_TOOL_DESCRIPTION,
                input_schema={
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The tool's name"},
                        "arguments": {"type": "object", "description": "Its arguments"},
                    },
                    "required": ["name"],
                },
            )
        )
        return exposed

    async def find_tools(self, capability: str) -> dict[str, Any]:
        """find_tools' answer: up to ``MAX_DISCOVERED_TOOLS`` tools with their input schemas,
        best first, none core and none of a server that is down; the servers that are down; and,
        when nothing could be searched, why."""
        catalog = self.catalog
        unavailable = [
            {"server": u.name, "error": u.error or "not connected yet"}
            for u in self.upstreams.values()
            if u.state is not State.UP
        ]
        answer: dict[str, Any] = {"tools": [], "unavailable": unavailable}
        if catalog is None:
            answer["reason"] = "no upstream server has listed its tools yet"
            return answer
        down = {u.name for u in self.upstreams.values() if u.state is not State.UP}
        skip = {tool.name for tool in catalog if _server(tool) in down}
        found = await discover(
            catalog,
            capability,
            lambda text: self.client.rank(catalog, text, MAX_DISCOVERED_TOOLS, exclude=skip),
            bound=skip,
            time_budget=self.client.time_budget,
        )
        answer["tools"] = [
            {
                "name": tool.name,
                "description": tool.description,
                "inputSchema": dict(tool.input_schema or {"type": "object"}),
            }
            for tool in found
        ]
        if not found and found.reason is not None:
            answer["reason"] = found.reason.value
            if found.reason is Reason.NOT_INDEXED:
                answer["note"] = "the tool index is still being built; ask again shortly"
        return answer

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Route a call to the upstream that has ``name``; an error result (never an
        exception) when the tool is unknown or its server is down."""
        catalog = self.catalog
        origin = mcp_origin(catalog[name]) if catalog is not None and name in catalog else None
        if origin is None:
            return error_result(f"no tool is named {name!r}; call find_tools to find one")
        server, original = origin
        try:
            return await self.upstreams[server].call_tool(original, arguments)
        except UpstreamUnavailable as error:
            return error_result(str(error))
        except Exception as error:
            return error_result(f"server {server!r} failed: {error}")

    def status(self) -> dict[str, Any]:
        """Every upstream's state, and the catalog's."""
        return {
            "upstreams": {name: u.status() for name, u in self.upstreams.items()},
            "tools": 0 if self.catalog is None else len(self.catalog),
            "indexing": self.indexing,
        }

    # -- keeping the catalog current ---------------------------------------------------------------

    async def _upstream_changed(self, upstream: Upstream) -> None:
        self._changed.set()

    async def _maintain(self) -> None:
        """Rebuild and index the catalog after each burst of changes, then tell listeners."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            catalog = self._build()
            signature = _signature(catalog)
            if catalog is not None and signature != self._signature:
                self.catalog = catalog
                self._signature = signature
                await self._index(catalog)
            if not self.ready.is_set() and self._settled():
                self.ready.set()
            for listener in list(self._listeners):
                try:
                    await listener()
                except Exception as error:  # a downstream client gone: its own business
                    log.debug("toolret gateway: a tools-changed listener failed: %r", error)

    def _build(self) -> Catalog | None:
        listings = {u.name: u.tools for u in self.upstreams.values() if u.tools is not None}
        if not listings:
            return self.catalog
        names = {mcp_tool_name(server, t.name) for server, tools in listings.items() for t in tools}
        core = [name for name in self.config.core if name in names]
        try:
            return catalog_from_mcp(listings, core=core)
        except CatalogError as error:
            log.error("toolret gateway: the upstream tools cannot form a catalog: %s", error)
            return self.catalog

    async def _index(self, catalog: Catalog) -> None:
        try:
            if self.client.redis_url is not None:
                from toolret.indexing._queue import ReindexQueue

                async with ReindexQueue(self.client.redis_url) as queue:
                    await queue.enqueue(catalog, self.client.embedder)
                self.indexing = "queued"
            else:
                await self.client.index(catalog)
                self.indexing = "indexed"
        except Exception as error:
            self.indexing = f"failed: {error}"
            log.warning("toolret gateway: indexing %d tools failed: %s", len(catalog), error)

    def _settled(self) -> bool:
        return all(u.state is not State.CONNECTING for u in self.upstreams.values())


def error_result(message: str) -> types.CallToolResult:
    """A tool result the model reads as an error."""
    from mcp import types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def json_result(payload: dict[str, Any]) -> types.CallToolResult:
    """A tool result holding ``payload`` as JSON text and as structured content."""
    from mcp import types

    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=payload
    )


def _server(tool: Any) -> str | None:
    origin = mcp_origin(tool)
    return None if origin is None else origin[0]


def _signature(catalog: Catalog | None) -> object:
    if catalog is None:
        return None
    tools = tuple(
        (t.name, t.description, json.dumps(t.input_schema, sort_keys=True), t.core) for t in catalog
    )
    return tools
