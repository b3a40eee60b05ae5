"""The gateway over streamable HTTP: ``/mcp`` beside the probes ``/healthz`` and ``/readyz``,
bearer tokens, and the size of a request body.

``/mcp`` is stateless by default (any gateway process behind a balancer can answer any
request). ``/healthz`` is liveness only: the process answers, and it says nothing else.
``/readyz`` says which upstreams are up, down or connecting, and is 200 only while the
database answers and every upstream is up (503 otherwise). What went wrong (an upstream's
error, its last stderr lines, the database's error) is an operator's: ``/readyz`` shows it
only to a request holding one of the tokens (or to anyone when there are none: a loopback
gateway), never to an anonymous request, since a server's stderr may hold secrets. A body
larger than ``MAX_BODY`` (the SDK's own limit) is answered 413 with a JSON-RPC error, before
the SDK reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolret.gateway._exposed import FIND_TOOLS
from toolret.gateway._gateway import Gateway
from toolret.gateway._server import Downstream

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["MAX_BODY", "http_app"]

MAX_BODY = 4 * 1024 * 1024
"""The largest request body ``/mcp`` takes, in bytes: the MCP SDK's own limit (4 MiB)."""
INVALID_REQUEST = -32600


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

    downstream = Downstream(gateway, pushes_changes=sessions)
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
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        database = await database_check() if database_check is not None else "ok"
        details = not digests or holds_token(request.scope, digests)
        status = gateway.status(details=details)
        ready = database == "ok" and all(u["state"] == "up" for u in status["upstreams"].values())
        if not details and database != "ok":
            database = "failing"  # what failed is for an operator
        body = {"ready": ready, "database": database, **status}
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
            Mount("/", app=_BodyLimit(mcp_app)),
        ],
        middleware=[Middleware(_BearerTokens, digests=digests)] if digests else [],
        lifespan=lifespan,
    )


class _BodyLimit:
    """ASGI: a ``POST`` whose body is larger than ``MAX_BODY`` is answered 413 with a
    JSON-RPC error (the SDK's own check answers plain text, which a client cannot read as
    MCP), without reading more of it than the limit; the body read is handed on."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > MAX_BODY:
            await _too_large(scope, receive, send)
            return
        body = await _read_body(receive, MAX_BODY)
        if body is None:  # the client left before sending it all
            return
        if len(body) > MAX_BODY:
            await _too_large(scope, receive, send)
            return
        await self.app(scope, _replaying(body, receive), send)


async def _read_body(receive: Any, limit: int | None = None) -> bytes | None:
    """A request's whole body, or its first part once it is past ``limit`` bytes; None when the
    client left before sending it all."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if (limit is not None and size > limit) or not message.get("more_body", False):
            return b"".join(chunks)


def _replaying(body: bytes, receive: Any) -> Any:
    """An ASGI ``receive`` that hands on ``body`` (already read) once, then ``receive``'s."""
    replayed = False

    async def replay() -> Any:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _too_large(scope: Any, receive: Any, send: Any) -> None:
    from starlette.responses import JSONResponse

    megabytes = MAX_BODY // (1024 * 1024)
    error = {
        "code": INVALID_REQUEST,
        "message": f"the request body is larger than {megabytes} MiB, the most this gateway "
        "takes: send a smaller request",
    }
    response = JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=413)
    await response(scope, receive, send)


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
        body = await _read_body(receive)
        if body is None:  # the client left before sending it all
            return
        chosen = self.plain if _answered_at_once(body) else self.streaming
        await chosen(scope, _replaying(body, receive), send)


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


def holds_token(scope: Any, digests: set[str]) -> bool:
    """Whether an HTTP request sends ``Authorization: Bearer`` with one of the tokens (kept as
    their SHA-256 digests)."""
    headers = dict(scope.get("headers") or [])
    scheme, _, token = headers.get(b"authorization", b"").decode().partition(" ")
    digest = hashlib.sha256(token.strip().encode()).hexdigest()
    return scheme.lower() == "bearer" and digest in digests


class _BearerTokens:
    """ASGI middleware: ``/mcp`` needs one of the tokens (401 otherwise); the probes answer
    anyone, and ``/readyz`` tells the details only to a request with a token."""

    def __init__(self, app: Any, digests: set[str]) -> None:
        self.app = app
        self.digests = digests

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        probe = scope["type"] != "http" or scope["path"] in ("/healthz", "/readyz")
        if not probe and not holds_token(scope, self.digests):
            from starlette.responses import JSONResponse

            response = JSONResponse(
                {"error": "unauthorized", "detail": "send Authorization: Bearer <token>"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
