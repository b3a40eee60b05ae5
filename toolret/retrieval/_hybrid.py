"""Hybrid ranking where dense scores come from a store that returns only the best few.

The in-memory retriever fuses every tool's dense score with its BM25 score
(``toolret.retrieval._lexical.fuse``). The database client gets dense scores from one SQL
statement that returns the ``k`` best tools, and computes BM25 in process. Their fused top
``k`` agree exactly because of one fact: a tool with no lexical evidence keeps its dense score,
so it cannot outrank the dense ``k`` best, whose fused scores are at least their dense ones.
The top ``k`` of the fusion therefore lies within the dense ``k`` best and the tools with
lexical evidence, and the statement returns the scores of both
(``VectorStore.rank(..., include=...)``).

A catalog where many tools share a message's words could make that list long, so it is cut to
``INCLUDE_LIMIT`` tools, best BM25 first. A tool beyond the cut scores at most its dense score
(no more than the ``k``-th best dense one, since it was not returned) plus its BM25 share (no
more than the first one cut); when the fused ``k``-th score is above that, the answer is exact
as it stands, and otherwise the client asks once more for the rest (``widen``).
"""

from __future__ import annotations

import heapq
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from toolret._catalog import Catalog
from toolret.retrieval._lexical import catalog_index, fuse
from toolret.retrieval._selection import Ranking

__all__ = ["INCLUDE_LIMIT", "LexicalHits", "lexical_hits", "rank_hybrid", "widen"]

INCLUDE_LIMIT = 256
"""Lexical hits whose dense scores the first statement asks for: above what a message has on
the tuning sets, fleets included, so the second statement (``widen``) is rare."""


@dataclass(frozen=True)
class LexicalHits:
    """One message's BM25 scores over a catalog and the candidates with lexical evidence."""

    scores: Mapping[str, float]
    """The BM25 score of every tool with evidence (``BM25Index.evidence``); others score 0."""
    hits: tuple[str, ...]
    """Candidates (not core, not excluded) scoring above 0, best first, ties in catalog order."""

    @property
    def best(self) -> float:
        return max(self.scores.values(), default=0.0)

    @property
    def first(self) -> tuple[str, ...]:
        """The hits the first statement asks for."""
        return self.hits[:INCLUDE_LIMIT]


def lexical_hits(
    catalog: Catalog, scores: Mapping[str, float], exclude: Collection[str] = ()
) -> LexicalHits:
    """The hits of ``scores`` (``BM25Index.evidence``, or ``score_map``) among the catalog's
    candidates."""
    skip = set(exclude)
    hits = [
        name
        for name, score in scores.items()
        if score > 0 and name in catalog and not catalog[name].core and name not in skip
    ]
    hits.sort(key=lambda name: (-scores[name], catalog.position(name)))
    return LexicalHits(scores, tuple(hits))


def widen(
    catalog: Catalog,
    dense: Mapping[str, float],
    lexical: LexicalHits,
    weight: float,
    k: int,
    exclude: Collection[str] = (),
) -> tuple[str, ...]:
    """The hits beyond ``INCLUDE_LIMIT`` whose dense scores are still needed (none, usually).

    ``dense`` holds what the first statement returned: the dense ``k`` best and the first hits.
    """
    rest = lexical.hits[INCLUDE_LIMIT:]
    if not rest or lexical.best <= 0:
        return ()
    skip = set(exclude)
    ranked = [n for n in dense if n in catalog and not catalog[n].core and n not in skip]
    if len(ranked) < k:
        return rest
    fused = fuse(dense, lexical.scores, weight)
    kth_dense = heapq.nlargest(k, (dense[n] for n in ranked))[-1]
    kth_fused = heapq.nlargest(k, (fused[n] for n in ranked))[-1]
    ceiling = kth_dense + weight * lexical.scores[rest[0]] / lexical.best
    return () if kth_fused > ceiling else rest


DenseFetch = Callable[[Sequence[str]], Awaitable[Ranking]]
"""One ranking statement: the dense ``k`` best, plus the scores of the tools named."""


async def rank_hybrid(
    catalog: Catalog,
    text: str,
    fetch: DenseFetch,
    weight: float | None,
    k: int,
    exclude: Collection[str] = (),
) -> Ranking:
    """The fused ranking of ``text`` from one statement (two when ``widen`` says so): exactly
    what fusing every tool's dense score would rank in the top ``k``. ``weight`` is the
    message's lexical weight (``toolret.retrieval._lexical.hybrid_weight``): one number for
    every tool, so the argument above holds whatever it is. Dense alone without lexical
    evidence, or with ``weight`` None (dense mode). "Dense" is what ``fetch`` ranks by: with
    the sparse signal, the dense score plus its weight x the sparse one (the store ranks by that
    sum exactly, ``toolret.store._sparse_read``), so the argument holds for it too."""
    if weight is None:
        return await fetch(())
    lexical = lexical_hits(catalog, catalog_index(catalog).evidence(text), exclude)
    first = await fetch(lexical.first)
    if lexical.best <= 0:
        return first
    dense = dict(first.scores)
    parts = first.parts
    more = widen(catalog, dense, lexical, weight, k, exclude)
    if more:
        extra = await fetch(more)
        dense.update(extra.scores)
        parts = parts.merged(extra.parts) if parts is not None else None
    if parts is not None:
        parts = replace(parts, lexical=lexical.scores, lexical_weight=weight)
    return Ranking(fuse(dense, lexical.scores, weight), first.unranked, parts=parts)
