"""The worker's work: write vectors, hold the indexing lock, register and publish corpora.

What the worker's database role does (the application's role never writes); maintenance
statements in short transactions without the request path's statement timeout.
``VectorStore`` combines it with the read path and the operator's part.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager

import asyncpg
import numpy as np
from pgvector.asyncpg import register_vector
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from toolret.errors import StoreError, StoreUnavailableError
from toolret.store import corpus_sql
from toolret.store.pool import (
    CONNECT_FIX,
    DISCONNECTS,
    StorePool,
    lock_key,
    rowcount,
    unreachable,
    xact_lock,
)
from toolret.store.schema import HNSW_MAX_DIMENSION, hnsw_index_name, hnsw_index_sql
from toolret.store.types import CorpusIncompleteError, VectorRow

__all__ = ["ANALYZE_FROM", "GC_LOCK", "StoreWrites"]

ANALYZE_FROM = 1000
"""Publishing a corpus of at least this many documents refreshes the tables' statistics."""
GC_LOCK = 7_302_519_884_113_021_002
"""Advisory lock key: garbage collection takes it exclusively, writers of references shared."""


class StoreWrites(StorePool):
    """Writing, locking and publishing: the worker's part of ``VectorStore``."""

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
        async with self.transaction() as connection:
            await xact_lock(connection, "index", model_id)
            await connection.execute(
                text("SELECT set_config('maintenance_work_mem', :memory, true)"),
                {"memory": maintenance_work_mem},
            )
            created = await connection.execute(
                text("SELECT to_regclass(:name) IS NULL"), {"name": name}
            )
            if created.scalar():
                await connection.execute(text(hnsw_index_sql(model_id, dimension)))
                await connection.execute(
                    text(corpus_sql.ANALYZE_SERVED)
                )  # the expression's statistics
        self._indexed_models.add((model_id, dimension))
        return name

    async def missing(self, model_id: str, keys: Collection[str]) -> set[str]:
        """The keys among ``keys`` that have no vector for this model, served or pending."""
        if not keys:
            return set()
        async with self._connection("looking up vectors") as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            rows = await connection.fetch(corpus_sql.MISSING, list(keys), model_id)
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
                "SELECT pg_advisory_xact_lock($1)", lock_key("write", model_id)
            )
            absent = await connection.fetch(corpus_sql.MISSING, [row.key for row in rows], model_id)
            wanted = {record[0] for record in absent}
            fresh = list({row.key: row for row in rows if row.key in wanted}.values())
            if fresh:
                await register_vector(connection)
                await connection.copy_records_to_table(
                    "toolret_pending_vectors",
                    columns=corpus_sql.PENDING_COLUMNS,
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
        async with self.transaction() as connection:
            _, published = await self._register(connection, model_id, corpus_hash, documents)
            return published

    async def touch(self, model_id: str, corpus_hash: str) -> bool:
        """Record that a known corpus was seen now; False if it is not known."""
        async with self.transaction() as connection:
            result = await connection.execute(
                text(corpus_sql.TOUCH), {"model": model_id, "corpus": corpus_hash}
            )
            return result.first() is not None

    async def is_published(self, model_id: str, corpus_hash: str) -> bool:
        """Whether the corpus is complete and served."""
        async with self.transaction() as connection:
            result = await connection.execute(
                text(corpus_sql.IS_PUBLISHED), {"model": model_id, "corpus": corpus_hash}
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
        async with self.transaction() as connection:
            await xact_lock(connection, "publish", model_id)
            corpus_id, published = await self._register(
                connection, model_id, corpus_hash, documents
            )
            if published:
                return False
            if len(documents) >= ANALYZE_FROM:
                # Bulk writes leave the planner's statistics behind (an "empty" table turns
                # the checks below into nested scans): refresh them first.
                await connection.execute(text(corpus_sql.ANALYZE_PENDING))
            where = {"id": corpus_id, "model": model_id}
            absent = [
                row[0]
                for row in await connection.execute(text(corpus_sql.ABSENT_FROM_CORPUS), where)
            ]
            if absent:
                raise CorpusIncompleteError(
                    f"corpus {corpus_hash[:12]}… of {model_id} cannot be published: "
                    f"documents {', '.join(key[:12] for key in absent)}… have no vector",
                    missing=absent,
                )
            moved = await connection.execute(text(corpus_sql.MOVE_PENDING), where)
            if rowcount(moved) >= ANALYZE_FROM:
                # Or the ranking query is planned for a model with no rows: an exact sort of
                # 40,000 rows (150 ms) instead of the HNSW index (1.5 ms), measured.
                await connection.execute(text(corpus_sql.ANALYZE_SERVED))
            await connection.execute(text(corpus_sql.MARK_PUBLISHED), {"id": corpus_id})
            return True

    @asynccontextmanager
    async def lock(self, model_id: str, corpus_hash: str) -> AsyncIterator[None]:
        """Hold the advisory lock of (model, corpus): one indexer per corpus across machines.

        Waits as long as another holder runs. The lock lives on a connection of its own,
        outside the pool (it never takes a request's slot), closed afterwards: no pooled
        connection can ever keep the lock, and a crashed holder releases it.
        """
        key = lock_key("corpus", model_id, corpus_hash)
        _, parameters = self.engine.dialect.create_connect_args(self.engine.url)
        try:
            connection = await asyncpg.connect(**parameters, timeout=self._connect_timeout)
        except (asyncpg.PostgresError, *DISCONNECTS, TimeoutError) as error:
            kind = StoreUnavailableError if unreachable(error) else StoreError
            raise kind(f"cannot connect to the database ({error!r}): {CONNECT_FIX}") from error
        try:
            await connection.execute("SET statement_timeout = 0")
            await connection.execute("SELECT pg_advisory_lock($1)", key)
        except BaseException as error:
            connection.terminate()
            if isinstance(error, DISCONNECTS):
                raise StoreUnavailableError(f"cannot take the indexing lock: {error}") from error
            if isinstance(error, asyncpg.PostgresError):
                raise StoreError(f"cannot take the indexing lock: {error}") from error
            raise
        try:
            yield
        finally:
            connection.terminate()  # ending the session releases the lock

    @staticmethod
    async def _xact_lock(connection: AsyncConnection, *parts: str) -> None:
        await connection.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(*parts)}
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
            text(corpus_sql.UPSERT_CORPUS),
            {"model": model_id, "corpus": corpus_hash, "documents": len(pairs)},
        )
        corpus_id, published, count, inserted = result.one()
        if inserted and pairs:
            await connection.execute(
                text(corpus_sql.INSERT_MEMBERSHIP),
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
