"""One upstream MCP server, kept connected by a supervisor task.

The supervisor connects (a child process over stdio, or streamable HTTP), lists the server's
tools (every page), and watches for changes: through ``subscriptions/listen`` on a server of
the 2026 protocol that serves it, else through ``notifications/tools/list_changed`` when the
server sends them and a fresh listing every ``list_interval`` seconds. Each listing, and each
loss, is reported to the gateway (``on_change``). A lost server is reconnected with a backoff
(1 s, doubling to a minute): it is reported down meanwhile and never takes the gateway down.

A loss is noticed when it happens, not at the next listing: a connection that ends (a process
that exited, a refused HTTP connection: ``_noticing``), and a server that stops answering (a
ping on an interval: ``_health``), which also answers every call still waiting on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from toolret.gateway._config import UpstreamConfig
from toolret.gateway._health import HEALTH, ConnectionEnded, ping_until_silent, unless_ended
from toolret.gateway._logs import OPT_IN, log_to_stderr
from toolret.gateway._noticing import Watched, describe, end, noticing_transport, until_ended
from toolret.gateway._stdio import child_process
from toolret.gateway._warnings import SaidOnce

if TYPE_CHECKING:
    import mcp
    from mcp import types
    from mcp.client._transport import Transport
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.shared.exceptions import MCPError

__all__ = ["HEALTH", "LIST_INTERVAL", "RETRY", "State", "Upstream", "UpstreamUnavailable"]

log = logging.getLogger("toolret.gateway")

LIST_INTERVAL = 30.0
"""Seconds between listings of a server that cannot stream change events."""
METHOD_NOT_FOUND, INVALID_REQUEST = -32601, -32600
"""JSON-RPC's codes for a method a server does not serve (``subscriptions/listen``)."""
RETRY = (1.0, 60.0)
"""Seconds before reconnecting a lost server: the first wait, doubling up to the second."""
_T = TypeVar("_T")
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
        on_list_changed: Callable[[str], Awaitable[None]] | None = None,
        list_interval: float = LIST_INTERVAL,
        health: tuple[float, float] = HEALTH,
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
        self._on_list_changed = on_list_changed
        """Told ``prompts`` or ``resources`` when the server says that list changed."""
        self.resource_uris: set[str] = set()
        """The URIs of its last resource listing, to route ``resources/read``."""
        self._list_interval = list_interval
        self._health = health
        self._pending: set[asyncio.Task[Any]] = set()
        """Requests abandoned when their connection ended, until they have unwound."""
        self._retry = retry
        self._client: mcp.Client | None = None
        self._changed = asyncio.Event()
        self._ended: asyncio.Future[str] | None = None
        """Resolved, with why, when the connection's transport ends (``_Watched``)."""
        self._delay = retry[0]
        """The wait before the next reconnect, once the connection is lost."""
        self._retry_at: float | None = None
        """When the next reconnect starts (the loop's clock), while waiting for it."""
        self._started: float | None = None
        """When the first connection began (the loop's clock)."""
        self.said = SaidOnce()
        """What about it was logged: each warning once per start per cause."""

    def status(self, *, details: bool = True) -> dict[str, Any]:
        """What ``/readyz`` says about it; ``details``: with why it is down (``why``)."""
        out: dict[str, Any] = {"state": self.state.value, "transport": self.config.transport}
        out["tools"] = None if self.tools is None else len(self.tools)
        if details and self.state is not State.UP:
            out["error"] = self.why()
        return out

    def why(self) -> str:
        """Why it is not up, and what the gateway does next, in one sentence: ``its process
        exited with status 3 (…); restarting it in 4 s``, ``the connection to URL was lost;
        reconnecting in 1 s``, ``still connecting: trying for 42 s``."""
        loop = asyncio.get_running_loop()
        if self.state is State.CONNECTING:
            trying = loop.time() - self._started if self._started is not None else 0.0
            return f"still connecting: trying for {trying:.0f} s"
        if self.state is State.UP:
            return "up"
        verb = "restarting it" if self.config.transport == "stdio" else "reconnecting"
        wait = self._delay if self._retry_at is None else self._retry_at - loop.time()
        then = f"{verb} in {round(wait, 1):g} s" if wait >= 0.1 else f"{verb} now"
        return f"{self.error or 'not connected'}; {then}"

    @property
    def client(self) -> mcp.Client:
        """The connected client; ``UpstreamUnavailable`` saying why when not connected."""
        client = self._client
        if client is None or self.state is not State.UP:
            raise UpstreamUnavailable(f"server {self.name!r} is unavailable: {self.why()}")
        return client

    def offers(self, feature: str) -> bool:
        """Whether the connected server declared ``feature`` (``resources``, ``prompts``)."""
        client = self._client
        if client is None or self.state is not State.UP:
            return False
        return getattr(client.server_capabilities, feature, None) is not None

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        progress: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """Call ``name`` (its name on this server), passing its progress to ``progress``
        (``ask``). Cancelling the caller cancels the call on the server (the SDK sends
        ``notifications/cancelled``)."""
        return await self.ask(lambda c: c.call_tool(name, arguments, progress_callback=progress))

    async def ask(self, request: Callable[[mcp.Client], Awaitable[_T]]) -> _T:
        """``request`` on the connected client: ``UpstreamUnavailable`` saying why when the
        server is not connected, or as soon as its connection ends while the request waits (a
        server that stopped answering is caught by the ping)."""
        from mcp.shared.exceptions import MCPError

        client = self.client
        ended = self._ended
        try:
            return await unless_ended(request(client), ended, self._pending)
        except Exception as error:
            if ended is None or not await _a_loss(error, ended):
                if isinstance(error, MCPError):
                    raise _theirs(error, self.name) from error
                raise
            why = self.why() if self.state is State.DOWN else f"{ended.result()}; {self._next()}"
            raise UpstreamUnavailable(f"server {self.name!r} is unavailable: {why}") from None

    def _next(self) -> str:
        """What the gateway does next after a loss it has not yet handled."""
        verb = "restarting it" if self.config.transport == "stdio" else "reconnecting"
        return f"{verb} in {round(self._delay, 1):g} s"

    async def run(self) -> None:
        """Connect, list, watch; reconnect after a loss. Runs until cancelled."""
        loop = asyncio.get_running_loop()
        self._delay = self._retry[0]
        self._started = loop.time()
        while True:
            ended = self._ended = loop.create_future()
            try:
                async with self._connect(ended) as client:
                    self._client = client
                    pinging = asyncio.ensure_future(
                        ping_until_silent(client, self._health, self._silent)
                    )
                    try:
                        await until_ended(self._serve(client), ended)
                    finally:
                        pinging.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await pinging
            except Exception as error:  # anyio groups transport failures: ExceptionGroup
                _raise_if_cancelled(error)
                await self._lost(ended.result() if ended.done() else error)  # how, if told
            finally:
                self._client = None
            self._retry_at = loop.time() + self._delay
            try:
                await asyncio.sleep(self._delay)  # the reconnect backoff, not a synchronisation
            finally:
                self._retry_at = None
            self._delay = min(self._delay * 2, self._retry[1])

    async def _serve(self, client: mcp.Client) -> None:
        await self._relist(client)
        self._delay = self._retry[0]
        await self._watch(client)

    async def _silent(self, why: str) -> None:
        """The server stopped answering: down at once (before the connection is torn down,
        which may wait on it), and the connection ended."""
        await self._lost(why)
        if self._ended is not None:
            end(self._ended, why)

    # -- connecting and watching ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _connect(self, ended: asyncio.Future[str]) -> AsyncIterator[mcp.Client]:
        from mcp import Client, StdioServerParameters
        from mcp.client.streamable_http import streamable_http_client

        self._changed.clear()
        config = self.config
        async with contextlib.AsyncExitStack() as stack:
            transport: Transport
            if config.command is not None:
                params = StdioServerParameters(
                    command=config.command,
                    args=list(config.args),
                    env=config.environment() or None,
                    cwd=config.cwd,
                )
                transport = child_process(params, ended)
            else:
                import httpx2

                assert config.url is not None
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=dict(config.headers),
                        timeout=httpx2.Timeout(30.0, read=300.0),
                        transport=noticing_transport(ended, config.url),
                    )
                )
                transport = streamable_http_client(config.url, http_client=http)
            watched = Watched(transport, ended)
            client = Client(
                watched,
                cache=None,
                message_handler=self._on_message,
                logging_callback=log_to_stderr(self.name),
                log_level=OPT_IN,
            )
            yield await stack.enter_async_context(client)

    async def _watch(self, client: mcp.Client) -> None:
        """Re-list on every change until the connection ends (which raises)."""
        from mcp.client.subscriptions import ListenNotSupportedError
        from mcp.shared.exceptions import MCPError
        from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged

        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as subscription:
                if subscription.honored.tools_list_changed:
                    async for event in subscription:
                        if isinstance(event, PromptsListChanged):
                            await self._list_changed("prompts")
                        elif isinstance(event, ResourcesListChanged):
                            await self._list_changed("resources")
                        else:
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
                async with asyncio.timeout(self._list_interval):
                    await self._changed.wait()
            self._changed.clear()
            await self._relist(client)

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        if isinstance(message, types.ToolListChangedNotification):
            self._changed.set()
        elif isinstance(message, types.PromptListChangedNotification):
            await self._list_changed("prompts")
        elif isinstance(message, types.ResourceListChangedNotification):
            await self._list_changed("resources")

    async def _list_changed(self, kind: str) -> None:
        if self._on_list_changed is not None:
            await self._on_list_changed(kind)

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
        if self.state is State.DOWN:  # one line each way at the default level
            log.warning("toolret gateway: %s is up again (%d tools)", self.name, len(tools))
        elif self.state is State.CONNECTING:
            log.info("toolret gateway: %s is up (%d tools)", self.name, len(tools))
        self.state, self.error = State.UP, None
        if changed:
            await self._on_change(self)

    async def _lost(self, error: BaseException | str) -> None:
        """Mark it down and tell the gateway, once: a failed reconnect changes nothing."""
        detail = error if isinstance(error, str) else describe(error, self.config.url)
        was, self.state, self.error = self.state, State.DOWN, detail
        if was is not State.DOWN:
            log.warning("toolret gateway: %s is down: %s", self.name, self.why())
            await self._on_change(self)

    def __repr__(self) -> str:
        return f"<Upstream {self.name} {self.state.value}>"


