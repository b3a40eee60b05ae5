"""Ranking with the sparse signal: the best tools by dense + weight x sparse, exactly.

A small catalog (up to the store's ``exact_limit`` documents) is one statement that scores
every document both ways: a registered corpus's documents read in the store by corpus hash
(``member_sparse_sql``), or, before it is registered, sent as arrays (``exact_sparse_sql``).
A large one has two indexes, and no index orders by a sum, so the answer is assembled and
then proved, as a threshold algorithm does:

1. the dense ranking statement (``StoreReads.rank_dense``): the ``L`` best tools by the dense
   score, and the named tools' exact dense scores;
2. the sparse scan (``sparse_scan_sql``): the documents nearest the message's sparse vector,
   and the exact sparse scores of their tools and of every tool step 1 returned;
3. the exact dense scores of the scanned tools step 1 did not return, for those whose sum could
   still reach the ``L``-th best (usually none: a third statement only then).

A tool neither list reached scores at most the ``L``-th dense score plus the weight x the
smallest latent score scanned (its dense score is below the one, every document of it below
the other). When the ``L``-th best sum found is above that bound, nothing unseen can displace
it; otherwise both lists are read four times deeper, and after that the exact statement runs.
Given the indexes' nearest neighbours, the answer is what scoring every tool would give: what
the in-memory retriever computes (``toolret.retrieval._signals.ScoreParts.base``).
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from toolret._profile import ToolScore
from toolret.embedders._base import Vector
from toolret.embedders._sparse import SparseVector
from toolret.errors import NotIndexedError
from toolret.store._sparse_member_sql import MEMBER_SPARSE_PARAMETERS, member_sparse_sql
from toolret.store._sparse_sql import (
    EXACT_SPARSE_PARAMETERS,
    SCAN_PARAMETERS,
    exact_sparse_sql,
    sparse_scan_sql,
)
from toolret.store._sql import CatalogQuery
from toolret.store._statement import Statement, statement
from toolret.store._types import StoreRanking

if TYPE_CHECKING:
    from toolret.store._read import StoreReads

__all__ = ["SCAN_PER_TOOL", "SparseQuery", "rank_with_sparse"]

SCAN_PER_TOOL = 3
"""The sparse scan reads ``3 × L`` documents first (the dense statements' first pass reads as
many per tool); a ranking it does not prove reads four times deeper."""
DEEPER = 4
ROUNDS = 2
"""Index rounds before the exact statement decides."""
RESOLUTION = 1e-6
"""Sums closer than this are ties (``toolret.retrieval._selection.SCORE_RESOLUTION``)."""


@dataclass(frozen=True)
class SparseQuery:
    """The message's sparse vector, its weight, and the head (``SparseHead.key``) it is
    filed under."""

    vector: SparseVector
    weight: float
    head: str


async def rank_with_sparse(
    reads: StoreReads,
    connection: Any,
    query: CatalogQuery,
    vector: Vector,
    sparse: SparseQuery,
    limit: int,
    exclude: Collection[str],
    include: Collection[str],
) -> StoreRanking:
    """``StoreReads.rank`` with the sparse signal (see the module docstring)."""
    limit = min(limit, len(query.candidates) - len(query.candidates.intersection(exclude)))
    if query.documents > reads.exact_limit and limit > 0:
        depth = limit
        for _ in range(ROUNDS):
            found = await _indexed(
                reads, connection, query, vector, sparse, depth, exclude, include
            )
            if found is None:
                break  # not published with the head here: the exact statement says how
            ranking, proved = found
            if proved:
                return ranking
            depth *= DEEPER
    return await _exact(connection, query, vector, sparse, limit, exclude, include)


async def _exact(
    connection: Any,
    query: CatalogQuery,
    vector: Vector,
    sparse: SparseQuery,
    limit: int,
    exclude: Collection[str],
    include: Collection[str],
) -> StoreRanking:
    dimension = int(vector.shape[0])
    dense, latent = np.asarray(vector, dtype=np.float32), sparse.vector.to_pgvector()
    shape = (query.model_id, dimension, query.score, sparse.head, sparse.vector.dimension)
    member = member_sparse_statement(*shape)
    rows = await connection.fetch(
        member.sql,
        *member.arguments(
            query=dense,
            sparse_query=latent,
            sparse_weight=float(sparse.weight),
            corpus_hash=query.corpus_hash,
            skip=sorted(query.core | query.outside),
            limit=max(limit, 0) + len(exclude),
            named=sorted(query.candidates.intersection(include)),
        ),
    )
    if not rows:  # a corpus not registered yet: its documents travel with the statement
        exact = exact_statement(*shape)
        rows = await connection.fetch(
            exact.sql,
            *exact.arguments(
                query=dense,
                sparse_query=latent,
                sparse_weight=float(sparse.weight),
                tools=query.tools,
                keys=query.keys,
                limit=max(limit, 0) + len(exclude),
                corpus_hash=query.corpus_hash,
                named=sorted(query.candidates.intersection(include)),
            ),
        )
    scored = [r for r in rows if r["distance"] is not None]
    if not scored:
        raise NotIndexedError(
            "no published vectors for this catalog yet",
            model_id=query.model_id,
            corpus_hash=query.corpus_hash,
        )
    ready = bool(rows[0]["ready"])
    return StoreRanking(
        {r["tool_name"]: 1.0 - r["distance"] for r in scored},
        tuple(dict.fromkeys(r["tool_name"] for r in rows if r["distance"] is None)),
        published=bool(rows[0]["published"]),
        sparse={r["tool_name"]: float(r["latent"] or 0.0) for r in scored} if ready else {},
        sparse_ready=ready,
    )


async def _indexed(
    reads: StoreReads,
    connection: Any,
    query: CatalogQuery,
    vector: Vector,
    sparse: SparseQuery,
    depth: int,
    exclude: Collection[str],
    include: Collection[str],
) -> tuple[StoreRanking, bool] | None:
    """One round through both indexes: the ranking and whether it is proved; None when the
    corpus cannot be ranked through them (not published, or without the head's vectors)."""
    dense = await reads.rank_dense(connection, query, vector, depth, exclude, include)
    if not dense.published or dense.unranked:
        return None
    skip = set(exclude) | query.core | query.outside
    ranked = {name: score for name, score in dense.scores.items() if name not in skip}
    scan = SCAN_PER_TOOL * depth
    found = scan_statement(query.model_id, query.score, sparse.head, sparse.vector.dimension, scan)
    rows = await connection.fetch(
        found.sql,
        *found.arguments(
            sparse_query=sparse.vector.to_pgvector(),
            corpus_hash=query.corpus_hash,
            exclude=sorted(skip),
            named=sorted(dense.scores),
        ),
    )
    summary = next(r for r in rows if r["tool_name"] is None)
    if not summary["ready"]:
        return None
    latent = {r["tool_name"]: float(r["latent"] or 0.0) for r in rows if r["tool_name"] is not None}
    weight = sparse.weight
    full_dense = len(ranked) >= depth
    dense_floor = heapq.nlargest(depth, ranked.values())[-1] if full_dense else -np.inf
    kth = _kth({n: d + weight * latent.get(n, 0.0) for n, d in ranked.items()}, depth)
    reachable = [
        name
        for name, score in latent.items()
        if name not in dense.scores
        and name not in skip
        and dense_floor + weight * score >= kth - RESOLUTION
    ]
    scores = dict(dense.scores)
    if reachable:
        more = await reads.rank_dense(connection, query, vector, 0, exclude, reachable)
        scores.update(more.scores)
    known = {n: s for n, s in scores.items() if n not in skip}
    sums = {n: d + weight * latent.get(n, 0.0) for n, d in known.items()}
    full_scan = int(summary["scanned"]) >= scan
    floor = float(summary["latent"]) if full_scan and summary["latent"] is not None else -np.inf
    bound = dense_floor + weight * floor
    proved = not (full_dense and full_scan) or _kth(sums, depth) - bound > RESOLUTION
    kept = {n: latent.get(n, 0.0) for n in scores}
    return StoreRanking(scores, (), published=True, sparse=kept), proved


def _kth(scores: dict[str, float], k: int) -> float:
    """The ``k``-th best score (minus infinity when there are fewer)."""
    best = heapq.nlargest(k, scores.values())
    return best[-1] if len(best) >= k else -np.inf


@lru_cache(maxsize=64)
def exact_statement(
    model_id: str, dimension: int, score: ToolScore, head: str, sparse_dimension: int
) -> Statement:
    """``exact_sparse_sql`` as a statement (cached per model, score and head)."""
    return statement(
        EXACT_SPARSE_PARAMETERS,
        lambda p: exact_sparse_sql(model_id, dimension, score, head, sparse_dimension, p),
    )


@lru_cache(maxsize=64)
def member_sparse_statement(
    model_id: str, dimension: int, score: ToolScore, head: str, sparse_dimension: int
) -> Statement:
    """``member_sparse_sql`` as a statement (cached per model, score and head)."""
    return statement(
        MEMBER_SPARSE_PARAMETERS,
        lambda p: member_sparse_sql(model_id, dimension, score, head, sparse_dimension, p),
    )


@lru_cache(maxsize=64)
def scan_statement(
    model_id: str, score: ToolScore, head: str, sparse_dimension: int, scan: int
) -> Statement:
    """``sparse_scan_sql`` as a statement (the scan's depth is a literal, as the dense
    statements' limits are)."""
    return statement(
        SCAN_PARAMETERS,
        lambda p: sparse_scan_sql(model_id, score, head, sparse_dimension, scan, p),
    )
