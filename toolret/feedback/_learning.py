"""Learning from misses: which miss vectors become learned example vectors of a tool.

A miss says a message needed a tool that retrieval did not rank within the turn's ``k``. Its
query vector is a usage example of that tool, already embedded, with no text attached. The
worker promotes it (``toolret.feedback._store.FeedbackStore.promote``) unless:

- it nearly repeats a vector already learned for the tool (``DUPLICATE``, cosine similarity at
  least ``duplicate_similarity``);
- the tool is already ranked within the cut-off for that vector (``RANKED``): the description
  and the vectors learned so far already bring it in, so the vector adds nothing;
- the tool already has ``cap_per_tool`` learned vectors (``CAP``): a few loud users cannot
  grow one tool's footprint without bound.

The decision is pure: ``VectorSpace`` holds a corpus's vectors (descriptions, written examples,
learned ones) in memory and answers where a tool ranks for a query, exactly as the ranking
statements score it under the embedder's ``ToolScore`` (its best vector, or its description
blended with its best examples, learned ones within ``LEARNED_MIN_SIMILARITY`` among them).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from toolret._profile import LEARNED_MIN_SIMILARITY, MAX_SCORE, ToolScore
from toolret.embedders._base import Vector

__all__ = [
    "Decision",
    "LearningPolicy",
    "VectorSpace",
    "learned_key",
]


class Decision(StrEnum):
    """What the worker decided about one miss."""

    PROMOTED = "promoted"
    RANKED = "ranked"
    DUPLICATE = "duplicate"
    CAP = "cap"
    UNKNOWN_TOOL = "unknown_tool"
    FORGOTTEN = "forgotten"
    """Set by ``toolret feedback forget``: never promoted again."""


@dataclass(frozen=True)
class LearningPolicy:
    """Bounds on what is learned: at most ``cap_per_tool`` vectors a tool, none closer than
    ``duplicate_similarity`` to one already learned for the same tool."""

    cap_per_tool: int = 16
    duplicate_similarity: float = 0.95


def learned_key(model_id: str, vector: Vector) -> str:
    """The content address of a learned vector: hex SHA-256 of the model and the float32 bytes."""
    data = np.ascontiguousarray(np.asarray(vector, dtype=np.float32)).tobytes()
    return hashlib.sha256(model_id.encode() + b"\x00" + data).hexdigest()


class VectorSpace:
    """A corpus's vectors by tool, plus its learned layer, for deciding promotions.

    ``kinds`` (parallel to ``documents``) says which are descriptions and which examples; without
    it every document counts as a description. ``score`` is the embedder's ``ToolScore``.
    """

    def __init__(
        self,
        documents: Iterable[tuple[str, Vector]],
        learned: Iterable[tuple[str, Vector]] = (),
        *,
        learned_min_similarity: float = LEARNED_MIN_SIMILARITY,
        kinds: Sequence[str] | None = None,
        score: ToolScore = MAX_SCORE,
    ) -> None:
        self.learned_min_similarity = learned_min_similarity
        pairs = list(documents)
        self.score = score
        self.tools: list[str] = sorted({tool for tool, _ in pairs})
        self._index = {tool: i for i, tool in enumerate(self.tools)}
        self._owners = np.array([self._index[tool] for tool, _ in pairs], dtype=np.int64)
        self._examples = np.array(
            [kind == "example" for kind in kinds] if kinds is not None else [False] * len(pairs),
            dtype=bool,
        )
        if len(self._examples) != len(pairs):
            raise ValueError("kinds must name the kind of every document")
        self._matrix = _normalized([vector for _, vector in pairs])
        self._learned_owners: list[int] = []
        self._learned: list[Vector] = []
        for tool, vector in learned:
            if tool in self._index:
                self._add(tool, vector)

    def learned_count(self, tool: str) -> int:
        """How many learned vectors ``tool`` has."""
        index = self._index.get(tool)
        return sum(1 for owner in self._learned_owners if owner == index)

    def rank_of(self, tool: str, query: Vector, *, exclude: Iterable[str] = ()) -> int:
        """``tool``'s 0-based position among the tools not excluded, by best similarity."""
        best = self.best_scores(query)
        skip = {self._index[name] for name in exclude if name in self._index}
        own = best[self._index[tool]]
        others = [i for i in range(len(self.tools)) if i not in skip and i != self._index[tool]]
        return int(np.sum(best[others] > own))

    def best_scores(self, query: Vector) -> np.ndarray:
        """Each tool's score for ``query`` as the ranking statements compute it: over its
        descriptions, examples, and learned vectors within ``LEARNED_MIN_SIMILARITY`` (which
        count as examples), the best cosine (``max``) or the blend."""
        q = _normalized([query])[0]
        cosines = self._matrix @ q if len(self._owners) else np.zeros(0)
        owners = self._owners
        examples = self._examples
        if self._learned:
            near = _normalized(self._learned) @ q
            kept = near >= self.learned_min_similarity
            cosines = np.concatenate([cosines, near[kept]])
            owners = np.concatenate([owners, np.array(self._learned_owners)[kept]])
            examples = np.concatenate([examples, np.ones(int(kept.sum()), dtype=bool)])
        described = np.full(len(self.tools), -np.inf, dtype=np.float64)
        np.maximum.at(described, owners[~examples], cosines[~examples])
        return self.score.combine(described, cosines[examples], owners[examples])

    def decide(
        self, tool: str, query: Vector, *, k: int, core: Sequence[str], policy: LearningPolicy
    ) -> Decision:
        """Whether a miss of ``tool`` for ``query`` is promoted; if so it joins the space."""
        if tool not in self._index or tool in core:
            return Decision.UNKNOWN_TOOL
        own = [
            vector
            for owner, vector in zip(self._learned_owners, self._learned, strict=True)
            if owner == self._index[tool]
        ]
        if own and float(np.max(_normalized(own) @ _normalized([query])[0])) >= (
            policy.duplicate_similarity
        ):
            return Decision.DUPLICATE
        if self.rank_of(tool, query, exclude=core) < k:
            return Decision.RANKED
        if len(own) >= policy.cap_per_tool:
            return Decision.CAP
        self._add(tool, query)
        return Decision.PROMOTED

    def _add(self, tool: str, vector: Vector) -> None:
        self._learned_owners.append(self._index[tool])
        self._learned.append(np.asarray(vector, dtype=np.float32))


def _normalized(vectors: Sequence[Vector]) -> np.ndarray:
    if not len(vectors):
        return np.zeros((0, 0), dtype=np.float32)
    matrix = np.stack([np.asarray(v, dtype=np.float32) for v in vectors])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
