"""The HTTP service's routes, over one ``ToolRetrievalClient``.

``POST /v1/select`` holds the client's contract: it answers 200 for every failure the client
survives (database down, embedder failing, timeout, catalog not yet indexed), with ``mode:
full`` and the reason. What the caller got wrong is a 4xx naming the field
(``toolret.service._http``). The process keeps no state about conversations: a cache-stable
list travels in the request (``bound``), and registered catalogs live in Postgres.

On a graceful stop (SIGTERM, then uvicorn's drain of in-flight requests) the lifespan waits up
to ``TOOLRET_SERVE_DRAIN_SECONDS`` for queued feedback and reindex requests to reach Redis
before it closes the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any, get_args

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from toolret.console import console_app
from toolret.errors import CatalogError, StoreError, StoreUnavailableError
from toolret.retrieval._selection import Mode, Reason, Selection, reason_for
from toolret.service._answers import answer_find_tools, answer_select
from toolret.service._auth import TokenTable
from toolret.service._catalogs import CatalogRegistry
from toolret.service._http import ApiError, http_error, internal_error, parse, read_json
from toolret.service._minutes import SelectionMinutes
from toolret.service._models import (
    CATALOG_NAME,
    CatalogRegistration,
    FeedbackRequest,
    FindToolsRequest,
    Indexing,
    SelectRequest,
)
from toolret.service._settings import ServiceSettings

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from toolret._catalog import Catalog
    from toolret.indexing._queue import ReindexQueue
    from toolret.retrieval._client import ToolRetrievalClient
    from toolret.service._inline import InlineIndexing

__all__ = ["Service", "create_app"]

log = logging.getLogger("toolret.serve")

_NAME = re.compile(CATALOG_NAME)


@dataclass
class Service:
    """What the routes share: the client, the catalogs, the tokens and the settings."""

    client: ToolRetrievalClient
    settings: ServiceSettings
    tokens: TokenTable
    registry: CatalogRegistry
    metrics: CollectorRegistry | None = None
    owns_client: bool = True
    inline: InlineIndexing | None = None
    """Indexing in this process what selections find unindexed (no worker configured)."""
    minutes: SelectionMinutes = field(default_factory=SelectionMinutes)
    """Selections per minute by outcome over the last hour (the console's Health page)."""
    _queue: ReindexQueue | None = field(default=None, repr=False)

    def unindexed(self, catalog: Catalog, reason: Reason | None) -> None:
        """A selection met tools without vectors: index them here when no worker does (with a
        worker, the client has asked it)."""
        if self.inline is not None and reason in (Reason.PARTLY_INDEXED, Reason.NOT_INDEXED):
            self.inline.ask(catalog)

    def reindex_queue(self) -> ReindexQueue:
        """The worker's queue (``REDIS_URL``), opened on first use."""
        if self._queue is None:
            from toolret.indexing._queue import ReindexQueue

            assert self.client.redis_url is not None
            self._queue = ReindexQueue(self.client.redis_url)
        return self._queue

    async def stop(self) -> None:
        """Flush what was queued (bounded by the drain time), then close what this owns."""
        try:
            async with asyncio.timeout(self.settings.drain_seconds):
                await self.client.flush()
        except TimeoutError:
            log.warning(
                "toolret serve: queued feedback or reindex requests were still pending after "
                "%.0f s (TOOLRET_SERVE_DRAIN_SECONDS); the rest are dropped",
                self.settings.drain_seconds,
            )
        if self._queue is not None:
            await self._queue.aclose()
        if self.inline is not None:
            await self.inline.aclose()
        await self.registry.aclose()
        if self.owns_client:
            await self.client.aclose()


def create_app(
    settings: ServiceSettings | None = None,
    *,
    client: ToolRetrievalClient | None = None,
    database_url: str | None = None,
    metrics: CollectorRegistry | None = None,
) -> Starlette:
    """The service as an ASGI application (serve it with uvicorn, or mount it in your own).

    Without ``client`` it creates one from the environment (``database_url``, else
    ``DATABASE_URL``; ``REDIS_URL``; the embedder settings) when it starts, and closes it when
    it stops; a given client is
    flushed on stop but left open. ``metrics`` is the Prometheus registry ``/metrics`` renders
    (``toolret.service._metrics.install_prometheus``); without it ``/metrics`` is a 404.
    """
    settings = settings or ServiceSettings()
    tokens = TokenTable(settings.tokens)
    state: dict[str, Service] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        from toolret.retrieval._client import ToolRetrievalClient
        from toolret.service._inline import InlineIndexing

        retrieval = client or ToolRetrievalClient(database_url, index_unserved=False)
        if client is None:
            await retrieval.__aenter__()
        url = database_url or retrieval.store.engine.url.render_as_string(hide_password=False)
        service = Service(
            retrieval,
            settings,
            tokens,
            CatalogRegistry.open(
                url, time_budget=retrieval.time_budget, recheck=settings.recheck_seconds
            ),
            metrics,
            owns_client=client is None,
            inline=InlineIndexing(retrieval) if retrieval.redis_url is None else None,
        )
        state["service"] = service
        await _open_registry(service.registry, retrieval.time_budget)
        try:
            yield
        finally:
            await service.stop()

    def route(
        handler: Callable[[Service, Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(state["service"], request)
            except ApiError as error:
                return error.response()

        return endpoint

    return Starlette(
        routes=[
            Route("/v1/select", route(_select), methods=["POST"]),
            Route("/v1/find_tools", route(_find_tools), methods=["POST"]),
            Route("/v1/catalogs/{name}", route(_register), methods=["POST"]),
            Route("/v1/catalogs/{name}/find_tools", route(_definition), methods=["GET"]),
            Route("/v1/feedback", route(_feedback), methods=["POST"]),
            Route("/healthz", route(_healthz), methods=["GET"]),
            Route("/readyz", route(_readyz), methods=["GET"]),
            Route("/metrics", route(_metrics), methods=["GET"]),
            Route("/openapi.json", route(_openapi), methods=["GET"]),
            *(
                [Mount("/console", console_app(lambda: state["service"]))]
                if settings.console
                else []
            ),
        ],
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error, Exception: internal_error},
    )


# -- the request path ---------------------------------------------------------------------------


async def _select(service: Service, request: Request) -> Response:
    grant = service.tokens.grant(request.headers.get("authorization"))
    body = parse(SelectRequest, await read_json(request, service.settings.max_body_bytes))
    return JSONResponse(await answer_select(service, grant, body))


async def _find_tools(service: Service, request: Request) -> Response:
    grant = service.tokens.grant(request.headers.get("authorization"))
    body = parse(FindToolsRequest, await read_json(request, service.settings.max_body_bytes))
    return JSONResponse(await answer_find_tools(service, grant, body))


async def _definition(service: Service, request: Request) -> Response:
    from toolret.retrieval._find_tools import FindToolsShape, find_tools_definition

    grant = service.tokens.grant(request.headers.get("authorization"))
    name = request.path_params["name"]
    grant.check(name)
    shape = request.query_params.get("shape", "openai")
    shapes: dict[str, FindToolsShape] = {s: s for s in get_args(FindToolsShape)}
    if shape not in shapes:
        raise ApiError(
            422, "invalid_request", f"shape is one of {', '.join(shapes)}", field="shape"
        )
    catalog = grant.cut(await service.registry.get(name))
    try:
        definition = find_tools_definition(shapes[shape], catalog)
    except CatalogError as error:  # a tool of its own is named find_tools
        raise ApiError(409, "find_tools_conflict", str(error), field="tools") from error
    if shape == "gemini":  # the JSON wire's name, which the JavaScript and Go SDKs type
        definition["parametersJsonSchema"] = definition.pop("parameters_json_schema")
    return JSONResponse({"definition": definition})


async def _register(service: Service, request: Request) -> Response:
    grant = service.tokens.grant(request.headers.get("authorization"))
    name = request.path_params["name"]
    if not _NAME.match(name):
        raise ApiError(
            422,
            "invalid_request",
            "a catalog name is 1-128 letters, digits, '_', '.' or '-', starting with a letter "
            "or digit",
            field="name",
        )
    grant.check(name)
    body = parse(CatalogRegistration, await read_json(request, service.settings.max_body_bytes))
    try:
        catalog, created = await service.registry.put(name, body)
    except StoreError as error:
        raise ApiError(
            503,
            "database_unavailable",
            f"the catalog could not be stored: {error}",
            headers={"Retry-After": "1"},
        ) from error
    indexing = await _index(service, catalog)
    return JSONResponse(
        {
            "catalog": name,
            "tools": len(catalog),
            "core": len(catalog.core),
            "created": created,
            "warnings": [
                {"tool": w.tool, "kind": w.kind, "message": w.message, "pointer": w.pointer}
                for w in catalog.warnings
            ],
            "indexing": indexing.model_dump(),
        },
        status_code=201 if created else 200,
    )


async def _open_registry(registry: CatalogRegistry, budget: float) -> None:
    """Open the registry's first connection before serving (waiting at most ``budget``). A
    look-up of a catalog this process has not built has no fallback, and opening a connection
    on a loaded machine can take longer than the look-up's share of the budget: a fresh
    process behind a load balancer then answered its first selections 503. A database that
    cannot be reached now is no reason not to start: the first look-up tries again."""
    try:
        async with asyncio.timeout(budget):
            await registry.schema_revision()
    except Exception as error:
        log.debug("toolret serve: the catalog registry's first connection failed: %r", error)


async def _index(service: Service, catalog: Catalog) -> Indexing:
    """Ask the worker to index ``catalog``, or index it inline when no worker is configured.

    A database that cannot be reached is a 503, as when storing the catalog: the caller sends
    the registration again (it is stored already, so the retry only indexes). Any other
    failure is ``failed``, and the first selection of the catalog asks for indexing again.
    """
    client = service.client
    try:
        if client.redis_url is not None:
            queue = service.reindex_queue()
            queued = await queue.enqueue(catalog, client.embedder)
            return Indexing(state="queued", detail=None if queued else "already queued")
        report = await client.index(catalog)
    except StoreUnavailableError as error:
        raise ApiError(
            503,
            "database_unavailable",
            f"the catalog was stored but could not be indexed: {error}; send it again",
            headers={"Retry-After": "1"},
        ) from error
    except Exception as error:
        log.warning("toolret serve: indexing a registered catalog failed: %s", error)
        return Indexing(state="failed", detail=str(error))
    return Indexing(state="indexed" if report.published else "current")


async def _feedback(service: Service, request: Request) -> Response:
    grant = service.tokens.grant(request.headers.get("authorization"))
    body = parse(FeedbackRequest, await read_json(request, service.settings.max_body_bytes))
    grant.check(body.catalog)
    if body.called is None and body.messages is None:
        raise ApiError(
            422,
            "invalid_request",
            "send the tools the model called (called) or the turn's transcript (messages)",
            field="called",
        )
    catalog = grant.cut(await service.registry.get(body.catalog))
    client = service.client
    if client.redis_url is None:
        return JSONResponse({"queued": False, "reason": "no_queue"})
    if body.mode != Mode.NARROWED.value:
        return JSONResponse({"queued": False, "reason": "not_narrowed"})
    try:
        # The selection may have been made by another process: the query vector is read from
        # this process's cache when it is there, else embedded once more here.
        async with asyncio.timeout(client.time_budget):
            await client.embedder.embed_query(body.message)
    except Exception as error:
        return JSONResponse({"queued": False, "reason": reason_for(error).value})
    selection = Selection(catalog.subset(body.bound), Mode.NARROWED)
    transcript: Any = body.called if body.called is not None else body.messages
    queued = await client.report_turn(
        catalog, selection, transcript, message=body.message, learn=body.learn
    )
    return JSONResponse({"queued": queued, "reason": None if queued else "dropped"})


# -- operations ---------------------------------------------------------------------------------


async def _healthz(service: Service, request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _readyz(service: Service, request: Request) -> Response:
    from toolret.store._migrate import head_revision

    expected = head_revision()
    revision: str | None = None
    try:
        async with asyncio.timeout(service.client.time_budget):
            revision = await service.registry.schema_revision()
        database = "ok"
    except StoreError as error:
        database = str(error)
    except TimeoutError:
        database = "timeout"
    embedder = service.client.warm_up_state
    ready = database == "ok" and revision == expected and embedder != "warming"
    return JSONResponse(
        {
            "ready": ready,
            "database": database,
            "embedder": embedder,
            "schema_revision": revision,
            "expected_revision": expected,
        },
        status_code=200 if ready else 503,
    )


async def _metrics(service: Service, request: Request) -> Response:
    if service.metrics is None:
        raise ApiError(
            404,
            "not_found",
            "this process exports metrics through the application's own OpenTelemetry SDK",
        )
    from toolret.service._metrics import CONTENT_TYPE, render

    return Response(render(service.metrics), media_type=CONTENT_TYPE)


async def _openapi(service: Service, request: Request) -> Response:
    return JSONResponse(_openapi_document())


@functools.cache
def _openapi_document() -> dict[str, Any]:
    from toolret.service._openapi import openapi_document

    try:
        return openapi_document(version("toolret"))
    except PackageNotFoundError:  # pragma: no cover - a checkout without an install
        return openapi_document("0")
