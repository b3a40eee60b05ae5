"""``ToolRetrievalClient``: the async client agent services call before each model call.

    async with ToolRetrievalClient(database_url) as client:    # embedder from settings
        sel = await client.select(catalog, message)               # Selection, never raises
        more = await client.find_tools(catalog, "attach a file to a task", bound=sel.names)
        await client.index(catalog)                                # embed what is missing, inline

A selection costs one query embedding (cached per text: a ReAct loop pays once) and one SQL round
trip on a pooled connection, which in hybrid mode (the default) also scores the tools sharing the
message's words, ranked by BM25 in process (``toolret.hybrid``). Any failure sends the full roster,
with the reason, within the time budget (``toolret.selection.select_guarded``); a corpus not
published yet is asked of the worker in the background, again with a backoff per corpus until it is
served.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import weakref
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from toolret.backoff import Backoff
from toolret.catalog import Catalog
from toolret.embedders.base import Embedder, Vector
from toolret.embedders.cache import with_query_cache
from toolret.embedders.guard import warm_up_quietly
from toolret.errors import (
    ClientStateError,
    ConfigurationError,
    EmbedderError,
    EmbedderUnavailableError,
    NotIndexedError,
)
from toolret.hybrid import rank_hybrid
from toolret.indexing import IndexReport, Progress, index_catalog
from toolret.lexical import catalog_index
from toolret.metrics import record_selection, record_step, tracer
from toolret.profile import profile_of
from toolret.selection import (
    MAX_DISCOVERED_TOOLS,
    TIE_SLACK,
    FailOpenLog,
    Ranking,
    Selection,
    SelectionPolicy,
    discover,
    select_guarded,
)
from toolret.settings import RetrievalMode, Settings, make_embedder, retrieval_mode
from toolret.store.sql import EXACT_LIMIT, CatalogQuery
from toolret.store.vector_store import VectorStore
from toolret.tool import Tool

if TYPE_CHECKING:  # imported where used: Redis and arq are optional
    from toolret.feedback.sender import FeedbackSender
    from toolret.queue import ReindexQueue

__all__ = ["ToolRetrievalClient"]

log = logging.getLogger("toolret.selection")

ENQUEUE_GRACE = 1.0
"""Seconds ``aclose`` lets in-flight reindex requests finish before cancelling them."""
ENQUEUE_TIMEOUT = 5.0
"""Seconds one reindex request may take (a Redis that accepts connections but never answers)."""
REASK_AFTER = 5.0
"""Seconds before the client asks the worker again to index a corpus that is still not served;
the wait doubles after each ask, up to ``REASK_AT_MOST``."""
REASK_AT_MOST = 300.0
"""The longest wait between two asks for the same corpus."""
POOL_SHARE = 0.25
"""Of the time budget, how long a selection may wait for a pooled connection."""
STATEMENT_SHARE = 0.5
"""Of the time budget, how long the server lets the ranking statement run (``statement_timeout``).

The budget covers the query embedding, the pool checkout and the statement. The last two take
three quarters at most, so whenever the embedding is done within the first quarter (10–30 ms
normally) a stuck statement is cancelled by the server before the client's deadline: the
connection survives, and the selection falls open with ``timeout``. Later than that, the
client's deadline comes first and the connection, abandoned mid-query, is thrown away."""


