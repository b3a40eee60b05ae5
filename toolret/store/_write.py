"""The worker's work: write vectors, hold the indexing lock, register and publish corpora.

What the worker's database role does (the application's role never writes); maintenance
statements in short transactions without the request path's statement timeout.
``VectorStore`` combines it with the read path and the operator's part.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import numpy as np
from numpy.typing import NDArray
from pgvector.asyncpg import register_vector
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from toolret._profile import DEFAULT_PROFILE, ToolScore
from toolret.errors import StoreError, StoreUnavailableError
from toolret.store import _corpus_sql as corpus_sql
from toolret.store._pool import (
    CONNECT_FIX,
    DISCONNECTS,
    StorePool,
    lock_key,
    rowcount,
    unreachable,
    xact_lock,
)
from toolret.store._schema import (
    HNSW_MAX_DIMENSION,
    hnsw_index_name,
    hnsw_index_sql,
    summary_index_name,
    summary_index_sql,
)
from toolret.store._sql import COPY_LIMIT
from toolret.store._summaries import ToolSummary, score_tag, summarize
from toolret.store._types import CorpusIncompleteError, VectorRow

__all__ = ["ANALYZE_FROM", "GC_LOCK", "StoreWrites"]

ANALYZE_FROM = 1000
"""Publishing a corpus of at least this many documents refreshes the tables' statistics."""
GC_LOCK = 7_302_519_884_113_021_002
"""Advisory lock key: garbage collection takes it exclusively, writers of references shared."""


