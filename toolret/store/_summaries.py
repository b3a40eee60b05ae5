"""Per-tool summary vectors: a tool's blended score as the best inner product of a few vectors.

For a unit query q, a tool with description d and examples e_1..e_n scores (``ToolScore``,
``blend``) w·q·d + (1-w)·(the mean of its m best q·e_i). For any m of its examples S, the
vector w·d + (1-w)·mean(S) has the inner product w·q·d + (1-w)·mean(q·e_i, i in S) with q: at
most the score, and equal to it for the m best. The score is therefore the largest inner
product of q with the tool's subset vectors, and one nearest-neighbour scan by inner product
over them ranks tools by their blended score, as the max score's scan over documents does.
Per tool:

- no examples: its description; up to m examples: one vector, with their mean;
- more, while their subsets of m number at most ``SUBSET_LIMIT``: one vector per subset;
- beyond that, one vector per example, w·d + (1-w)·e_i, whose inner product is at least the
  score (a bound, not the score): the ranking statement scores such a tool from its documents.

Either way a tool none of whose vectors is among the nearest scores no better than the farthest
of them, which is what lets the statement certify its answer. Keys are content addresses (the
weight and the member documents' keys): a vector is stored once for every corpus and catalog
version with the same tool, as document vectors are.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolret._profile import ToolScore
from toolret._tool import Document
from toolret.store._types import VectorRow

__all__ = [
    "SUBSET_LIMIT",
    "SummaryBuilder",
    "ToolSummary",
    "score_tag",
    "summarize",
    "summary_count",
]


SUBSET_LIMIT = 10
"""A tool with more subsets of ``m`` examples than this gets one bound per example instead: up
to five examples with ``m`` = 2 (ten pairs) its vectors are exact. A wider limit stores (and
indexes) more vectors and, with many examples, needs deeper scans: on the 44-tool roster (eight
examples a tool) its 1,451 pair vectors needed a median of 94 vectors scanned to certify the
top 12 against 34 for its 360 per-example bounds; at 100,000 tools with three examples, pairs
certify after 14 where bounds need 133 (``docs/decisions.md``)."""


@dataclass(frozen=True)
class ToolSummary:
    """One tool's summary vectors under one score: their keys, which of the tool's examples
    each averages, and whether their best inner product is the score (else a bound on it)."""

    keys: tuple[str, ...]
    groups: tuple[tuple[int, ...], ...]
    exact: bool

    def vectors(
        self,
        description: NDArray[np.float32],
        examples: Sequence[NDArray[np.float32]],
        weight: float,
    ) -> list[NDArray[np.float32]]:
        """The vectors, in ``keys`` order, from the tool's description vector and its example
        vectors (in the order their keys were given to ``summarize``)."""
        if not examples:
            return [np.asarray(description, dtype=np.float32)]
        stacked = np.asarray(examples, dtype=np.float64)
        base = weight * np.asarray(description, dtype=np.float64)
        return [
            (base + (1 - weight) * stacked[list(group)].mean(axis=0)).astype(np.float32)
            for group in self.groups
        ]


def score_tag(score: ToolScore) -> str:
    """The name summaries are filed under for ``score`` (its weight and example count)."""
    return f"blend {score.description_weight!r} {score.examples}"


def summary_count(examples: int, score: ToolScore) -> int:
    """How many summary vectors a tool with ``examples`` examples has under ``score``."""
    return len(_groups(examples, score.examples)[0])


def summarize(description: str, examples: Sequence[str], score: ToolScore) -> ToolSummary:
    """The summary of a tool with these document keys (its examples distinct)."""
    groups, exact = _groups(len(examples), score.examples)
    weight = repr(score.description_weight)
    keys = tuple(_key(weight, description, sorted(examples[i] for i in group)) for group in groups)
    return ToolSummary(keys, groups, exact)


def _groups(examples: int, best: int) -> tuple[tuple[tuple[int, ...], ...], bool]:
    """Which examples each vector averages, and whether the vectors are exact."""
    if examples <= best:
        return (tuple(range(examples)),), True
    if math.comb(examples, best) <= SUBSET_LIMIT:
        return tuple(itertools.combinations(range(examples), best)), True
    return tuple((i,) for i in range(examples)), best == 1


def _key(weight: str, description: str, examples: list[str]) -> str:
    text = "\x00".join(("toolret-summary", weight, description, *examples))
    return hashlib.sha256(text.encode()).hexdigest()


class SummaryBuilder:
    """The summary vectors of the tools whose every document one indexing run embeds, made as
    each tool's last document is embedded: indexing writes them while the model embeds the
    next batch, and publication only files them. A tool with a document the run does not
    embed (its vector is stored already) is left to publication, which reads it."""

    def __init__(
        self, documents: Sequence[tuple[str, Document]], embedded: Collection[str], score: ToolScore
    ) -> None:
        self.score = score
        kinds: dict[str, dict[str, str]] = {}
        for tool, doc in documents:
            kinds.setdefault(tool, {}).setdefault(doc.key, doc.kind)
        self._tools: dict[str, tuple[list[str], list[str]]] = {}
        self._waiting: dict[str, set[str]] = {}
        self._users: dict[str, set[str]] = {}
        for tool, keys in kinds.items():
            described = sorted(key for key, kind in keys.items() if kind == "description")
            if not described or not set(keys) <= set(embedded):
                continue
            examples = sorted(key for key, kind in keys.items() if kind == "example")
            self._tools[tool] = (described, examples)
            self._waiting[tool] = set(keys)
            for key in keys:
                self._users.setdefault(key, set()).add(tool)
        self._vectors: dict[str, NDArray[np.float32]] = {}

    def add(self, rows: Sequence[VectorRow]) -> list[tuple[str, NDArray[np.float32]]]:
        """Take a batch's vectors; return the summary vectors of the tools it completed."""
        completed: list[str] = []
        for row in rows:
            for tool in self._users.get(row.key, ()):
                self._vectors[row.key] = np.asarray(row.embedding, dtype=np.float32)
                self._waiting[tool].discard(row.key)
                if not self._waiting[tool]:
                    completed.append(tool)
        made: dict[str, NDArray[np.float32]] = {}
        for tool in completed:
            described, examples = self._tools.pop(tool)
            example_vectors = [self._vectors[key] for key in examples]
            for description in described:
                summary = summarize(description, examples, self.score)
                vectors = summary.vectors(
                    self._vectors[description], example_vectors, self.score.description_weight
                )
                for key, vector in zip(summary.keys, vectors, strict=True):
                    made.setdefault(key, vector)
            for key in (*described, *examples):  # forget what no waiting tool needs
                users = self._users[key]
                users.discard(tool)
                if not users:
                    del self._users[key]
                    self._vectors.pop(key, None)
        return list(made.items())
