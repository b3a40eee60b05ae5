"""``ToolRetrievalClient``: the async client agent services call before each model call.

    async with ToolRetrievalClient(database_url) as client:    # embedder from settings
        sel = await client.select(catalog, message)               # Selection, never raises
        more = await client.find_tools(catalog, "attach a file to a task", bound=sel.names)
        await client.index(catalog)                                # embed what is missing, inline

A selection costs one query embedding (cached per text: a ReAct loop pays once) and one SQL round
trip on a pooled connection, which in hybrid mode (the default) also scores the tools sharing the
message's words, ranked by BM25 in process (``toolret.retrieval._hybrid``). The counts of tools
used together are read beside it once a minute per catalog (``toolret.retrieval._companions``).
Any failure sends the full roster, with the reason, within the time budget
(``toolret.retrieval._base.Retriever``); the database, like the embedder, has a breaker
(``toolret.retrieval._breaker``): while it is known to be down, selections fall open at once. A
corpus not published yet is asked of the worker in the background, again with a backoff per
corpus until it is served.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING, Any, Self, TypeVar, Unpack

from toolret._catalog import Catalog
from toolret._profile import RetrievalProfile, profile_of
from toolret._settings import Settings
from toolret.embedders._base import Embedder, Vector
from toolret.embedders._sparse import sparse_head_of
from toolret.errors import (
    ClientStateError,
    ConfigurationError,
    EmbedderError,
    NotIndexedError,
    StoreError,
)
from toolret.indexing._asks import WorkerAsks
from toolret.indexing._backoff import Backoff
from toolret.indexing._run import IndexReport, Progress, index_catalog
from toolret.indexing._unserved import Unserved
from toolret.retrieval._base import Retriever, RetrieverOptions
from toolret.retrieval._breaker import breaker_for, waiting_on
from toolret.retrieval._centred_rank import Centrings, rank_centred
from toolret.retrieval._companions import NO_COMPANIONS, REFRESH_SECONDS, CompanionCache, Companions
from toolret.retrieval._hybrid import rank_hybrid
from toolret.retrieval._lexical import hybrid_weight
from toolret.retrieval._metrics import record_step, span
from toolret.retrieval._overlap import together
from toolret.retrieval._reuse import RecentRankings
from toolret.retrieval._selection import TIE_SLACK, Ranking, Selection
from toolret.retrieval._signals import ScoreParts
from toolret.retrieval._sparse import sparse_in_use, sparse_query_within, sparse_weight
from toolret.retrieval._transcript import reported_message
from toolret.store._read import SparseQuery
from toolret.store._sql import EXACT_LIMIT, CatalogQuery
from toolret.store._vector_store import VectorStore

if TYPE_CHECKING:  # imported where used: Redis and arq are optional
    from toolret.feedback._sender import FeedbackSender

__all__ = ["ToolRetrievalClient"]

log = logging.getLogger("toolret.selection")
T = TypeVar("T")

POOL_SHARE = 0.25
"""Of the time budget, how long a selection may wait for a pooled connection."""
STATEMENT_SHARE = 0.5
"""Of the time budget, how long the server lets the ranking statement run (``statement_timeout``).

