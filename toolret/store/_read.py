"""The read-only role's work: rank a catalog's tools for a query vector, and ping.

What the application's database role (``toolret_reader``, SELECT only) may do; everything here
runs on the request path, on a pooled connection with the store's statement timeout.
``VectorStore`` combines it with the worker's and the operator's parts.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import numpy as np

from toolret.embedders._base import Vector
from toolret.errors import NotIndexedError
from toolret.store._pool import StorePool
from toolret.store._sql import CatalogQuery, exact_sql, hnsw_sql
from toolret.store._summary_sql import summary_sql
from toolret.store._types import StoreRanking

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
        include: Collection[str] = (),
    ) -> StoreRanking:
        """Score the catalog's candidate tools for a query vector in one round trip.

        Returns at least ``limit`` ranked tools besides ``exclude`` (when the catalog has them)
        and every tool that could not be ranked. A catalog of more than ``exact_limit``
        documents whose corpus is published goes through an index (``hnsw_sql``, or
        ``summary_sql`` for a blended score); anything else is ranked exactly. Raises
        ``NotIndexedError`` when no tool of the catalog has a published vector.

        ``include`` names candidates whose scores must come back too, wherever they rank: hybrid
        ranking asks for its lexical hits, so that its fused top ``k`` is exact
        (``toolret.retrieval._hybrid``). The named tools' documents are scored exactly in the same
        statement (``_with_named``), beside the index's or the exact ranking: still one round
        trip.
        """
        dimension = int(vector.shape[0])
        values = np.asarray(vector, dtype=np.float32)
        # Never ask an index scan for more tools than exist: it would search to exhaustion.
        limit = min(limit, len(query.candidates) - len(query.candidates.intersection(exclude)))
        wanted = query.candidates.intersection(include)
        if limit <= 0 and not wanted:
            return StoreRanking({}, (), published=True)
        exact = exact_sql(query.model_id, dimension, query.score)
        named: list[object] = []
        if wanted:  # the named tools' own documents, scored exactly by the same statement
            pairs = [(t, k) for t, k in zip(query.tools, query.keys, strict=True) if t in wanted]
            named = [[t for t, _ in pairs], [k for _, k in pairs], len(wanted), query.corpus_hash]
        summarized = True
        async with self._connection("ranking query") as connection:
            if query.documents > self.exact_limit and limit > 0:
                statement = _indexed_sql(query, dimension, limit)
                skip = sorted(query.core | set(exclude))
                rows = await connection.fetch(
                    _with_named(statement, 3, exact, published="true") if named else statement,
                    values,
                    query.corpus_hash,
                    skip,
                    *named,
                )
                ranked = [r for r in rows if r[2]] if named else rows
                # A published corpus without summary vectors: one row of NULLs (summary_sql).
                summarized = not any(r[0] is None for r in ranked)
                if ranked and summarized:
                    scores = {r[0]: 1.0 - r[1] for r in ranked}
                    if named:  # the named tools' exact scores win over the index's
                        extra = (r for r in rows if not r[2] and r[1] is not None)
                        scores.update((r[0], 1.0 - r[1]) for r in extra)
                    return StoreRanking(scores, (), published=True)
            arguments = (values, query.tools, query.keys, limit + len(exclude), query.corpus_hash)
            both = _with_named(exact, 5, exact, published="r.published")
            rows = await connection.fetch(both if named else exact, *arguments, *named)
        scores = {r[0]: 1.0 - r[1] for r in rows if r[1] is not None}
        if not scores:
            raise NotIndexedError(
                "no published vectors for this catalog yet",
                model_id=query.model_id,
                corpus_hash=query.corpus_hash,
            )
        unranked = tuple(dict.fromkeys(r[0] for r in rows if r[1] is None))
        # A corpus served without summary vectors is ranked exactly here, and counts as not
        # yet published so the client asks the worker to summarize it.
        return StoreRanking(scores, unranked, published=bool(rows[0][-1]) and summarized)

    async def ping(self) -> None:
        """One ``SELECT 1`` round trip on a pooled connection (the benchmark's floor)."""
        async with self._connection("SELECT 1") as connection:
            await connection.fetchval("SELECT 1")


def _indexed_sql(query: CatalogQuery, dimension: int, limit: int) -> str:
    """The index statement for a large catalog: summary vectors for a blended score (a tool
    without examples is summarized by its description), documents for ``max``."""
    if query.score.kind == "blend":
        return summary_sql(
            query.model_id, dimension, limit, query.max_summaries_per_tool, query.score
        )
    return hnsw_sql(query.model_id, dimension, limit, query.max_documents_per_tool)


_PARAMETER = re.compile(r"\$(\d+)")


def _with_named(ranking: str, parameters: int, exact: str, *, published: str) -> str:
    """One statement: ``ranking`` (which takes ``parameters`` parameters, ``$1`` the query
    vector), and the exact statement over the named tools' documents, whose parameters after
    the shared ``$1`` (tools, keys, limit, corpus hash) follow the ranking's. Rows:
    ``(tool_name, distance, ranked, published)``, ``ranked`` false for the named tools' rows,
    ``published`` the expression for the ranking's rows; a ranking statement that finds nothing
    published returns no ranked row."""

    def shifted(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return "$1" if number == 1 else f"${number + parameters - 1}"

    named = _PARAMETER.sub(shifted, exact)
    return f"""
SELECT r.tool_name, r.distance, true AS ranked, {published} AS published FROM ({ranking}) AS r
UNION ALL
SELECT n.tool_name, n.distance, false, n.published FROM ({named}) AS n
"""
