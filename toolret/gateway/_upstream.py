"""One upstream MCP server, kept connected by a supervisor task.

The supervisor connects (a child process over stdio, or streamable HTTP), lists the server's
tools (every page), and watches for changes: through ``subscriptions/listen`` on a server of
the 2026 protocol that serves it, else through ``notifications/tools/list_changed`` when the
server sends them and a fresh listing every ``ping_interval`` seconds (which also notices a
server that died quietly). Each listing, and each loss,
is reported to the gateway (``on_change``). A lost server is reconnected with a backoff (1 s,
doubling to a minute): it is reported down meanwhile and never takes the gateway down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from toolret.gateway._config import UpstreamConfig

if TYPE_CHECKING:
    import mcp
    from mcp import types

__all__ = ["PING_INTERVAL", "RETRY", "State", "Upstream", "UpstreamUnavailable"]

log = logging.getLogger("toolret.gateway")

PING_INTERVAL = 30.0
"""Seconds between listings of a server that cannot stream change events."""
METHOD_NOT_FOUND, INVALID_REQUEST = -32601, -32600
"""JSON-RPC's codes for a method a server does not serve (``subscriptions/listen``)."""
RETRY = (1.0, 60.0)
"""Seconds before reconnecting a lost server: the first wait, doubling up to the second."""
LIST_PAGES = 100
"""At most this many pages of ``tools/list``: a server whose cursor never ends cannot hang us."""


class State(StrEnum):
    CONNECTING = "connecting"
    UP = "up"
    DOWN = "down"


class UpstreamUnavailable(Exception):
    """The upstream is not connected; ``str()`` says why."""


class Upstream:
    """An upstream server's connection, state and last listing."""

    def __init__(
        self,
        config: UpstreamConfig,
        on_change: Callable[[Upstream], Awaitable[None]],
        *,
        ping_interval: float = PING_INTERVAL,
        retry: tuple[float, float] = RETRY,
    ) -> None:
        self.config = config
        self.name = config.name
        self.state = State.CONNECTING
        self.error: str | None = None
        """Why it is down (the last failure), for find_tools results and /readyz."""
        self.tools: list[types.Tool] | None = None
        """The last complete listing; kept while down, so the catalog does not flap."""
        self._on_change = on_change
        self._ping_interval = ping_interval
        self._retry = retry
        self._client: mcp.Client | None = None
        self._changed = asyncio.Event()

    def status(self) -> dict[str, Any]:
        """What ``/readyz`` and find_tools say about it."""
        out: dict[str, Any] = {"state": self.state.value, "transport": self.config.transport}
        out["tools"] = None if self.tools is None else len(self.tools)
        if self.error is not None and self.state is not State.UP:
            out["error"] = self.error
        return out

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Call ``name`` (its name on this server); ``UpstreamUnavailable`` when not connected."""
        client = self._client
        if client is None or self.state is not State.UP:
            why = self.error or "not connected yet"
            raise UpstreamUnavailable(f"server {self.name!r} is unavailable: {why}")
        return await client.call_tool(name, arguments)

    async def run(self) -> None:
        """Connect, list, watch; reconnect after a loss. Runs until cancelled."""
        delay = self._retry[0]
        while True:
            try:
                async with self._connect() as client:
                    self._client = client
                    await self._relist(client)
                    delay = self._retry[0]
                    await self._watch(client)
            except Exception as error:  # anyio groups transport failures: ExceptionGroup
                await self._lost(error)
            finally:
                self._client = None
            await asyncio.sleep(delay)  # the reconnect backoff, not a synchronisation
            delay = min(delay * 2, self._retry[1])

    # -- connecting and watching ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[mcp.Client]:
        from mcp import Client, StdioServerParameters
        from mcp.client.streamable_http import streamable_http_client

        self._changed.clear()
        config = self.config
        async with contextlib.AsyncExitStack() as stack:
            if config.command is not None:
                params = StdioServerParameters(
                    command=config.command,
                    args=list(config.args),
                    env=dict(config.env) or None,
                    cwd=config.cwd,
                )
                client = Client(params, cache=None, message_handler=self._on_message)
            else:
                import httpx2

                assert config.url is not None
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=dict(config.headers), timeout=httpx2.Timeout(30.0, read=300.0)
                    )
                )
                transport = streamable_http_client(config.url, http_client=http)
                client = Client(transport, cache=None, message_handler=self._on_message)
            yield await stack.enter_async_context(client)

    async def _watch(self, client: mcp.Client) -> None:
        """Re-list on every change until the connection ends (which raises)."""
        from mcp.client.subscriptions import ListenNotSupportedError
        from mcp.shared.exceptions import MCPError

        try:
            async with client.listen(tools_list_changed=True) as subscription:
                if subscription.honored.tools_list_changed:
                    async for _ in subscription:
                        await self._relist(client)
                    raise ConnectionError("the server closed its change stream")
        except ListenNotSupportedError:
            pass  # the older protocol: notifications/tools/list_changed, below
        except MCPError as error:
            if error.code not in (METHOD_NOT_FOUND, INVALID_REQUEST):
                raise
        # No change stream: its notifications when it sends them (the older protocol), and a
        # fresh listing every ping interval, which also tells a server that died quietly.
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._ping_interval):
                    await self._changed.wait()
            self._changed.clear()
            await self._relist(client)

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        if isinstance(message, types.ToolListChangedNotification):
            self._changed.set()

    async def _relist(self, client: mcp.Client) -> None:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(LIST_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        changed = self.state is not State.UP or _listing(tools) != _listing(self.tools)
        self.tools = tools
        if self.state is not State.UP:
            log.info("toolret gateway: %s is up (%d tools)", self.name, len(tools))
        self.state, self.error = State.UP, None
        if changed:
            await self._on_change(self)

    async def _lost(self, error: BaseException) -> None:
        detail = _describe(error)
        if self.state is not State.DOWN:
            log.warning("toolret gateway: %s is down (%s); reconnecting", self.name, detail)
        self.state, self.error = State.DOWN, detail
        await self._on_change(self)

    def __repr__(self) -> str:
        return f"<Upstream {self.name} {self.state.value}>"


def _listing(tools: list[types.Tool] | None) -> object:
    """What of a listing the gateway uses, comparable: a re-listing that equals the last one
    is not a change."""
    if tools is None:
        return None
    return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]


def _describe(error: BaseException) -> str:
    """The innermost message of a (possibly grouped) transport failure."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