class ToolRetrievalClient:
    """Selects tools for a message from vectors in Postgres/pgvector.

    ``database_url`` defaults to ``TOOLRET_DATABASE_URL``, else ``DATABASE_URL``; ``embedder`` to
    the one the environment configures (Gemini with a key, else the bundled model); ``mode``, ``k``,
    ``time_budget`` (seconds) and ``redis_url`` to ``TOOLRET_MODE`` (``hybrid``:
    ``toolret.hybrid``), ``TOOLRET_K``, ``TOOLRET_TIME_BUDGET_MS`` and ``REDIS_URL``. Pass ``store``
    to share a ``VectorStore`` (the client then leaves it open). The pool's checkout timeout
    defaults to a quarter of the time budget (``POOL_SHARE``) and the server-side statement timeout
    to half of it (``STATEMENT_SHARE``): a stuck pool fails open with ``store_error``, and a stuck
    query is cancelled by the server, keeping its connection, before the budget runs out.
    ``reindex_backoff`` spaces the requests to index an unserved corpus (default: ``REASK_AFTER``,
    doubling up to ``REASK_AT_MOST``, per corpus, reset once it is served).

    A client is used by one event loop. It opens on first use or ``async with``, which also warms
    the embedder up (loads the bundled model), so the first selection is not the one that pays for
    it; a warm-up that fails is logged and never raised. After ``aclose()`` it cannot be reopened
    (``ClientStateError``) and ``select`` sends the full roster.
    """

    def __init__(
        self,
        database_url: str | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        mode: RetrievalMode | None = None,
        k: int | None = None,
        time_budget: float | None = None,
        redis_url: str | None = None,
        store: VectorStore | None = None,
        pool_size: int = 5,
        max_overflow: int = 5,
        pool_timeout: float | None = None,
        statement_timeout: float | None = None,
        exact_limit: int = EXACT_LIMIT,
        reindex_backoff: Backoff | None = None,
    ) -> None:
        settings = settings or Settings()
        self.mode: RetrievalMode = retrieval_mode(settings.mode if mode is None else mode)
        self.k = settings.k if k is None else k
        self.time_budget = settings.time_budget if time_budget is None else time_budget
        self.redis_url = redis_url or settings.redis_url
        self._settings = settings
        if store is None:
            url = database_url or settings.database_url
            if not url:
                raise ConfigurationError(
                    "ToolRetrievalClient needs a database: pass database_url or set DATABASE_URL "
                    "(locally, toolret.store.embedded.local_database_url() starts one)"
                )
            store = VectorStore.from_url(
                url,
                pool_size=pool_size,
                max_overflow=max_overflow,
                pool_timeout=self.time_budget * POOL_SHARE
                if pool_timeout is None
                else pool_timeout,
                statement_timeout=self.time_budget * STATEMENT_SHARE
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
        self._queue: ReindexQueue | None = None
        self._reindex_backoff = reindex_backoff or Backoff(REASK_AFTER, REASK_AT_MOST)
        self._fail_open_log = FailOpenLog()
        self._feedback: FeedbackSender | None = None
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
        await warm_up_quietly(lambda: self.embedder)
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

    async def flush(self) -> None:
        """Wait until every pending reindex request and buffered feedback report is sent (or
        given up on: Redis down).

        A service stopping gracefully calls it, under a timeout of its own, before ``aclose()``
        (which waits only briefly, ``ENQUEUE_GRACE``), so that nothing it accepted is lost.
        """
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._feedback is not None:
            await self._feedback.flush()

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
        if self._feedback is not None:
            await self._feedback.aclose()
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
        self,
        catalog: Catalog,
        message: str,
        *,
        resume: bool = False,
        k: int | None = None,
        stable: SelectionPolicy | None = None,
    ) -> Selection:
        """Core tools plus the best ``k`` for ``message``; the full roster on any failure.

        Never raises and never takes longer than the time budget. ``stable`` (a
        ``StableToolList``, one per conversation) sends the conversation's growing list
        instead, so the provider's prompt cache holds.
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
                stable=stable,
                fail_open_log=self._fail_open_log,
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
        if self.mode == "bm25":
            return Ranking(catalog_index(catalog).score_map(text))
        embedder = self.embedder
        query = self._query(catalog, embedder)
        vector = await self._embed(embedder, text)
        skip = frozenset(exclude)

        async def fetch(include: Sequence[str]) -> Ranking:  # the one statement, timed, traced
            started = time.perf_counter()
            try:
                with tracer.start_as_current_span("toolret.rank_sql") as span:
                    span.set_attribute("toolret.model_id", query.model_id)
                    span.set_attribute("toolret.corpus_hash", query.corpus_hash)
                    span.set_attribute("toolret.documents", query.documents)
                    result = await self.store.rank(
                        query, vector, limit=k + TIE_SLACK, exclude=skip, include=include
                    )
            except NotIndexedError:
                self._ask_worker(catalog, query.corpus_hash)
                raise
            finally:
                record_step("database", (time.perf_counter() - started) * 1000)
            if result.published:
                self._reindex_backoff.reset(query.corpus_hash)
            else:
                self._ask_worker(catalog, query.corpus_hash)
            return Ranking(result.scores, result.unranked)

        weight = profile_of(embedder).lexical_weight if self.mode == "hybrid" else None
        return await rank_hybrid(catalog, text, fetch, weight, k, skip)

    async def report_turn(
        self,
        catalog: Catalog,
        selection: Selection,
        transcript: Sequence[Any] | Iterable[str],
        *,
        message: str | None = None,
        learn: bool | None = None,
    ) -> bool:
        """Tell the worker what a turn needed against what ``selection`` bound; never raises.

        ``transcript`` is the turn's messages (OpenAI, Anthropic, LangChain) or the names of the
        tools the model called. Fire-and-forget through the worker's queue, with the query
        vector this client already computed (``toolret.feedback.sender``); nothing when
        ``REDIS_URL`` is unset. ``learn`` (default ``TOOLRET_LEARN``) opts this catalog into
        learned example vectors. True if the report was queued.
        """
        if self.redis_url is None or self._closed:
            return False
        try:
            if self._feedback is None:
                module = importlib.import_module("toolret.feedback.sender")
                self._feedback = module.FeedbackSender(self.redis_url)
            return self._feedback.report(
                catalog,
                selection,
                transcript,
                embedder=self.embedder,
                k=self.k,
                message=message,
                learn=self._settings.learn if learn is None else learn,
                keep_text=self._settings.feedback_text,
            )
        except Exception as error:  # feedback must never fail a turn
            log.warning("toolret: feedback not reported: %r", error)
            return False

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
        """Ask the worker to index this corpus, without waiting; again after the backoff if
        the corpus is still not served then."""
        if self.redis_url is None or self._closed:
            return
        if not self._reindex_backoff.due(corpus_hash):
            return
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

    async def _enqueue(self, queue: ReindexQueue, catalog: Catalog, corpus_hash: str) -> None:
        embedder = self._raw_embedder
        assert embedder is not None
        try:
            async with asyncio.timeout(ENQUEUE_TIMEOUT):
                queued = await queue.enqueue(catalog, embedder)
        except Exception as error:
            log.warning(
                "toolret: asking the worker to index %s… failed (%r); asking again in %.0f s "
                "if it is still not served",
                corpus_hash[:12],
                error,
                self._reindex_backoff.retry_in(corpus_hash) or 0.0,
            )
            return
        log.info(
            "toolret: %s the worker to index corpus %s…",
            "asked" if queued else "already asked",
            corpus_hash[:12],
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<ToolRetrievalClient {self.store!r} {self.mode} k={self.k} {state}>"