def _theirs(error: MCPError, server: str) -> MCPError:
    """An error ``server`` answered, as the gateway's clients get it: naming the server, its
    message without the code a TypeScript server writes into it (``MCP error -32602: …``),
    which a client adds again."""
    from mcp.shared.exceptions import MCPError

    message = re.sub(r"^MCP error -?\d+: ", "", error.message)
    return MCPError(error.code, f"server {server!r}: {message}", error.data)


LOSS_GRACE = 2.0
"""Seconds a request that failed as its connection failed waits to learn how the connection
ended (a process's exit status), so its caller is told that, not the transport's words."""


async def _a_loss(error: Exception, ended: asyncio.Future[str]) -> bool:
    """Whether ``error`` is the loss of the connection (``ended`` resolves, within
    ``LOSS_GRACE``), not an error the server answered."""
    import anyio
    import httpx2
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(error, ConnectionEnded):
        return True
    if isinstance(error, MCPError):
        if error.code != CONNECTION_CLOSED:
            return False  # the server's own answer
    elif not isinstance(error, OSError | httpx2.TransportError | anyio.BrokenResourceError):
        return ended.done()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(LOSS_GRACE):
            await asyncio.shield(ended)
    return ended.done()


def _raise_if_cancelled(error: Exception) -> None:
    """Re-raise a cancellation of this task that a transport's task group swallowed: cancelled
    while a child failed, anyio raises the child's error alone, and the supervisor would
    reconnect forever after being cancelled."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from error


def _listing(tools: list[types.Tool] | None) -> object:
    """What of a listing the gateway uses, comparable: a re-listing that equals the last one
    is not a change."""
    if tools is None:
        return None
    return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]
