"""``ToolRetrievalClient``: the async client agent services call before each model call.

    async with ToolRetrievalClient(database_url) as client:    # embedder from settings
        sel = await client.select(catalog, message)               # Selection, never raises
        more = await client.find_tools(catalog, "attach a file to a task", bound=sel.names)
        await client.index(catalog)                                # embed what is missing, inline

A selection costs one query embedding (cached per text, so a ReAct loop pays once) and one SQL
round trip on a pooled connection. Every failure — database unreachable, pool exhausted,
statement timeout, nothing published for this catalog, embedder error — sends the full roster
with the reason, within the time budget (``toolret.selection.select_guarded``). When the
catalog's corpus is not published and a Redis URL is configured, the client asks the worker to
index it, once per client and corpus, in the background: a selection never waits for it.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import weakref
from collections.abc import Iterable
from types import TracebackType
from typing import Protocol

from toolret.catalog import Catalog
from toolret.embedders.base import Embedder, Vector
from toolret.embedders.cache import with_query_cache
from toolret.errors import (
    ClientStateError,
    ConfigurationError,
    EmbedderError,
    EmbedderUnavailableError,
    NotIndexedError,
)
from toolret.indexing import IndexReport, Progress, index_catalog
from toolret.metrics import record_selection, record_step, tracer
from toolret.profile import profile_of
from toolret.selection import (
    MAX_DISCOVERED_TOOLS,
    Ranking,
    Selection,
    discover,
    select_guarded,
)
from toolret.settings import Settings, make_embedder
from toolret.store import StoreRanking, VectorStore
from toolret.store_sql import EXACT_LIMIT, CatalogQuery
from toolret.tool import Tool

__all__ = ["ToolRetrievalClient"]

log = logging.getLogger("toolret")

ENQUEUE_GRACE = 1.0
"""Seconds ``aclose`` lets in-flight reindex requests finish before cancelling them."""


class _Queue(Protocol):
    """``toolret.queue.ReindexQueue``, imported lazily (Redis is optional)."""

    async def enqueue(self, catalog: Catalog, embedder: Embedder) -> bool: ...

    async def aclose(self) -> None: ...


class ToolRetrievalClient:
    """Selects tools for a message from vectors in Postgres/pgvector.

    ``database_url`` defaults to ``DATABASE_URL``; ``embedder`` to the one the environment
    configures (Gemini with a key, else the bundled model); ``k``, ``time_budget`` (seconds)
    and ``redis_url`` to ``TOOLRET_K``, ``TOOLRET_TIME_BUDGET_MS`` and ``REDIS_URL``. Pass
    ``store`` to share a ``VectorStore`` (the client then leaves it open). The pool's
    checkout timeout defaults to half the time budget and the server-side statement timeout
    to the whole budget, so a stuck pool or query fails open with its own reason.

    A client is used by one event loop. It opens on first use or ``async with``; after
    ``aclose()`` it cannot be reopened (``ClientStateError``) and ``select`` sends the full
    roster.
    """

    def __init__(
        self,
        database_url: str | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        k: int | None = None,
        time_budget: float | None = None,
        redis_url: str | None = None,
        store: VectorStore | None = None,
        pool_size: int = 5,
        max_overflow: int = 5,
        pool_timeout: float | None = None,
        statement_timeout: float | None = None,
        exact_limit: int = EXACT_LIMIT,
    ) -> None:
        settings = settings or Settings()
        self.k = settings.k if k is None else k
        self.time_budget = settings.time_budget if time_budget is None else time_budget
        self.redis_url = redis_url or settings.redis_url
        self._settings = settings
        if store is None:
            url = database_url or settings.database_url
            if not url:
                raise ConfigurationError(
                    "ToolRetrievalClient needs a database: pass database_url or set DATABASE_URL "
                    "(locally, toolret.embedded_pg.local_database_url() starts one)"
                )
            store = VectorStore.from_url(
                url,
                pool_size=pool_size,
                max_overflow=max_overflow,
                pool_timeout=self.time_budget / 2 if pool_timeout is None else pool_timeout,
                statement_timeout=self.time_budget
                if statement_timeout is None
                else statement_timeout,
                exact_limit=exact_limit,
            )
            self._owns_store = True
        else:
            self._owns_store = False
        self.store = store
        self._raw_embedder = embedder
        self._owns_embedder = embedder is None
        self._embedder: Embedder | None = None if embedder is None else with_query_cache(embedder)
        self._queries: weakref.WeakKeyDictionary[Catalog, CatalogQuery] = (
            weakref.WeakKeyDictionary()
        )
        self._queue: _Queue | None = None
        self._asked: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._entered = False
        self._closed = False

    # -- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> ToolRetrievalClient:
        if self._closed:
            raise ClientStateError("this ToolRetrievalClient is closed; create a new one")
        if self._entered:
            raise ClientStateError("this ToolRetrievalClient is already open")
        self._entered = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def closed(self) -> bool:
        """True after ``aclose()``."""
        return self._closed

    async def aclose(self) -> None:
        """Let pending reindex requests finish (briefly), close the queue, the pool and the
        embedder this client created. Idempotent."""
        if self._closed:
            return
        self._closed = True
        tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=ENQUEUE_GRACE)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._queue is not None:
            await self._queue.aclose()
        if self._owns_store:
            await self.store.aclose()
        if self._owns_embedder and self._embedder is not None:
            await self._embedder.aclose()

    # -- the request path -------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (wrapped in a query cache), created from settings on first use."""
        if self._embedder is None:
            try:
                self._raw_embedder = make_embedder(self._settings)
            except Exception as error:
                raise EmbedderUnavailableError(f"no embedder: {error}") from error
            self._embedder = with_query_cache(self._raw_embedder)
        return self._embedder

    async def select(
        self, catalog: Catalog, message: str, *, resume: bool = False, k: int | None = None
    ) -> Selection:
        """Core tools plus the best ``k`` for ``message``; the full roster on any failure.

        Never raises and never takes longer than the time budget.
        """
        k = self.k if k is None else k
        with tracer.start_as_current_span("toolret.select") as span:
            selection = await select_guarded(
                catalog,
                message,
                lambda text: self.rank(catalog, text, k),
                k=k,
                time_budget=self.time_budget,
                resume=resume,
            )
            span.set_attribute("toolret.catalog.tools", len(catalog))
            span.set_attribute("toolret.k", k)
            span.set_attribute("toolret.mode", selection.mode.value)
            span.set_attribute("toolret.reason", selection.reason.value if selection.reason else "")
            span.set_attribute("toolret.tools_bound", len(selection.tools))
        record_selection(selection)
        return selection

    async def find_tools(
        self,
        catalog: Catalog,
        capability: str,
        *,
        bound: Iterable[str] = (),
        limit: int = MAX_DISCOVERED_TOOLS,
    ) -> list[Tool]:
        """At most ``limit`` tools for a capability phrase (any language), none already bound,
        best first. Empty on a blank phrase or any failure; bounded by the time budget."""
        exclude = set(bound)
        return await discover(
            catalog,
            capability,
            lambda text: self.rank(catalog, text, limit, exclude=exclude),
            bound=exclude,
            limit=limit,
            time_budget=self.time_budget,
        )

    async def rank(
        self, catalog: Catalog, text: str, k: int | None = None, *, exclude: Iterable[str] = ()
    ) -> Ranking:
        """Score the catalog's candidates for ``text`` (one embedding, one query); raises
        ``EmbedderError``, ``StoreError``/``NotIndexedError`` or ``TimeoutError``."""
        if self._closed:
            raise ClientStateError("this ToolRetrievalClient is closed")
        k = self.k if k is None else k
        embedder = self.embedder
        query = self._query(catalog, embedder)
        vector = await self._embed(embedder, text)
        started = time.perf_counter()
        try:
            with tracer.start_as_current_span("toolret.rank_sql") as span:
                span.set_attribute("toolret.model_id", query.model_id)
                span.set_attribute("toolret.corpus_hash", query.corpus_hash)
                span.set_attribute("toolret.documents", query.documents)
                result: StoreRanking = await self.store.rank(
                    query, vector, limit=k, exclude=frozenset(exclude)
                )
        except NotIndexedError:
            self._ask_worker(catalog, query.corpus_hash)
            raise
        finally:
            record_step("database", (time.perf_counter() - started) * 1000)
        if not result.published:
            self._ask_worker(catalog, query.corpus_hash)
        return Ranking(result.scores, result.unranked)

    async def index(self, catalog: Catalog, *, progress: Progress | None = None) -> IndexReport:
        """Embed the catalog's missing documents now, inline, and publish its corpus."""
        if self._closed:
            raise ClientStateError("this ToolRetrievalClient is closed")
        self.embedder  # noqa: B018 - creates the embedder from settings if needed
        assert self._raw_embedder is not None
        return await index_catalog(self.store, self._raw_embedder, catalog, progress=progress)

    # -- helpers --------------------------------------------------------------------------------

    def _query(self, catalog: Catalog, embedder: Embedder) -> CatalogQuery:
        query = self._queries.get(catalog)
        if query is None or query.model_id != embedder.model_id:
            query = CatalogQuery.build(
                catalog, embedder.model_id, embedder.example_role, profile_of(embedder)
            )
            self._queries[catalog] = query
        return query

    async def _embed(self, embedder: Embedder, text: str) -> Vector:
        started = time.perf_counter()
        try:
            with tracer.start_as_current_span("toolret.embed_query"):
                return await embedder.embed_query(text)
        except (EmbedderError, asyncio.CancelledError, TimeoutError):
            raise
        except Exception as error:
            raise EmbedderError(f"embedding the query failed: {error!r}") from error
        finally:
            record_step("embed", (time.perf_counter() - started) * 1000)

    def _ask_worker(self, catalog: Catalog, corpus_hash: str) -> None:
        """Ask the worker to index this corpus, once per client, without waiting."""
        if self.redis_url is None or self._closed or corpus_hash in self._asked:
            return
        self._asked.add(corpus_hash)
        if self._queue is None:
            try:
                module = importlib.import_module("toolret.queue")
                self._queue = module.ReindexQueue(self.redis_url)
            except Exception as error:
                log.warning("toolret: cannot ask the worker to index: %s", error)
                return
        task = asyncio.get_running_loop().create_task(
            self._enqueue(self._queue, catalog, corpus_hash),
            name=f"toolret-reindex-{corpus_hash[:12]}",
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _enqueue(self, queue: _Queue, catalog: Catalog, corpus_hash: str) -> None:
        embedder = self._raw_embedder
        assert embedder is not None
        try:
            queued = await queue.enqueue(catalog, embedder)
        except Exception as error:
            log.warning(
                "toolret: asking the worker to index %s… failed: %s", corpus_hash[:12], error
            )
            return
        log.info(
            "toolret: %s the worker to index corpus %s…",
            "asked" if queued else "already asked",
            corpus_hash[:12],
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<ToolRetrievalClient {self.store!r} k={self.k} {state}>"
