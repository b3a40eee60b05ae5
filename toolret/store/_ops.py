"""The operator's work: garbage collection, status, and where a catalog's corpus stands.

``VectorStore`` combines it with the read path and the worker's part.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import select, text, tuple_

from toolret.store import _corpus_sql as corpus_sql
from toolret.store._pool import StorePool, rowcount
from toolret.store._schema import corpora, hnsw_index_name, summary_index_name
from toolret.store._sparse_write import GC_SPARSE_VECTORS
from toolret.store._types import GCReport, ModelStatus, StoreStatus
from toolret.store._write import GC_LOCK

__all__ = ["CorpusState", "StoreOperations"]

CorpusState = Literal["published", "indexing", "absent"]
"""``published``: served; ``indexing``: registered, its vectors still being written (or a run
stopped midway, to be resumed); ``absent``: never indexed, or collected."""


class StoreOperations(StorePool):
    """``gc`` and ``status``: the operator's part of ``VectorStore``."""

    async def gc(self, grace: timedelta, *, now: datetime | None = None) -> GCReport:
        """Delete corpora not seen within ``grace``, then vectors (summary and sparse ones too)
        that no remaining corpus references and that are older than ``grace``.

        ``now`` (default: the database's clock) collects as of another time. Waits for
        publications and registrations in progress (they hold the lock shared).
        """
        async with self.transaction() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": GC_LOCK})
            clock = {"now": now, "grace": grace}
            corpora = await connection.execute(text(corpus_sql.GC_CORPORA), clock)
            removed = 0
            for table in ("toolret_vectors", "toolret_pending_vectors"):
                removed += rowcount(
                    await connection.execute(text(corpus_sql.gc_vectors(table)), clock)
                )
            # derived from the documents: not counted among the vectors collected
            await connection.execute(text(corpus_sql.GC_SUMMARY_VECTORS), clock)
            await connection.execute(text(GC_SPARSE_VECTORS), clock)
            return GCReport(corpora=rowcount(corpora), vectors=removed)

    async def status(self) -> StoreStatus:
        """The migration revision and, per model, rows, corpora and whether its index exists."""
        async with self.transaction() as connection:

            async def scalar(statement: str) -> Any:
                return (await connection.execute(text(statement))).scalar()

            revision = None
            if await scalar("SELECT to_regclass('toolret_alembic_version')"):
                revision = await scalar("SELECT version_num FROM toolret_alembic_version")
            if not await scalar("SELECT to_regclass('toolret_vectors')"):
                return StoreStatus(revision, ())
            rows = (await connection.execute(text(corpus_sql.STATUS_MODELS))).all()
            indexes = {row[0] for row in await connection.execute(text(corpus_sql.STATUS_INDEXES))}
        models = tuple(
            ModelStatus(
                model_id=row[0],
                dimension=row[1],
                vectors=row[2],
                pending_vectors=row[3],
                corpora=row[4],
                published_corpora=row[5],
                last_seen=row[6],
                index=next(
                    (
                        name
                        for name in (summary_index_name(row[0]), hnsw_index_name(row[0]))
                        if name in indexes
                    ),
                    None,
                ),
            )
            for row in rows
        )
        return StoreStatus(revision, models)

    async def corpus_states(
        self, keys: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], CorpusState]:
        """Where each (model id, corpus hash) stands: what ``toolret status`` shows per catalog
        and embedder, and what a deployment waits for before it switches models."""
        wanted = list(dict.fromkeys(keys))
        states: dict[tuple[str, str], CorpusState] = dict.fromkeys(wanted, "absent")
        if not wanted:
            return states
        statement = select(
            corpora.c.model_id,
            corpora.c.corpus_hash,
            corpora.c.published_at.is_not(None).label("published"),
        ).where(tuple_(corpora.c.model_id, corpora.c.corpus_hash).in_(wanted))
        async with self.transaction() as connection:
            for row in (await connection.execute(statement)).mappings():
                key = (row["model_id"], row["corpus_hash"])
                states[key] = "published" if row["published"] else "indexing"
        return states
