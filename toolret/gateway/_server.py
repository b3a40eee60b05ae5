"""The gateway as an MCP server, on the MCP SDK's low-level ``Server``: stdio and streamable HTTP.

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

Over HTTP the MCP endpoint is ``/mcp`` (stateless: any gateway process behind a balancer can
answer any request), beside ``/healthz`` and ``/readyz``, which report every upstream's state.
``/readyz`` is 200 while the database answers, whatever the upstreams' state: a server that is
down is reported, never a reason to take the gateway out of rotation.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
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
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["Downstream", "http_app", "run_stdio"]

log = logging.getLogger("toolret.gateway")

_T = TypeVar("_T")

INSTRUCTIONS = (
    "This server stands in front of many MCP servers. Use the tools listed directly when they "
    "fit; otherwise call find_tools with the capability you need, then call_tool with a tool it "
    "returned."
)


class Downstream:
    """The MCP server the downstream client talks to, over one ``Gateway``."""

    def __init__(self, gateway: Gateway) -> None:
        from mcp.server import Server
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self.gateway = gateway
        self.bus = InMemorySubscriptionBus()
        self._legacy: set[Connection] = set()
        """The open connections of clients of the older protocol, to notify on their own."""
        self.traffic = Traffic(gateway.client, lambda: gateway.catalog)
        """What each connection searched and called: misses and tools used together."""
        self.server: Server[Any] = Server(
            "toolret-gateway",
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
            on_subscriptions_listen=ListenHandler(self.bus),
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
        from mcp.server.lowlevel.server import NotificationOptions

        changed = NotificationOptions(
            tools_changed=True, prompts_changed=True, resources_changed=True
        )
        return self.server.create_initialization_options(changed)


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


def http_app(
    gateway: Gateway,
    *,
    host: str = "127.0.0.1",
    tokens: Sequence[str] = (),
    database_check: Callable[[], Awaitable[str]] | None = None,
    run_gateway: bool = True,
    sessions: bool = False,
) -> Starlette:
    """The gateway over streamable HTTP at ``/mcp``, with ``/healthz`` and ``/readyz``.

    ``tokens``: bearer tokens any of which lets a request in (none: no authentication, for a
    loopback address). ``database_check`` returns ``"ok"`` or what is wrong with the database.
    The application runs the gateway (its upstreams) for as long as it is served, and starts
    serving once the gateway is ready (``Gateway.start``); ``run_gateway=False`` for a gateway
    its caller runs. ``sessions``: keep a session per client of the older protocol (its
    ``Mcp-Session-Id``), so it hears ``list_changed`` and can cancel a call; behind a balancer
    that then needs sticky sessions. Without, every request stands alone.
    """
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse
    from starlette.routing import Mount, Route

    downstream = Downstream(gateway)
    streaming = downstream.server.streamable_http_app(stateless_http=not sessions, host=host)
    apps = [streaming]
    mcp_app: Any = streaming
    if not sessions:  # a session lives in one app: with sessions, the one
        plain = downstream.server.streamable_http_app(
            stateless_http=True, json_response=True, host=host
        )
        apps.append(plain)
        mcp_app = _ByProgress(streaming=streaming, plain=plain)
    digests = {hashlib.sha256(token.encode()).hexdigest() for token in tokens}

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", **gateway.status()})

    async def readyz(request: Request) -> Response:
        database = await database_check() if database_check is not None else "ok"
        ready = database == "ok"
        body = {"ready": ready, "database": database, **gateway.status()}
        return JSONResponse(body, status_code=200 if ready else 503)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = await gateway.start() if run_gateway else None
        try:
            async with contextlib.AsyncExitStack() as stack:
                for each in apps:
                    await stack.enter_async_context(each.router.lifespan_context(each))
                yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Mount("/", app=mcp_app),
        ],
        middleware=[Middleware(_BearerTokens, digests=digests)] if digests else [],
        lifespan=lifespan,
    )


class _ByProgress:
    """ASGI: ``tools/list`` and a find_tools call are answered as one JSON body, which costs
    the SDK's stateless HTTP path about half what a stream of events does
    (``evals.perf.gateway``); every other request, and one that asks for progress, as a
    stream, which carries the progress and cancels the call when the client goes away."""

    def __init__(self, *, streaming: Any, plain: Any) -> None:
        self.streaming = streaming
        self.plain = plain

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.streaming(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before sending it all
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        chosen = self.plain if _answered_at_once(body) else self.streaming
        await chosen(scope, replay, send)


def _answered_at_once(body: bytes) -> bool:
    """Whether a request is one the gateway answers itself, quickly and without progress."""
    if b'"progressToken"' in body:
        return False
    try:
        request = json.loads(body)
    except ValueError:
        return False
    if not isinstance(request, dict):
        return False
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    method = request.get("method")
    return method == "tools/list" or (method == "tools/call" and name == FIND_TOOLS)


class _BearerTokens:
    """ASGI middleware: ``/mcp`` needs one of the tokens (401 otherwise); probes stay open."""

    def __init__(self, app: Any, digests: set[str]) -> None:
        self.app = app
        self.digests = digests

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] not in ("/healthz", "/readyz"):
            headers = dict(scope.get("headers") or [])
            scheme, _, token = headers.get(b"authorization", b"").decode().partition(" ")
            digest = hashlib.sha256(token.strip().encode()).hexdigest()
            if scheme.lower() != "bearer" or digest not in self.digests:
                from starlette.responses import JSONResponse

                response = JSONResponse(
                    {"error": "unauthorized", "detail": "send Authorization: Bearer <token>"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
