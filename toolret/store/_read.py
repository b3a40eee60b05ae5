"""The read-only role's work: rank a catalog's tools for a query vector, read the counts of
tools used together, and ping.

What the application's database role (``toolret_reader``, SELECT only) may do; everything here
runs on the request path, on a pooled connection with the store's statement timeout.
``VectorStore`` combines it with the worker's and the operator's parts.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from functools import lru_cache
from typing import Any

import numpy as np

from toolret._profile import ToolScore
from toolret.embedders._base import Vector
from toolret.errors import NotIndexedError, SchemaMissingError
from toolret.store._companion_sql import COUNTS, HAS_TABLE
from toolret.store._corpus_sql import HAS_COPIES
from toolret.store._member_sql import MEMBER_PARAMETERS, copy_sql, member_sql
from toolret.store._pool import SCHEMA_FIX, StorePool
from toolret.store._sparse_read import SparseQuery, rank_with_sparse
from toolret.store._sql import (
    EXACT_PARAMETERS,
    INDEX_PARAMETERS,
    CatalogQuery,
    exact_sql,
    hnsw_sql,
    with_named,
)
from toolret.store._statement import Placeholder, Statement, prefixed, statement
from toolret.store._summary_sql import summary_sql
from toolret.store._types import StoreRanking

__all__ = [
    "COPY_RECHECK",
    "SparseQuery",
    "StoreReads",
    "copy_statement",
    "member_statement",
    "ranking_statement",
]

COPY_RECHECK = 60.0
"""Seconds a corpus found without a copy (not registered yet, larger than ``COPY_LIMIT``, or
published by an older toolret) is ranked by ``member_sql`` before its copy is asked for again:
one statement a selection, not two, and a corpus published since then reads its copy within a
minute."""
WITHOUT_COPY_KEPT = 1024
"""Corpora found without a copy that a store remembers at most (then it forgets them all)."""
NAMED = "named_"
"""The prefix of the named tools' parameters, beside a ranking's own (``ranking_statement``)."""


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
        sparse: SparseQuery | None = None,
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
        statement (``with_named``), beside the index's or the exact ranking: still one round
        trip.

        ``sparse`` (the message's sparse vector and its weight) ranks by the dense score plus
        the weight x the sparse score instead (``toolret.store._sparse_read``): the scores come
        back apart, the sparse ones in ``StoreRanking.sparse``.
        """
        async with self._connection("ranking query") as connection:
            if sparse is not None and sparse.weight > 0:
                return await rank_with_sparse(
                    self, connection, query, vector, sparse, limit, exclude, include
                )
            return await self.rank_dense(connection, query, vector, limit, exclude, include)

    async def rank_dense(
        self,
        connection: Any,
        query: CatalogQuery,
        vector: Vector,
        limit: int,
        exclude: Collection[str],
        include: Collection[str],
    ) -> StoreRanking:
        """``rank`` without the sparse signal, on a connection of the pool."""
        dimension = int(vector.shape[0])
        values = np.asarray(vector, dtype=np.float32)
        # Never ask an index scan for more tools than exist: it would search to exhaustion.
        limit = min(limit, len(query.candidates) - len(query.candidates.intersection(exclude)))
        wanted = query.candidates.intersection(include)
        if limit <= 0 and not wanted:
            return StoreRanking({}, (), published=True)
        summarized = True
        if query.documents > self.exact_limit and limit > 0:
            named = _named(query, wanted)
            most = (
                query.max_summaries_per_tool
                if query.score.kind == "blend"
                else query.max_documents_per_tool
            )
            indexed = ranking_statement(
                query.model_id, dimension, query.score, (limit, most), bool(named)
            )
            skip = sorted(query.core | query.outside | set(exclude))
            rows = await connection.fetch(
                indexed.sql,
                *indexed.arguments(
                    query=values, corpus_hash=query.corpus_hash, exclude=skip, **named
                ),
            )
            ranked = [r for r in rows if r["ranked"]] if named else rows
            # A published corpus without summary vectors: one row of NULLs (summary_sql).
            summarized = not any(r["tool_name"] is None for r in ranked)
            if ranked and summarized:
                scores = {r["tool_name"]: 1.0 - r["distance"] for r in ranked}
                if named:  # the named tools' exact scores win over the index's
                    extra = (r for r in rows if not r["ranked"] and r["distance"] is not None)
                    scores.update((r["tool_name"], 1.0 - r["distance"]) for r in extra)
                return StoreRanking(scores, (), published=True)
        if self.copies is None:  # a database before migration 0010 has no copies
            self.copies = bool(await connection.fetchval(HAS_COPIES))
        member_arguments = {
            "query": values,
            "corpus_hash": query.corpus_hash,
            "skip": sorted(query.core | query.outside),
            "limit": limit + len(exclude),
            "named": sorted(wanted),
        }
        rows = await self._from_copy(connection, query, dimension, member_arguments)
        if rows is None:
            member = member_statement(query.model_id, dimension, query.score, self.copies)
            rows = await connection.fetch(member.sql, *member.arguments(**member_arguments))
        if not rows:  # a corpus not registered yet: its documents travel with the statement
            named = _named(query, wanted)
            exact = ranking_statement(query.model_id, dimension, query.score, None, bool(named))
            arguments = exact.arguments(
                query=values,
                tools=query.tools,
                keys=query.keys,
                limit=limit + len(exclude),
                corpus_hash=query.corpus_hash,
                **named,
            )
            rows = await connection.fetch(exact.sql, *arguments)
        scores = {r["tool_name"]: 1.0 - r["distance"] for r in rows if r["distance"] is not None}
        if not scores:
            raise NotIndexedError(
                "no published vectors for this catalog yet",
                model_id=query.model_id,
                corpus_hash=query.corpus_hash,
            )
        unranked = tuple(dict.fromkeys(r["tool_name"] for r in rows if r["distance"] is None))
        # A corpus served without summary vectors is ranked exactly here, and counts as not
        # yet published so the client asks the worker to summarize it.
        return StoreRanking(scores, unranked, published=bool(rows[0]["published"]) and summarized)

    async def _from_copy(
        self, connection: Any, query: CatalogQuery, dimension: int, arguments: dict[str, Any]
    ) -> list[Any] | None:
        """``member_sql``'s rows read from the corpus's copy alone (``copy_sql``), or None when
        it has none (then remembered for ``COPY_RECHECK`` seconds) or the database has no
        copies."""
        corpus = (query.model_id, query.corpus_hash)
        missed = self.without_copy.get(corpus)
        if not self.copies or (missed is not None and time.monotonic() - missed < COPY_RECHECK):
            return None
        copy = copy_statement(query.model_id, dimension, query.score)
        rows: list[Any] = await connection.fetch(copy.sql, *copy.arguments(**arguments))
        if rows:
            if missed is not None:
                del self.without_copy[corpus]
            return rows
        if len(self.without_copy) >= WITHOUT_COPY_KEPT:
            self.without_copy.clear()
        self.without_copy[corpus] = time.monotonic()
        return None

    async def companion_counts(
        self, names: Collection[str]
    ) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
        """The turns each named tool was called in, and each pair of them together (the pair
        as stored: its names in order), decayed to now (``toolret.store._companion_sql``).
        Raises ``SchemaMissingError`` when the table is missing, without the store's log line
        (a database one migration behind, where selections still narrow)."""
        async with self._connection("reading tools used together") as connection:
            if not await connection.fetchval(HAS_TABLE):
                database = self.engine.url.render_as_string(hide_password=True)
                raise SchemaMissingError(
                    f"no table toolret_companions: {SCHEMA_FIX}", database=database
                )
            rows = await connection.fetch(COUNTS, sorted(names))
        turns: dict[str, float] = {}
        pairs: dict[tuple[str, str], float] = {}
        for row in rows:
            tool, companion, count = row["tool_name"], row["companion"], float(row["turns"])
            if tool == companion:
                turns[tool] = count
            else:
                pairs[(tool, companion)] = count
        return turns, pairs

    async def ping(self) -> None:
        """One ``SELECT 1`` round trip on a pooled connection (the benchmark's floor)."""
        async with self._connection("SELECT 1") as connection:
            await connection.fetchval("SELECT 1")


