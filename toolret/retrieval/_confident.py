"""How much of the sparse signal a message keeps when the dense ranking is confident.

With the sparse signal at its whole weight, a tool's sparse score spans more than its dense one
(on the tuning sets the best sparse score is 0.2-0.3 and dense's first two tools under 0.01
apart), so the sum ranks mostly by sparse: where dense was wrong (a message in another
language than the descriptions) that is the signal's gain, and where dense was right it can
push dense's first tool out of the head (the roster's held-back half without examples, 6-18-word
messages: docs/decisions.md, "The sparse signal defers to a confident dense ranking").

So the weight follows how far dense's first tool stands above the rest of its head: over the
message's ``k`` best dense scores (``RetrievalProfile.sparse_confident_head``), the share
``(d2 - dk) / (d1 - dk)``. A head whose first two tools tie keeps the whole weight; a first tool
alone above a flat head keeps little of it. No unit to tune: the share is of the message's own
scores. Both retrievers compute it from the same dense scores (centred, where the catalog is
centred) before the sparse sum is ranked: the in-memory retriever from every candidate's, the
database client from the store's ``k`` best (``dense_head``), so the client's statement ranks
by the same weight.

On the tuning sets it passes the rule on both halves and keeps 93% of the signal's mean R@5
gain. Those sets do not show that it defers more where dense was right than where dense was
wrong; the fresh held-back set is to say (``sparse_confident_head=0`` turns it off).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from toolret.store._read import SparseQuery

__all__ = ["confident_share", "deferred", "dense_head"]


def dense_head(scores: Iterable[float], k: int) -> list[float]:
    """The ``k`` best of ``scores``, best first."""
    return sorted(scores, reverse=True)[:k]


def confident_share(scores: Iterable[float], k: int) -> float:
    """The share of the sparse weight a message keeps given its dense scores (any order): 1 -
    the first tool's lead over the second, over its lead over the ``k``-th. 1 where ``k`` is 0
    (no deferring), where there are fewer than two scores, or where the head is flat."""
    if k <= 0:
        return 1.0
    head = dense_head(scores, k)
    if len(head) < 2:
        return 1.0
    spread = head[0] - head[-1]
    if spread <= 0:
        return 1.0
    return 1.0 - (head[0] - head[1]) / spread


def deferred(sparse: SparseQuery, scores: Iterable[float], k: int) -> SparseQuery | None:
    """``sparse`` with the share of its weight the dense ``scores``' head leaves it (None when
    none: the message is ranked without the signal)."""
    weight = sparse.weight * confident_share(scores, k)
    return dataclasses.replace(sparse, weight=weight) if weight > 0 else None
