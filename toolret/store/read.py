"""The read-only role's work: rank a catalog's tools for a query vector, and ping.

What the application's database role (``toolret_reader``, SELECT only) may do; everything here
runs on the request path, on a pooled connection with the store's statement timeout.
``VectorStore`` combines it with the worker's and the operator's parts.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from toolret.embedders.base import Vector
from toolret.errors import NotIndexedError
from toolret.store.pool import StorePool
from toolret.store.sql import CatalogQuery, exact_sql, hnsw_sql
from toolret.store.types import StoreRanking

__all__ = ["StoreReads"]


class StoreReads(StorePool):
    """``rank`` and ``ping``: the request path of ``VectorStore``."""

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