The budget covers the query embedding, the pool checkout and the statement. The last two take
three quarters at most, so whenever the embedding is done within the first quarter (as a
query embedding normally is) a stuck statement is cancelled by the server before the
client's deadline: the connection survives, and the selection falls open with ``timeout``.
Later than that, the client's deadline comes first and the connection, abandoned mid-query, is
thrown away."""


class ToolRetrievalClient(Retriever):
    """Selects tools for a message from vectors in Postgres/pgvector.

    ``database_url`` defaults to ``TOOLRET_DATABASE_URL``, else ``DATABASE_URL``; ``embedder``,
    ``mode`` (``hybrid``: ``toolret.retrieval._hybrid``), ``k``, ``time_budget`` and ``reuse``
    as every ``Retriever``'s; ``redis_url`` to ``REDIS_URL``. Pass ``store`` to share a
    ``VectorStore`` (the client then leaves it open). The pool's checkout timeout defaults to a
    quarter of the time budget (``POOL_SHARE``) and the server-side statement timeout to half of
    it (``STATEMENT_SHARE``): a stuck pool fails open with ``store_error``, and a stuck query is
    cancelled by the server, keeping its connection, before the budget runs out.
    ``reindex_backoff`` spaces the requests to index an unserved corpus (default:
    ``toolret.indexing._asks.REASK_AFTER``, doubling up to ``REASK_AT_MOST``, per corpus, reset
    once it is served); with no worker (no ``REDIS_URL``) an unserved corpus is said once, at
    WARNING, and indexed by this client in the background unless ``index_unserved=False``
    (``toolret.indexing._unserved``; ``toolret serve`` indexes on its own). ``reuse`` also
    covers the ranking behind ``find_tools``: the rounds of one turn cost no query
    (``toolret.retrieval._reuse``). ``companion_refresh``: seconds the
    counts of tools used together are used before they are read again.

    A client opens on first use or ``async with``; after ``aclose()`` it cannot be reopened
    (``ClientStateError``) and ``select`` sends the full roster.
    """

    def __init__(
        self,
        database_url: str | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        redis_url: str | None = None,
        store: VectorStore | None = None,
        pool_size: int = 5,
        max_overflow: int = 5,
        pool_timeout: float | None = None,
        statement_timeout: float | None = None,
        exact_limit: int = EXACT_LIMIT,
        reindex_backoff: Backoff | None = None,
        companion_refresh: float = REFRESH_SECONDS,
        index_unserved: bool = True,
        **options: Unpack[RetrieverOptions],
    ) -> None:
        super().__init__(embedder=embedder, settings=settings, **options)
        settings = self._settings
        self.redis_url = redis_url or settings.redis_url
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
        self.store_name = store.engine.url.render_as_string(hide_password=True)
        self._rankings = RecentRankings(self._selections.seconds)
        self._queries: weakref.WeakKeyDictionary[Catalog, CatalogQuery] = (
            weakref.WeakKeyDictionary()
        )
        self._asks = WorkerAsks(self.redis_url, reindex_backoff)
        self._centrings = Centrings(store)
        self._unserved = Unserved(self._index_unserved) if index_unserved else None
        self._feedback: FeedbackSender | None = None
        self._opening: asyncio.Task[None] | None = None
        self._companion_cache = CompanionCache(
            self._read_companions, wait=self.time_budget * POOL_SHARE, refresh=companion_refresh
        )

    # -- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        """``Retriever.__aenter__``, and the pool's first connection opened beside the
        embedder's warm-up: the first selection need not spend its budget connecting (a loaded
        host takes a second)."""
        await super().__aenter__()
        self._opening = asyncio.ensure_future(self._first_connection())
        return self

    async def _first_connection(self) -> None:
        try:
            await self.store.ping()
        except (StoreError, TimeoutError) as error:  # the first selection's to meet
            log.debug("toolret: opening the store's first connection failed: %s", error)

    async def warm_up(self) -> None:
        """``Retriever.warm_up``, and the store's first connection opened (never raised)."""
        await super().warm_up()
        if self._opening is not None:
            await asyncio.shield(self._opening)

    async def flush(self) -> None:
        """Wait until every pending reindex request and buffered feedback report is sent (or
        given up on: Redis down).

        A service stopping gracefully calls it, under a timeout of its own, before ``aclose()``
        (which waits only briefly, ``toolret.indexing._asks.ENQUEUE_GRACE``), so that nothing it
        accepted is lost.
        """
        await self._asks.flush()
        if self._unserved is not None:  # and the corpora indexed here for want of a worker
            await self._unserved.wait()
        if self._feedback is not None:
            await self._feedback.flush()

    async def _release(self) -> None:
        """Let pending reindex requests finish (briefly), close the queue, the feedback
        sender, and the pool if this client created it."""
        if self._opening is not None:
            self._opening.cancel()
        await self._asks.aclose()
        if self._unserved is not None:
            await self._unserved.aclose()
        await self._companion_cache.aclose()
        if self._feedback is not None:
            await self._feedback.aclose()
        if self._owns_store:
            await self.store.aclose()

    # -- the ranking ------------------------------------------------------------------------

    async def _rank(self, catalog: Catalog, text: str, k: int, exclude: frozenset[str]) -> Ranking:
        """One embedding and one query, unless a ranking kept from earlier in the turn answers
        it; raises ``EmbedderError``, ``StoreError``/``NotIndexedError`` or ``TimeoutError``."""
        embedder = self.embedder
        query = self._query(catalog, embedder)
        kept = (query.model_id, query.corpus_hash, query.score, self.mode, catalog.allowed)
        reused = self._rankings.get(kept, text, k, exclude)
        if reused is not None:
            return reused
        profile = profile_of(embedder)
        if sparse_head_of(embedder) is None or not sparse_in_use(catalog, profile):
            # one pass (the sparse one could only return None): no tasks to overlap it with
            vector, sparse = await self._embed(embedder, text), None
        else:
            vector, sparse = await together(  # the passes overlap: toolret.retrieval._overlap
                self._embed(embedder, text), self._sparse_query(catalog, embedder, text, profile)
            )
        complete = True

        async def fetch(include: Sequence[str]) -> Ranking:  # the one statement, timed, traced
            nonlocal complete
            started = time.perf_counter()
            try:
                with span("toolret.rank_sql") as traced:
                    traced.set_attribute("toolret.model_id", query.model_id)
                    traced.set_attribute("toolret.corpus_hash", query.corpus_hash)
                    traced.set_attribute("toolret.documents", query.documents)
                    with self._calling_store():
                        centring = (
                            await self._centrings.get(catalog, embedder, query)
                            if self._settings.centring
                            else None
                        )
                        ranked = (
                            partial(self.store.rank, query, vector)
                            if centring is None or not centring.applies_to(text)
                            else partial(rank_centred, self.store, query, centring, vector)
                        )
                        result = await ranked(
                            limit=k + TIE_SLACK, exclude=exclude, include=include, sparse=sparse
                        )
            except NotIndexedError:
                self._ask_worker(catalog, query.corpus_hash)
                raise
            finally:
                record_step("database", (time.perf_counter() - started) * 1000)
            served = result.published and not result.unranked and result.sparse_ready
            if served:
                self._asks.served(query.corpus_hash)
            else:  # tools without vectors, or a corpus without sparse ones: the worker adds them
                self._ask_worker(catalog, query.corpus_hash)
            complete = complete and served
            weight = sparse.weight if sparse is not None and result.sparse_ready else 0.0
            parts = ScoreParts(result.scores, result.sparse, weight)
            return Ranking(parts.base(), result.unranked, parts=parts)

        weight = hybrid_weight(catalog, text, profile) if self.mode == "hybrid" else None
        depth = k + TIE_SLACK  # exact this deep, as the statement's dense list: reuse relies on it
        ranking = await rank_hybrid(catalog, text, fetch, weight, depth, exclude)
        if complete:
            self._rankings.keep(
                kept, text, exclude, ranking, depth=depth, candidates=query.candidates
            )
        return ranking

    async def _stored_companions(self, catalog: Catalog) -> Companions:
        """The counts of the catalog's tools used together, as last read (``CompanionCache``);
        none when ``TOOLRET_COMPANIONS=0``."""
        if not self._settings.companions or self._closed:
            return NO_COMPANIONS
        return await self._companion_cache.get(catalog)

    def _companions_at_hand(self, catalog: Catalog) -> Companions | None:
        if self._companions is not None:
            return self._companions
        if not self._settings.companions or self._closed:
            return NO_COMPANIONS
        return self._companion_cache.fresh(catalog)

    async def _read_companions(self, catalog: Catalog) -> Companions:
        with self._calling_store():
            turns, pairs = await self.store.companion_counts(catalog.names)
        return Companions.from_counts(turns, pairs)

    async def report_turn(
        self,
        catalog: Catalog,
        selection: Selection,
        transcript: Sequence[Any] | Iterable[str],
        *,
        message: str | None = None,
        learn: bool | None = None,
        k: int | None = None,
    ) -> bool:
        """Tell the worker what a turn needed against what ``selection`` bound; never raises.

        ``transcript`` is the turn's messages (OpenAI, Anthropic, LangChain) or the names of the
        tools the model called. Fire-and-forget through the worker's queue, with the query
        vector this client already computed (``toolret.feedback._sender``); nothing when
        ``REDIS_URL`` is unset. ``learn`` (default ``TOOLRET_LEARN``) opts this catalog into
        learned example vectors; ``k`` is how many tools ``selection`` ranked (default this
        client's; find_tools answers rank five). True if the report was queued. It also ends
        the turn: the message asked again afterwards is ranked afresh
        (``toolret.retrieval._reuse``).
        """
        try:
            items = list(transcript)
            text = reported_message(items, message)
            if text:
                self._forget(text)
            if self.redis_url is None or self._closed:
                return False
            return self._sender().report(
                catalog,
                selection,
                items,
                embedder=self.embedder,
                k=self.k if k is None else k,
                message=text,
                learn=self._settings.learn if learn is None else learn,
                keep_text=self._settings.feedback_text,
                companions=self._settings.companions,
            )
        except Exception as error:  # feedback must never fail a turn
            log.warning("toolret: feedback not reported: %r", error)
            return False

    def report_calls(self, tools: Iterable[str]) -> bool:
        """Tell the worker that one turn called ``tools`` (names) together, where there is no
        turn to ``report_turn`` (the gateway sees only calls); never raises. Nothing without
        ``REDIS_URL`` or with ``TOOLRET_COMPANIONS=0``. True if the report was queued."""
        try:
            if self.redis_url is None or self._closed or not self._settings.companions:
                return False
            return self._sender().submit_calls(list(tools))
        except Exception as error:  # feedback must never fail a call
            log.warning("toolret: calls not reported: %r", error)
            return False

    def _sender(self) -> FeedbackSender:
        if self._feedback is None:
            assert self.redis_url is not None
            module = importlib.import_module("toolret.feedback._sender")
            self._feedback = module.FeedbackSender(self.redis_url)
        return self._feedback

    async def index(self, catalog: Catalog, *, progress: Progress | None = None) -> IndexReport:
        """Embed the catalog's missing documents now, inline, and publish its corpus (for a
        cut, ``Catalog.only``, the corpus of the catalog it was cut from)."""
        if self._closed:
            raise ClientStateError("this ToolRetrievalClient is closed")
        self.embedder  # noqa: B018 - creates the embedder from settings if needed
        assert self._raw_embedder is not None
        return await index_catalog(self.store, self._raw_embedder, catalog.whole, progress=progress)

    # -- helpers --------------------------------------------------------------------------------

    def _query(self, catalog: Catalog, embedder: Embedder) -> CatalogQuery:
        query = self._queries.get(catalog)
        if query is None or query.model_id != embedder.model_id:
            query = CatalogQuery.build(
                catalog, embedder.model_id, embedder.example_role, profile_of(embedder)
            )
            self._queries[catalog] = query
        return query

    async def _sparse_query(
        self, catalog: Catalog, embedder: Embedder, text: str, profile: RetrievalProfile
    ) -> SparseQuery | None:
        """The message's sparse vector and weight, when its profile gives it the signal: a
        second pass of the model (``toolret.retrieval._sparse``); else None."""
        head = sparse_head_of(embedder)
        weight = sparse_weight(catalog, text, profile) if head is not None else 0.0
        if head is None or weight <= 0:
            return None
        with self._calling_embedder():
            vector = await _embedding(
                "toolret.embed_sparse",
                "the query's sparse vector failed",
                lambda: sparse_query_within(embedder, text, profile, self.time_budget),
            )
        if vector is None:  # past its share of the budget: dense and BM25 alone
            return None
        return SparseQuery(vector, weight, head.key(profile.sparse_latents))

    async def _embed(self, embedder: Embedder, text: str) -> Vector:
        with self._calling_embedder():
            return await _embedding(
                "toolret.embed_query",
                "embedding the query failed",
                lambda: embedder.embed_query(text),
            )

    def _calling_store(self) -> AbstractContextManager[None]:
        """Around a request-path call to the database: fails at once while it is known down."""
        return waiting_on(breaker_for("store", self.store_name), self.store.ping)

    def _forget(self, message: str) -> None:
        """The turn has ended: its message is ranked afresh when asked again."""
        super()._forget(message)
        self._rankings.forget(message)

    def _ask_worker(self, catalog: Catalog, corpus_hash: str) -> None:
        if self._closed or self._raw_embedder is None:
            return
        if self.redis_url is None:  # no worker: say so, and index here (toolret.indexing._unserved)
            if self._unserved is not None:
                self._unserved.met(catalog, corpus_hash)
            return
        self._asks.ask(catalog.whole, self._raw_embedder, corpus_hash)

    def _index_unserved(self, catalog: Catalog, progress: Progress) -> Awaitable[IndexReport]:
        return self.index(catalog, progress=progress)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<ToolRetrievalClient {self.store!r} {self.mode} k={self.k} {state}>"


async def _embedding(name: str, failed: str, call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, one embedding of the request path: traced as ``name``, timed as its "embed"
    step, and any error but an EmbedderError, a cancellation or a timeout raised as an
    EmbedderError starting with ``failed``."""
    started = time.perf_counter()
    try:
        with span(name):
            return await call()
    except (EmbedderError, asyncio.CancelledError, TimeoutError):
        raise
    except Exception as error:
        raise EmbedderError(f"{failed}: {error!r}") from error
    finally:
        record_step("embed", (time.perf_counter() - started) * 1000)
