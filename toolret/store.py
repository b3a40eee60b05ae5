"""The pgvector store: content-addressed vectors, atomically published corpora, the ranking query.

One ``VectorStore`` wraps one SQLAlchemy ``AsyncEngine`` (asyncpg) and its connection pool.
Corpus bookkeeping goes through SQLAlchemy Core in short transactions; vectors are written by
binary ``COPY``; the request path (``rank``) runs one prepared statement on the raw asyncpg
connection of a pooled connection: 1.3 ms where SQLAlchemy Core takes 1.8 ms for the same
statement on the 44-tool roster, and a bare ``SELECT 1`` takes 0.12 ms
(``python -m evals.bench_select``). Statements are in ``toolret.store_sql``.

Every operation raises ``StoreError`` (``NotIndexedError`` when a catalog has nothing
published, ``TimeoutError`` on a statement timeout); the client turns them into the full roster.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import numpy as np
from pgvector.asyncpg import register_vector
from sqlalchemy import event, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from toolret import store_sql as sql
from toolret.embedders.base import Vector
from toolret.errors import NotIndexedError, StoreError
from toolret.schema import HNSW_MAX_DIMENSION, hnsw_index_name, hnsw_index_sql
from toolret.store_sql import EXACT_LIMIT, CatalogQuery, exact_sql, hnsw_sql
from toolret.store_types import (
    CorpusIncompleteError,
    GCReport,
    ModelStatus,
    StoreRanking,
    StoreStatus,
    VectorRow,
    asyncpg_url,
)

__all__ = [
    "EXACT_LIMIT",
    "CatalogQuery",
    "CorpusIncompleteError",
    "GCReport",
    "ModelStatus",
    "StoreRanking",
    "StoreStatus",
    "VectorRow",
    "VectorStore",
    "asyncpg_url",
]

log = logging.getLogger("toolret")

ANALYZE_FROM = 1000
"""Publishing a corpus of at least this many documents refreshes the tables' statistics."""
GC_LOCK = 7_302_519_884_113_021_002
"""Advisory lock key: garbage collection takes it exclusively, writers of references shared."""
DEFAULT_EF_SEARCH = 100
"""``hnsw.ef_search``: candidates an HNSW scan keeps (recall@12 0.99 at 10,000 tools)."""
_DISCONNECTS = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.AdminShutdownError,
    asyncpg.CannotConnectNowError,
    OSError,
)


