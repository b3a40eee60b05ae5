"""Which signals ranked a tool: its score as the sum of what each signal added.

A tool's score is its dense score (the embedder's ``ToolScore`` over its documents' cosines),
plus, for the messages the profile gives it to, the sparse weight x its sparse score
(``toolret.retrieval._sparse``), plus, in hybrid mode, the lexical weight x its BM25 score over
the best (``toolret.retrieval._lexical.fuse``). Both retrievers build their ranking here
(``combine``), and a ``Selection`` reports each bound tool's parts (``ScoreParts.of``), which
``toolret search`` prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from toolret.retrieval._lexical import fuse

__all__ = [
    "DENSE",
    "LEXICAL",
    "SIGNALS",
    "SPARSE",
    "ScoreParts",
    "by_tool",
    "combine",
    "with_lexical",
]

DENSE, SPARSE, LEXICAL = "dense", "sparse", "lexical"
SIGNALS = (DENSE, SPARSE, LEXICAL)
"""The signals a score can hold, in the order they are added."""


@dataclass(frozen=True)
class ScoreParts:
    """The signals behind a ranking's scores: ``dense`` and ``sparse`` (raw scores by tool),
    ``lexical`` (BM25 by tool), and the weights that joined them."""

    dense: Mapping[str, float]
    sparse: Mapping[str, float] = field(default_factory=dict)
    sparse_weight: float = 0.0
    lexical: Mapping[str, float] = field(default_factory=dict)
    lexical_weight: float = 0.0

    def merged(self, other: ScoreParts | None) -> ScoreParts:
        """These parts with ``other``'s tools added (a second statement's)."""
        if other is None:
            return self
        return replace(
            self, dense={**self.dense, **other.dense}, sparse={**self.sparse, **other.sparse}
        )

    def base(self) -> dict[str, float]:
        """Each tool's dense score plus its weighted sparse score (before BM25)."""
        if self.sparse_weight <= 0:
            return dict(self.dense)
        weight = self.sparse_weight
        return {name: d + weight * self.sparse.get(name, 0.0) for name, d in self.dense.items()}

    def of(self, name: str) -> dict[str, float]:
        """What each signal added to ``name``'s score: ``dense`` always, ``sparse`` when the
        message had the sparse signal, ``lexical`` when the tool shared its informative words."""
        parts = {DENSE: float(self.dense.get(name, 0.0))}
        if self.sparse_weight > 0:
            parts[SPARSE] = self.sparse_weight * float(self.sparse.get(name, 0.0))
        best = max(self.lexical.values(), default=0.0)
        if best > 0 and self.lexical.get(name, 0.0) > 0:
            parts[LEXICAL] = self.lexical_weight * float(self.lexical[name]) / best
        return parts


def by_tool(parts: ScoreParts | None, names: Iterable[str]) -> dict[str, dict[str, float]]:
    """Each of ``names``' parts (``ScoreParts.of``); none when the parts are not known."""
    return {name: parts.of(name) for name in names} if parts is not None else {}


def combine(
    dense: Mapping[str, float],
    sparse: Mapping[str, float] | None,
    sparse_weight: float,
    lexical: Mapping[str, float],
    lexical_weight: float,
) -> tuple[dict[str, float], ScoreParts]:
    """The fused scores of every tool in ``dense`` and their parts. ``sparse`` None (the
    message has no sparse signal, or it is not built yet) adds nothing."""
    parts = ScoreParts(dense, sparse or {}, sparse_weight if sparse is not None else 0.0)
    return with_lexical(parts, lexical, lexical_weight)


def with_lexical(
    parts: ScoreParts, lexical: Mapping[str, float], weight: float
) -> tuple[dict[str, float], ScoreParts]:
    """``parts``' base scores fused with BM25 (``fuse``), and the parts with it."""
    fused = fuse(parts.base(), lexical, weight)
    return fused, replace(parts, lexical=lexical, lexical_weight=weight)
