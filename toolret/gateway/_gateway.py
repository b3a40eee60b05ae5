"""The gateway's core: many upstream MCP servers as one catalog, and the three answers it gives.

Every upstream's last listing goes into one catalog (``catalog_from_mcp``: tools named
``server__tool``), indexed through the worker (``REDIS_URL``) or inline whenever a listing
changes. A server that goes down keeps its tools in the catalog (so an outage does not re-index
anything), but they are left out of find_tools' results, which name the server as unavailable
instead; its core tools leave the exposed list until it is back.

The downstream client sees the core tools, ``find_tools`` (answered by toolret, any language)
and ``call_tool`` (which routes a found tool's call to its server), of the ``allowed`` tools.

The gateway is ready when every upstream has answered its first connection (listed, or failed)
and the catalog of those listings is built; the first requests wait for it (``wait_ready``), at
most ``readyTimeout`` seconds from the start, after which a server still connecting is named in
``unavailable``. Vectors come after: until the catalog's are stored, find_tools ranks the whole
fleet by BM25 and says so (``"ranking": "bm25"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolret._catalog import Catalog
from toolret.adapters._mcp import SEPARATOR, catalog_from_mcp, mcp_origin, mcp_tool_name
from toolret.errors import CatalogError, ConfigurationError
from toolret.gateway._config import GatewayConfig
from toolret.gateway._exposed import (
    GATEWAY_SCHEMAS,
    error_result,
    exposed_tools,
    needs_task,
    task_refusal,
)
from toolret.gateway._finding import find_answer
from toolret.gateway._upstream import (
    HEALTH,
    LIST_INTERVAL,
    RETRY,
    State,
    Upstream,
    UpstreamUnavailable,
)
from toolret.gateway._warnings import SaidOnce

if TYPE_CHECKING:
    from mcp import types
    from mcp.shared.dispatcher import ProgressFnT

    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["Gateway"]

log = logging.getLogger("toolret.gateway")


class Gateway:
    """The upstreams, their merged catalog and its index, over one ``ToolRetrievalClient``."""

    def __init__(
        self,
        config: GatewayConfig,
        client: ToolRetrievalClient,
        *,
        list_interval: float = LIST_INTERVAL,
        health: tuple[float, float] = HEALTH,
        retry: tuple[float, float] = RETRY,
    ) -> None:
        self.config = config
        self.ready_timeout = config.ready_timeout
        self.client = client
        self.upstreams = {
            upstream.name: Upstream(
                upstream,
                self._upstream_changed,
                on_list_changed=self._list_changed,
                list_interval=list_interval,
                health=health,
                retry=retry,
            )
            for upstream in config.upstreams
        }
        self.catalog: Catalog | None = None
        self.indexing = "pending"
        """``pending``, ``indexed`` (inline), ``queued`` (the worker), or ``failed: …``."""
        self.ready = asyncio.Event()
        """Set once every upstream answered its first connection and their catalog is built."""
        self.indexed = asyncio.Event()
        """Set once the current catalog's vectors are stored (or queued for the worker)."""
        self._changed = asyncio.Event()
        self._signature: object = None
        self._seen: object = None
        self._listeners: list[Callable[[], Awaitable[None]]] = []
        self._list_listeners: list[Callable[[str], Awaitable[None]]] = []
        self._ready_by: float | None = None
        self._checked: set[str] = set()
        """The upstreams whose first listing the configured names were checked against."""
        self._warnings = SaidOnce()

    def on_tools_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` whenever what the gateway offers changed: after a new catalog was
        indexed (or queued), or a server went down or came back."""
        self._listeners.append(listener)

    def on_list_changed(self, listener: Callable[[str], Awaitable[None]]) -> None:
        """Call ``listener("prompts")`` or ``listener("resources")`` when an upstream says
        that list changed."""
        self._list_listeners.append(listener)

    async def _list_changed(self, kind: str) -> None:
        for listener in list(self._list_listeners):
            try:
                await listener(kind)
            except Exception as error:  # a downstream client gone: its own business
                log.debug("toolret gateway: a %s-changed listener failed: %r", kind, error)

    async def run(self) -> None:
        """Keep every upstream connected and the catalog indexed; runs until cancelled.
        Raises ``ConfigurationError`` when a configured name matches no tool of its server's
        first listing (``unmatched``)."""
        self._ready_by = asyncio.get_running_loop().time() + self.ready_timeout
        try:
            async with asyncio.TaskGroup() as group:
                for upstream in self.upstreams.values():
                    group.create_task(upstream.run(), name=f"toolret-upstream-{upstream.name}")
                group.create_task(self._maintain(), name="toolret-gateway-catalog")
        except BaseExceptionGroup as group:
            wrong = _first(group)
            if wrong is not None:
                raise wrong from None
            raise

    async def wait_ready(self) -> None:
        """Wait until the gateway is ready (``ready``), at most until ``ready_timeout`` seconds
        after it started: the first requests answer from every upstream's first listing."""
        await self._wait_started(self.ready)

    async def _wait_started(self, event: asyncio.Event) -> None:
        """Wait for ``event``, at most until ``ready_timeout`` seconds after the start."""
        if event.is_set():
            return
        loop = asyncio.get_running_loop()
        if self._ready_by is None:  # not started yet: the wait starts now
            self._ready_by = loop.time() + self.ready_timeout
        remaining = self._ready_by - loop.time()
        if remaining > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await event.wait()

    # -- what the downstream client sees ---------------------------------------------------------

    @property
    def visible(self) -> Catalog | None:
        """The catalog cut to what clients may see (``allowed``): the same corpus."""
        catalog = self.catalog
        return None if catalog is None else catalog.only(self.config.allowed)

    def tools(self) -> list[types.Tool]:
        """The exposed tools: core tools of the servers that are up, find_tools (naming the
        servers still connecting past the start, and for how long), call_tool."""
        catalog = self.visible
        late = [u for u in self.upstreams.values() if u.state is State.CONNECTING]
        note = "".join(f" Server {u.name!r} is {u.why()}." for u in late if self.started)
        up = [
            tool
            for tool in (catalog.core if catalog is not None else ())
            if (origin := mcp_origin(tool)) is not None
            and self.upstreams[origin[0]].state is State.UP
            and not needs_task(tool)
        ]
        return exposed_tools(catalog, up, note)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The input schema of an exposed tool (None for any other name), without building
        the list: what the SDK checks a call's ``Mcp-Param`` headers against."""
        if name in GATEWAY_SCHEMAS:
            return GATEWAY_SCHEMAS[name]
        catalog = self.visible
        if catalog is None or name not in catalog or not catalog[name].core:
            return None
        return catalog[name].input_schema

    async def find_tools(
        self, capabilities: list[str], called: Sequence[str] = ()
    ) -> dict[str, Any]:
        """find_tools' answer (``find_answer``): only the ``allowed`` tools are ranked, from the
        fleet's corpus (``Catalog.only``), none of a server that is down or of a tool that must
        run as a task; the last places go to the usual companions of the tools the client
        ``called`` this turn and of the first finds; the servers that are down are named. While
        the gateway starts, it first waits for the catalog's vectors to be read or written
        (``indexed``), within the same bound as readiness, so the first answer after a restart
        ranks by meaning."""
        if self.catalog is not None:
            await self._wait_started(self.indexed)
        catalog = self.visible
        unavailable = [
            {"server": u.name, "error": u.why()}
            for u in self.upstreams.values()
            if u.state is not State.UP
        ]
        down = {u.name for u in self.upstreams.values() if u.state is not State.UP}
        skip: set[str] = set()
        if catalog is not None:
            skip = {tool.name for tool in catalog if _server(tool) in down or needs_task(tool)}
        failed = self.indexing.startswith("failed")
        return await find_answer(
            catalog,
            capabilities,
            self.client,
            unavailable=unavailable,
            skip=skip,
            failed=failed,
            called=called,
        )

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Route a call to the upstream that has ``name``; an error result (never an
        exception) when the tool is unknown or its server is down."""
        return await self.call_with_progress(name, arguments, None)

    async def call_with_progress(
        self, name: str, arguments: dict[str, Any] | None, progress: ProgressFnT | None
    ) -> types.CallToolResult:
        """``call``, passing the server's progress notifications to ``progress``. Cancelling
        the caller cancels the call on the server."""
        catalog = self.catalog
        origin = mcp_origin(catalog[name]) if catalog is not None and name in catalog else None
        if origin is None:
            server = self.config.server_of(name)
            upstream = self.upstreams.get(server) if server is not None else None
            if upstream is not None and upstream.tools is None:  # it has never listed
                return error_result(
                    f"server {upstream.name!r} is unavailable: {upstream.why()}; "
                    "its tools are not listed yet"
                )
            return error_result(f"no tool is named {name!r}; call find_tools to find one")
        visible = self.visible
        if visible is not None and name not in visible:
            return error_result(f"{name!r} is not among the tools this gateway allows")
        if catalog is not None and needs_task(catalog[name]):
            return task_refusal(name)
        server, original = origin
        from mcp.shared.exceptions import MCPError

        try:
            return await self.upstreams[server].call_tool(original, arguments, progress)
        except (UpstreamUnavailable, MCPError) as error:
            return error_result(str(error))
        except Exception as error:
            return error_result(f"server {server!r} failed: {error}")

    def unmatched(self) -> dict[str, str]:
        """The ``core``, ``examples`` and ``keywords`` names of the servers that have listed
        that none of their tools has, and which of the three names each."""
        listed = {u.name for u in self.upstreams.values() if u.tools is not None}
        known = self._known_names()
        return {
            name: what
            for name, what in self.config.named_tools().items()
            if self.config.server_of(name) in listed and name not in known
        }

    def _known_names(self) -> set[str]:
        """Every name a listed tool may be given by: its catalog name and ``server__tool``."""
        known: set[str] = set()
        for upstream in self.upstreams.values():
            for tool in upstream.tools or ():
                known.add(mcp_tool_name(upstream.name, tool.name))
                known.add(f"{upstream.name}{SEPARATOR}{tool.name}")
        return known

    def status(self, *, details: bool = True) -> dict[str, Any]:
        """Every upstream's state, and the catalog's; without ``details``, not what went wrong
        (an upstream's error and last stderr lines, indexing's error), which only an operator
        may read."""
        indexing = self.indexing if details else self.indexing.split(":")[0]
        return {
            "upstreams": {name: u.status(details=details) for name, u in self.upstreams.items()},
            "tools": 0 if self.catalog is None else len(self.catalog),
            "indexing": indexing,
        }

    # -- keeping the catalog current ---------------------------------------------------------------

    async def _upstream_changed(self, upstream: Upstream) -> None:
        self._changed.set()

    async def _maintain(self) -> None:
        """Rebuild and index the catalog after each burst of changes, then tell listeners."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            self._check_names()
            catalog = self._build()
            signature = _signature(catalog)
            changed = catalog is not None and signature != self._signature
            if changed:
                self.catalog = catalog
                self._signature = signature
                self.indexed.clear()
            if not self.ready.is_set() and self._settled():
                self.ready.set()
            seen = (self._signature, frozenset(self._up()))
            if seen != self._seen:  # what a client sees changed: its list, or a server's state
                self._seen = seen
                await self._tell_listeners()
            if changed and catalog is not None:
                await self._index(catalog)
                await self._tell_listeners()  # find_tools now ranks it by meaning

    async def _tell_listeners(self) -> None:
        for listener in list(self._listeners):
            try:
                await listener()
            except Exception as error:  # a downstream client gone: its own business
                log.debug("toolret gateway: a tools-changed listener failed: %r", error)

    def _check_names(self) -> None:
        """Check the configured names against each server's first listing: while the gateway
        starts, a name its server does not have raises ``ConfigurationError``; later (a server
        down at the start lists), it is logged."""
        fresh = {u.name for u in self.upstreams.values() if u.tools is not None} - self._checked
        if not fresh:
            return
        self._checked |= fresh
        wrong = {
            name: what
            for name, what in self.unmatched().items()
            if self.config.server_of(name) in fresh
        }
        if not wrong:
            return
        name, what = next(iter(wrong.items()))
        server = self.config.server_of(name)
        assert server is not None
        tools = sorted(t.name for t in self.upstreams[server].tools or ())
        shown = ", ".join(tools[:12]) + (", …" if len(tools) > 12 else "")
        message = (
            f'"{what}" names {name!r}, but server {server!r} lists no such tool (it lists '
            f"{shown or 'no tools'})"
        )
        if self.started:
            log.error("toolret gateway: %s", message)
            return
        raise ConfigurationError(message)

    @property
    def started(self) -> bool:
        """Past the start: ready, or the ready timeout has passed."""
        if self.ready.is_set():
            return True
        by = self._ready_by
        return by is not None and asyncio.get_running_loop().time() >= by

    async def start(self) -> asyncio.Task[None]:
        """Run the gateway (``run``) in a task, and return it once the gateway is ready or the
        ready timeout has passed; raises what ``run`` raised if it failed meanwhile
        (``ConfigurationError`` for a configured name no tool has)."""
        loop = asyncio.get_running_loop()
        task = loop.create_task(self.run(), name="toolret-gateway")
        waiting = loop.create_task(self.wait_ready())
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            waiting.cancel()
            task.result()  # its failure
            raise RuntimeError("the gateway stopped while starting")
        for upstream in self.upstreams.values():
            if upstream.state is State.CONNECTING:
                log.warning("toolret gateway: %s is %s", upstream.name, upstream.why())
        return task

    def _build(self) -> Catalog | None:
        listings = {u.name: u.tools for u in self.upstreams.values() if u.tools is not None}
        if not listings:
            return self.catalog
        known = self._known_names()
        config = self.config
        core = [name for name in config.core if name in known]
        examples = {name: texts for name, texts in config.examples.items() if name in known}
        keywords = {name: words for name, words in config.keywords.items() if name in known}
        try:
            return self._warnings.build(
                lambda: catalog_from_mcp(listings, core=core, examples=examples, keywords=keywords)
            )
        except CatalogError as error:
            if self._warnings.first(f"catalog: {error}"):
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
            self.indexed.set()
        except Exception as error:
            self.indexing = f"failed: {error}"
            log.warning("toolret gateway: indexing %d tools failed: %s", len(catalog), error)

    def _up(self) -> list[str]:
        return [name for name, u in self.upstreams.items() if u.state is State.UP]

    def _settled(self) -> bool:
        return all(u.state is not State.CONNECTING for u in self.upstreams.values())


def _first(group: BaseExceptionGroup[Any]) -> ConfigurationError | None:
    """The first ``ConfigurationError`` in a (nested) exception group."""
    for error in group.exceptions:
        if isinstance(error, ConfigurationError):
            return error
        if isinstance(error, BaseExceptionGroup) and (inner := _first(error)) is not None:
            return inner
    return None


def _server(tool: Any) -> str | None:
    origin = mcp_origin(tool)
    return None if origin is None else origin[0]


def _signature(catalog: Catalog | None) -> object:
    return None if catalog is None else tuple(_signed(t) for t in catalog)


def _signed(t: Any) -> object:
    return (t.name, t.description, json.dumps(t.input_schema, sort_keys=True), t.core)