class VectorStore:
    """Vectors, corpora and the ranking query over one Postgres database with pgvector.

    Create it with ``VectorStore.from_url(url)`` (it then owns its engine) or around an
    ``AsyncEngine`` you manage. ``statement_timeout`` (seconds) bounds every request-path
    statement on the server; maintenance statements run without it. Catalogs of up to
    ``exact_limit`` candidate documents are ranked exactly; larger ones through HNSW with
    ``ef_search`` candidates per scan.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        exact_limit: int = EXACT_LIMIT,
        ef_search: int = DEFAULT_EF_SEARCH,
        statement_timeout: float | None = None,
        connect_timeout: float = 5.0,
        owns_engine: bool = False,
    ) -> None:
        self.engine = engine
        self._connect_timeout = connect_timeout
        self.exact_limit = exact_limit
        self._owns_engine = owns_engine
        self._closed = False
        timeout_ms = None if statement_timeout is None else max(1, round(statement_timeout * 1000))
        self._session_sql = "; ".join(
            [
                "SET jit = off",
                f"SET hnsw.ef_search = {int(ef_search)}",
                "SET hnsw.iterative_scan = relaxed_order",
                f"SET statement_timeout = {timeout_ms or 0}",
            ]
        )
        self._indexed_models: set[tuple[str, int]] = set()
        event.listen(engine.sync_engine, "connect", self._on_connect)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        pool_size: int = 5,
        max_overflow: int = 5,
        pool_timeout: float = 2.0,
        connect_timeout: float = 5.0,
        exact_limit: int = EXACT_LIMIT,
        ef_search: int = DEFAULT_EF_SEARCH,
        statement_timeout: float | None = None,
        **engine_options: Any,
    ) -> VectorStore:
        """A store with its own connection pool on ``url`` (any ``postgresql://`` URL).

        ``pool_timeout`` is how long a caller waits for a pooled connection before the pool
        counts as exhausted; ``connect_timeout`` bounds opening a new connection.
        """
        engine = create_async_engine(
            asyncpg_url(url),
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_timeout=pool_timeout,
            connect_args={"timeout": connect_timeout},
            **engine_options,
        )
        return cls(
            engine,
            exact_limit=exact_limit,
            ef_search=ef_search,
            statement_timeout=statement_timeout,
            connect_timeout=connect_timeout,
            owns_engine=True,
        )

    async def aclose(self) -> None:
        """Close the pool (if this store created it). Idempotent."""
        if self._closed:
            return
        self._closed = True
        event.remove(self.engine.sync_engine, "connect", self._on_connect)
        if self._owns_engine:
            await self.engine.dispose()

    async def __aenter__(self) -> VectorStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"VectorStore({self.engine.url.render_as_string(hide_password=True)!r})"

    # -- the request path -------------------------------------------------------------------

    async def rank(
        self,
        query: CatalogQuery,
        vector: Vector,
        *,
        limit: int,
        exclude: Collection[str] = (),
    ) -> StoreRanking:
        """Score the catalog's candidate tools for a query vector in one round trip.

        Returns at least ``limit`` ranked tools besides ``exclude`` (when the catalog has them)
        and every tool that could not be ranked. Raises ``NotIndexedError`` when no tool of the
        catalog has a published vector.
        """
        dimension = int(vector.shape[0])
        values = np.asarray(vector, dtype=np.float32)
        # Never ask an index scan for more tools than exist: it would search to exhaustion.
        limit = min(limit, len(query.candidates) - len(query.candidates.intersection(exclude)))
        if limit <= 0:
            return StoreRanking({}, (), published=True)
        async with self._connection("ranking query") as connection:
            if query.documents > self.exact_limit:
                statement = hnsw_sql(
                    query.model_id, dimension, limit, query.max_documents_per_tool, query.score
                )
                skip = sorted(query.core | set(exclude))
                rows = await connection.fetch(statement, values, query.corpus_hash, skip)
                if rows:
                    return StoreRanking({r[0]: 1.0 - r[1] for r in rows}, (), published=True)
            rows = await connection.fetch(
                exact_sql(query.model_id, dimension, query.score),
                values,
                query.tools,
                query.keys,
                limit + len(exclude),
                query.corpus_hash,
            )
        scores = {r[0]: 1.0 - r[1] for r in rows if r[1] is not None}
        if not scores:
            raise NotIndexedError(
                "no published vectors for this catalog yet",
                model_id=query.model_id,
                corpus_hash=query.corpus_hash,
            )
        unranked = tuple(r[0] for r in rows if r[1] is None)
        return StoreRanking(scores, unranked, published=bool(rows[0][2]))

    async def ping(self) -> None:
        """One ``SELECT 1`` round trip on a pooled connection (the benchmark's floor)."""
        async with self._connection("SELECT 1") as connection:
            await connection.fetchval("SELECT 1")

    @asynccontextmanager
    async def _connection(self, purpose: str) -> AsyncIterator[Any]:
        """A pooled connection's asyncpg driver connection; any failure invalidates it.

        Errors become ``StoreError`` (``TimeoutError`` for a statement timeout).
        """
        if self._closed:
            raise StoreError("this VectorStore is closed")
        try:
            proxied = await self.engine.raw_connection()
        except PoolTimeoutError as error:
            raise StoreError(f"connection pool exhausted: {error}") from error
        except (SQLAlchemyError, *_DISCONNECTS) as error:
            raise StoreError(f"cannot connect to the database: {error}") from error
        try:
            yield proxied.driver_connection
        except BaseException as error:
            proxied.invalidate()
            if isinstance(error, _DISCONNECTS):
                await self.engine.dispose(close=False)  # the server went away: drop idle ones
            if isinstance(error, asyncpg.QueryCanceledError):
                raise TimeoutError(f"statement timeout: {error}") from error
            if isinstance(error, (asyncpg.PostgresError, *_DISCONNECTS)):
                raise StoreError(f"{purpose} failed: {error}") from error
            raise
        else:
            proxied.close()

    def _on_connect(self, dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.run_async(self._prepare_session)

    async def _prepare_session(self, connection: Any) -> None:
        """Session settings for the ranking query, and pgvector's binary codec."""
        await connection.execute(self._session_sql)
        try:
            await register_vector(connection)
        except ValueError:  # no vector type yet: a database before its first migration
            log.debug("toolret: pgvector is not installed in this database yet")

    # -- indexing -------------------------------------------------------------------------------

    async def ensure_index(
        self, model_id: str, dimension: int, *, maintenance_work_mem: str = "512MB"
    ) -> str | None:
        """Create the model's partial HNSW index if it is missing; return its name.

        Indexing calls it after a model's first corpus is published, so the graph is built in
        bulk; building it over many rows needs memory (``maintenance_work_mem``, raised for
        this transaction only). None when the dimension is beyond what HNSW indexes: that
        model is ranked by exact scans only.
        """
        if dimension > HNSW_MAX_DIMENSION:
            return None
        name = hnsw_index_name(model_id)
        if (model_id, dimension) in self._indexed_models:
            return name
        async with self._transaction() as connection:
            await self._xact_lock(connection, "index", model_id)
            await connection.execute(
                text("SELECT set_config('maintenance_work_mem', :memory, true)"),
                {"memory": maintenance_work_mem},
            )
            created = await connection.execute(
                text("SELECT to_regclass(:name) IS NULL"), {"name": name}
            )
            if created.scalar():
                await connection.execute(text(hnsw_index_sql(model_id, dimension)))
                await connection.execute(text(sql.ANALYZE_SERVED))  # the expression's statistics
        self._indexed_models.add((model_id, dimension))
        return name

    async def missing(self, model_id: str, keys: Collection[str]) -> set[str]:
        """The keys among ``keys`` that have no vector for this model, served or pending."""
        if not keys:
            return set()
        async with self._connection("looking up vectors") as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            rows = await connection.fetch(sql.MISSING, list(keys), model_id)
            return {row[0] for row in rows}

    async def write(self, model_id: str, rows: Sequence[VectorRow]) -> int:
        """Store vectors in one transaction, pending until a corpus containing them is
        published. A key that already has a vector (served or pending) is left as it is.

        Returns how many rows were new. Rows travel by binary ``COPY`` (about 20 times faster
        than an INSERT of text-formatted vectors); concurrent writers of one model take turns.
        """
        if not rows:
            return 0
        async with self._connection("writing vectors") as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            await connection.execute(
                "SELECT pg_advisory_xact_lock($1)", _lock_key("write", model_id)
            )
            absent = await connection.fetch(sql.MISSING, [row.key for row in rows], model_id)
            wanted = {record[0] for record in absent}
            fresh = list({row.key: row for row in rows if row.key in wanted}.values())
            if fresh:
                await register_vector(connection)
                await connection.copy_records_to_table(
                    "toolret_pending_vectors",
                    columns=sql.PENDING_COLUMNS,
                    records=[
                        (
                            model_id,
                            row.key,
                            int(row.embedding.shape[0]),
                            np.asarray(row.embedding, dtype=np.float32),
                            row.role,
                            row.kind,
                            row.tool_name,
                            row.text,
                        )
                        for row in fresh
                    ],
                )
            return len(fresh)

    async def register(
        self, model_id: str, corpus_hash: str, documents: Sequence[tuple[str, str]]
    ) -> bool:
        """Record a corpus — its ``(tool name, document key)`` pairs, in order — and that it
        was seen now. Returns whether it is published."""
        async with self._transaction() as connection:
            _, published = await self._register(connection, model_id, corpus_hash, documents)
            return published

    async def touch(self, model_id: str, corpus_hash: str) -> bool:
        """Record that a known corpus was seen now; False if it is not known."""
        async with self._transaction() as connection:
            result = await connection.execute(
                text(sql.TOUCH), {"model": model_id, "corpus": corpus_hash}
            )
            return result.first() is not None

    async def is_published(self, model_id: str, corpus_hash: str) -> bool:
        """Whether the corpus is complete and served."""
        async with self._transaction() as connection:
            result = await connection.execute(
                text(sql.IS_PUBLISHED), {"model": model_id, "corpus": corpus_hash}
            )
            return bool(result.scalar())

    async def publish(
        self, model_id: str, corpus_hash: str, documents: Sequence[tuple[str, str]]
    ) -> bool:
        """Publish a corpus in one transaction: from its commit on, readers see all of it.

        Registers the corpus if needed; refuses (``CorpusIncompleteError``) if any document has
        no vector; moves its pending vectors into the served table. Returns False if it was
        already published.
        """
        async with self._transaction() as connection:
            await self._xact_lock(connection, "publish", model_id)
            corpus_id, published = await self._register(
                connection, model_id, corpus_hash, documents
            )
            if published:
                return False
            if len(documents) >= ANALYZE_FROM:
                # Bulk writes leave the planner's statistics behind (an "empty" table turns
                # the checks below into nested scans): refresh them first.
                await connection.execute(text(sql.ANALYZE_PENDING))
            where = {"id": corpus_id, "model": model_id}
            absent = [
                row[0] for row in await connection.execute(text(sql.ABSENT_FROM_CORPUS), where)
            ]
            if absent:
                raise CorpusIncompleteError(
                    f"corpus {corpus_hash[:12]}… of {model_id} cannot be published: "
                    f"documents {', '.join(key[:12] for key in absent)}… have no vector",
                    missing=absent,
                )
            moved = await connection.execute(text(sql.MOVE_PENDING), where)
            if _rowcount(moved) >= ANALYZE_FROM:
                # Or the ranking query is planned for a model with no rows: an exact sort of
                # 40,000 rows (150 ms) instead of the HNSW index (1.5 ms), measured.
                await connection.execute(text(sql.ANALYZE_SERVED))
            await connection.execute(text(sql.MARK_PUBLISHED), {"id": corpus_id})
            return True

    @asynccontextmanager
    async def lock(self, model_id: str, corpus_hash: str) -> AsyncIterator[None]:
        """Hold the advisory lock of (model, corpus): one indexer per corpus across machines.

        Waits as long as another holder runs. The lock lives on a connection of its own,
        outside the pool (it never takes a request's slot), closed afterwards: no pooled
        connection can ever keep the lock, and a crashed holder releases it.
        """
        key = _lock_key("corpus", model_id, corpus_hash)
        _, parameters = self.engine.dialect.create_connect_args(self.engine.url)
        try:
            connection = await asyncpg.connect(**parameters, timeout=self._connect_timeout)
        except (asyncpg.PostgresError, *_DISCONNECTS, TimeoutError) as error:
            raise StoreError(f"cannot connect to the database: {error}") from error
        try:
            await connection.execute("SET statement_timeout = 0")
            await connection.execute("SELECT pg_advisory_lock($1)", key)
        except BaseException as error:
            connection.terminate()
            if isinstance(error, (asyncpg.PostgresError, *_DISCONNECTS)):
                raise StoreError(f"cannot take the indexing lock: {error}") from error
            raise
        try:
            yield
        finally:
            connection.terminate()  # ending the session releases the lock

    async def gc(self, grace: timedelta, *, now: datetime | None = None) -> GCReport:
        """Delete corpora not seen within ``grace``, then vectors that no remaining corpus
        references and that are older than ``grace``.

        ``now`` (default: the database's clock) collects as of another time. Waits for
        publications and registrations in progress (they hold the lock shared).
        """
        async with self._transaction() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": GC_LOCK})
            clock = {"now": now, "grace": grace}
            corpora = await connection.execute(text(sql.GC_CORPORA), clock)
            removed = 0
            for table in ("toolret_vectors", "toolret_pending_vectors"):
                removed += _rowcount(await connection.execute(text(sql.gc_vectors(table)), clock))
            return GCReport(corpora=_rowcount(corpora), vectors=removed)

    async def status(self) -> StoreStatus:
        """The migration revision and, per model, rows, corpora and whether its index exists."""
        async with self._transaction() as connection:

            async def scalar(statement: str) -> Any:
                return (await connection.execute(text(statement))).scalar()

            revision = None
            if await scalar("SELECT to_regclass('toolret_alembic_version')"):
                revision = await scalar("SELECT version_num FROM toolret_alembic_version")
            if not await scalar("SELECT to_regclass('toolret_vectors')"):
                return StoreStatus(revision, ())
            rows = (await connection.execute(text(sql.STATUS_MODELS))).all()
            indexes = {row[0] for row in await connection.execute(text(sql.STATUS_INDEXES))}
        models = tuple(
            ModelStatus(
                model_id=row[0],
                dimension=row[1],
                vectors=row[2],
                pending_vectors=row[3],
                corpora=row[4],
                published_corpora=row[5],
                last_seen=row[6],
                index=hnsw_index_name(row[0]) if hnsw_index_name(row[0]) in indexes else None,
            )
            for row in rows
        )
        return StoreStatus(revision, models)

    # -- helpers --------------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        """A maintenance transaction: no statement timeout; errors become ``StoreError``."""
        if self._closed:
            raise StoreError("this VectorStore is closed")
        try:
            async with self.engine.begin() as connection:
                await connection.execute(text("SET LOCAL statement_timeout = 0"))
                yield connection
        except SQLAlchemyError as error:
            raise StoreError(f"database operation failed: {error}") from error
        except OSError as error:
            raise StoreError(f"cannot reach the database: {error}") from error

    @staticmethod
    async def _xact_lock(connection: AsyncConnection, *parts: str) -> None:
        await connection.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": _lock_key(*parts)}
        )

    async def _register(
        self,
        connection: AsyncConnection,
        model_id: str,
        corpus_hash: str,
        documents: Sequence[tuple[str, str]],
    ) -> tuple[int, bool]:
        # Shared with other writers, exclusive against garbage collection: a corpus recorded
        # (or seen) here keeps its vectors until this transaction commits.
        await connection.execute(
            text("SELECT pg_advisory_xact_lock_shared(:key)"), {"key": GC_LOCK}
        )
        pairs = list(dict.fromkeys((key, tool) for tool, key in documents))
        result = await connection.execute(
            text(sql.UPSERT_CORPUS),
            {"model": model_id, "corpus": corpus_hash, "documents": len(pairs)},
        )
        corpus_id, published, count, inserted = result.one()
        if inserted and pairs:
            await connection.execute(
                text(sql.INSERT_MEMBERSHIP),
                {
                    "id": corpus_id,
                    "keys": [key for key, _ in pairs],
                    "tools": [tool for _, tool in pairs],
                },
            )
        elif count != len(pairs):
            raise StoreError(
                f"corpus {corpus_hash[:12]}… of {model_id} is recorded with {count} documents, "
                f"not {len(pairs)}: two toolret versions hash catalogs differently"
            )
        return int(corpus_id), bool(published)


def _lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for a tuple of strings."""
    digest = hashlib.sha256("\x00".join(("toolret", *parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0) or 0)