class StoreWrites(StorePool):
    """Writing, locking and publishing: the worker's part of ``VectorStore``."""

    async def ensure_index(
        self,
        model_id: str,
        dimension: int,
        *,
        maintenance_work_mem: str = "512MB",
        score: ToolScore = DEFAULT_PROFILE.score,
    ) -> str | None:
        """Create the model's partial HNSW index for ``score`` if it is missing; return its name.

        One index per model, of what its score scans: the summary vectors for a blended score
        (``summary_index_sql``), the documents for ``max`` (``hnsw_index_sql``). Indexing calls
        it after a model's first corpus is published, so the graph is built in bulk; building
        it over many rows needs memory (``maintenance_work_mem``, raised for this transaction
        only). None when the dimension is beyond what HNSW indexes: that model is ranked by
        exact scans only.
        """
        if dimension > HNSW_MAX_DIMENSION:
            return None
        if score.kind == "blend":
            name, statement = summary_index_name(model_id), summary_index_sql
            analyze = corpus_sql.ANALYZE_SUMMARIES
        else:
            name, statement = hnsw_index_name(model_id), hnsw_index_sql
            analyze = corpus_sql.ANALYZE_SERVED
        if (name, dimension) in self._indexed_models:
            return name
        async with self.transaction() as connection:
            await xact_lock(connection, "index", model_id)
            await connection.execute(
                text("SELECT set_config('maintenance_work_mem', :memory, true)"),
                {"memory": maintenance_work_mem},
            )
            absent = await connection.execute(
                text("SELECT to_regclass(:name) IS NULL"), {"name": name}
            )
            if absent.scalar():
                await connection.execute(text(statement(model_id, dimension)))
                await connection.execute(text(analyze))  # the expression's statistics
        self._indexed_models.add((name, dimension))
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

    async def write_summary_vectors(
        self, model_id: str, vectors: Sequence[tuple[str, NDArray[np.float32]]]
    ) -> int:
        """Store summary vectors ahead of publication (``SummaryBuilder``): content-addressed,
        and unreachable until a published corpus files them. Returns how many were new."""
        if not vectors:
            return 0
        async with self._connection("writing summaries") as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            await connection.execute("SELECT pg_advisory_xact_lock($1)", summary_lock(model_id))
            keys = [key for key, _ in vectors]
            absent = await connection.fetch(corpus_sql.MISSING_SUMMARIES, keys, model_id)
            wanted = {record[0] for record in absent}
            fresh = {key: vector for key, vector in vectors if key in wanted}
            if fresh:
                await register_vector(connection)
                await connection.copy_records_to_table(
                    "toolret_summary_vectors",
                    columns=corpus_sql.SUMMARY_COLUMNS,
                    records=[
                        (model_id, key, int(vector.shape[0]), vector)
                        for key, vector in fresh.items()
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

    async def is_published(self, model_id: str, corpus_hash: str) -> bool:
        """Whether the corpus is complete and served."""
        async with self.transaction() as connection:
            result = await connection.execute(
                text(corpus_sql.IS_PUBLISHED), {"model": model_id, "corpus": corpus_hash}
            )
            return bool(result.scalar())

    async def publish(
        self,
        model_id: str,
        corpus_hash: str,
        documents: Sequence[tuple[str, str]],
        *,
        score: ToolScore | None = None,
    ) -> bool:
        """Publish a corpus in one transaction: from its commit on, readers see all of it.

        Registers the corpus if needed; refuses (``CorpusIncompleteError``) if any document has
        no vector; moves its pending vectors into the served table; with a blended ``score``,
        writes its tools' summary vectors (``toolret.store._summaries``), so a large catalog is
        ranked through them from the first request; copies the vectors of a corpus of at most
        ``COPY_LIMIT`` documents into its own rows (``corpus_sql.COPY_VECTORS``), which its
        exact ranking reads in one scan; gives each tool whose description is unchanged the
        learned vectors it had (``corpus_sql.CARRY_LEARNED``). Returns False if it was already
        published.
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
                # the whole table instead of the HNSW index.
                await connection.execute(text(corpus_sql.ANALYZE_SERVED))
            if self.copies is None:  # a database before migration 0010 has no copies
                self.copies = bool(await connection.scalar(text(corpus_sql.HAS_COPIES)))
            if self.copies and len(set(documents)) <= COPY_LIMIT:  # ranked in one scan
                await connection.execute(text(corpus_sql.COPY_VECTORS), where)
            if score is not None and score.kind == "blend":
                await self._summarize(connection, model_id, corpus_id, score)
            carried = {**where, "corpus": corpus_hash}
            await connection.execute(text(corpus_sql.CARRY_LEARNED), carried)
            await connection.execute(text(corpus_sql.MARK_PUBLISHED), {"id": corpus_id})
            return True

    async def summarize(self, model_id: str, corpus_hash: str, score: ToolScore) -> int:
        """Write a published corpus's summary vectors under a blended ``score`` if it has none
        (a corpus published before toolret had them, or under another score). Returns how
        many vectors were new; 0 for an unknown or unpublished corpus, or a ``max`` score."""
        if score.kind != "blend":
            return 0
        async with self.transaction() as connection:
            await xact_lock(connection, "publish", model_id)
            result = await connection.execute(
                text(corpus_sql.PUBLISHED_ID), {"model": model_id, "corpus": corpus_hash}
            )
            corpus_id = result.scalar()
            if corpus_id is None:
                return 0
            return await self._summarize(connection, model_id, int(corpus_id), score)

    @staticmethod
    async def _summarize(
        connection: AsyncConnection, model_id: str, corpus_id: int, score: ToolScore
    ) -> int:
        raw = await connection.get_raw_connection()
        written = await write_summaries(raw.driver_connection, model_id, corpus_id, score)
        if written >= ANALYZE_FROM:
            await connection.execute(text(corpus_sql.ANALYZE_SUMMARIES))
        return written

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


_CHUNK = 2000
"""Tools whose document vectors are read and summarized at a time (bounded memory)."""


async def write_summaries(connection: Any, model_id: str, corpus_id: int, score: ToolScore) -> int:
    """File corpus ``corpus_id``'s summaries under ``score``: write the vectors not stored yet,
    then which belong to which tool. Returns how many vectors were new.

    Runs on the asyncpg connection of the caller's transaction, which holds the model's publish
    lock (two writers of one summary take turns). Reads the documents' kinds as stored, as the
    ranking statements do. A tool without examples is summarized by its description: a model
    with a blended score is searched through its summary vectors alone. Idempotent.
    """
    tag = score_tag(score)
    if await connection.fetchval(corpus_sql.HAS_SUMMARIES, corpus_id, tag):
        return 0
    await connection.execute("SELECT pg_advisory_xact_lock($1)", summary_lock(model_id))
    documents: dict[str, tuple[list[str], list[str]]] = {}
    for tool, key, kind in await connection.fetch(corpus_sql.CORPUS_KINDS, corpus_id, model_id):
        described, examples = documents.setdefault(tool, ([], []))
        (described if kind == "description" else examples).append(key)
    plans: dict[str, list[tuple[str, ToolSummary]]] = {}
    for tool, (described, examples) in documents.items():
        examples.sort()
        # a tool whose description is stored as another tool's example has none: no summary,
        # as the statements give it no score
        plans[tool] = [(key, summarize(key, examples, score)) for key in sorted(described)]
    keys = list({key for plan in plans.values() for _, summary in plan for key in summary.keys})
    missing = {
        row[0] for row in await connection.fetch(corpus_sql.MISSING_SUMMARIES, keys, model_id)
    }
    needed = [
        tool for tool, plan in plans.items() if any(missing.intersection(s.keys) for _, s in plan)
    ]
    written = 0
    for start in range(0, len(needed), _CHUNK):
        chunk = needed[start : start + _CHUNK]
        wanted = [key for tool in chunk for key in (*documents[tool][0], *documents[tool][1])]
        rows = await connection.fetch(corpus_sql.VECTORS_OF, model_id, wanted)
        vectors = {row[0]: _array(row[1]) for row in rows}
        records: dict[str, tuple[str, str, int, NDArray[np.float32]]] = {}
        for tool in chunk:
            example_vectors = [vectors[key] for key in documents[tool][1]]
            for description, summary in plans[tool]:
                weight = score.description_weight
                made = summary.vectors(vectors[description], example_vectors, weight)
                for key, vector in zip(summary.keys, made, strict=True):
                    if key in missing and key not in records:
                        records[key] = (model_id, key, int(vector.shape[0]), vector)
        await connection.copy_records_to_table(
            "toolret_summary_vectors",
            columns=corpus_sql.SUMMARY_COLUMNS,
            records=list(records.values()),
        )
        missing.difference_update(records)
        written += len(records)
    filed = {
        (key, tool): summary.exact
        for tool, plan in plans.items()
        for _, summary in plan
        for key in summary.keys
    }
    await connection.copy_records_to_table(
        "toolret_corpus_summaries",
        columns=corpus_sql.CORPUS_SUMMARY_COLUMNS,
        records=[(corpus_id, tag, key, tool, exact) for (key, tool), exact in filed.items()],
    )
    await connection.execute(corpus_sql.MARK_SUMMARIZED, corpus_id, tag)
    return written


def summary_lock(model_id: str) -> int:
    """The advisory lock writers of a model's summary vectors take in turn."""
    return lock_key("summaries", model_id)


def _array(value: Any) -> NDArray[np.float32]:
    """A vector as pgvector's codec returns it (``Vector``, or an array), as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)