def _named(query: CatalogQuery, wanted: Collection[str]) -> dict[str, Any]:
    """The arguments naming the tools ``wanted`` to a ranking statement (``ranking_statement``
    with ``named``): their documents, scored exactly beside the ranking; none when empty."""
    if not wanted:
        return {}
    pairs = [(t, k) for t, k in zip(query.tools, query.keys, strict=True) if t in wanted]
    return {
        f"{NAMED}tools": [t for t, _ in pairs],
        f"{NAMED}keys": [k for _, k in pairs],
        f"{NAMED}limit": len(wanted),
        f"{NAMED}corpus_hash": query.corpus_hash,
    }


@lru_cache(maxsize=256)
def ranking_statement(
    model_id: str,
    dimension: int,
    score: ToolScore,
    index: tuple[int, int] | None,
    named: bool,
) -> Statement:
    """The ranking statement: exact (``index`` None), or through an index for ``index`` =
    (tools wanted, most vectors of one tool): summary vectors for a blended score (a tool
    without examples is summarized by its description), documents for ``max``. With ``named``,
    the exact statement over the named tools' documents runs beside it (``with_named``), its
    parameters but the query vector prefixed with ``NAMED``."""
    own = EXACT_PARAMETERS if index is None else INDEX_PARAMETERS
    extra = tuple(NAMED + name for name in EXACT_PARAMETERS if name != "query") if named else ()

    def build(p: Placeholder) -> str:
        if index is None:
            ranking = exact_sql(model_id, dimension, score, p)
        elif score.kind == "blend":
            ranking = summary_sql(model_id, dimension, *index, score, p)
        else:
            ranking = hnsw_sql(model_id, dimension, *index, p)
        if not named:
            return ranking
        tools = exact_sql(model_id, dimension, score, prefixed(p, NAMED, shared={"query"}))
        return with_named(ranking, tools, published="r.published" if index is None else "true")

    return statement((*own, *extra), build)


@lru_cache(maxsize=64)
def copy_statement(model_id: str, dimension: int, score: ToolScore) -> Statement:
    """The exact statement over a copied corpus's copy (``copy_sql``)."""
    return statement(MEMBER_PARAMETERS, lambda p: copy_sql(model_id, dimension, score, p))


@lru_cache(maxsize=64)
def member_statement(
    model_id: str, dimension: int, score: ToolScore, copies: bool = True
) -> Statement:
    """The exact statement over a registered corpus's own documents (``member_sql``; without
    ``copies``, for a database before migration 0010)."""
    return statement(
        MEMBER_PARAMETERS, lambda p: member_sql(model_id, dimension, score, p, copies=copies)
    )
