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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from toolret.profile import ToolScore
from toolret.store import corpus_sql

__all__ = [
    "SUBSET_LIMIT",
    "ToolSummary",
    "score_tag",
    "summarize",
    "summary_count",
    "write_summaries",
]

_CHUNK = 2000
"""Tools whose document vectors are read and summarized at a time (bounded memory)."""

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


async def write_summaries(connection: Any, model_id: str, corpus_id: int, score: ToolScore) -> int:
    """File corpus ``corpus_id``'s summaries under ``score``: write the vectors not stored yet,
    then which belong to which tool. Returns how many vectors were new.

    Runs on the asyncpg connection of the caller's transaction, which holds the model's publish
    lock (two writers of one summary take turns). Reads the documents' kinds as stored, as the
    ranking statements do. A tool without examples is summarized by its description: a model
    with a blended score is searched through its summary vectors alone. Idempotent.
    """
    tag = score_tag(score)
    if await connection.fetchval(corpus_sql.HAS_SUMMARIES, corpus_id, tag):
        return 0
    documents: dict[str, tuple[list[str], list[str]]] = {}
    for tool, key, kind in await connection.fetch(corpus_sql.CORPUS_KINDS, corpus_id, model_id):
        described, examples = documents.setdefault(tool, ([], []))
        (described if kind == "description" else examples).append(key)
    plans: dict[str, list[tuple[str, ToolSummary]]] = {}
    for tool, (described, examples) in documents.items():
        examples.sort()
        # a tool whose description is stored as another tool's example has none: no summary,
        # as the statements give it no score
        plans[tool] = [(key, summarize(key, examples, score)) for key in sorted(described)]
    keys = list({key for plan in plans.values() for _, summary in plan for key in summary.keys})
    missing = {
        row[0] for row in await connection.fetch(corpus_sql.MISSING_SUMMARIES, keys, model_id)
    }
    needed = [
        tool for tool, plan in plans.items() if any(missing.intersection(s.keys) for _, s in plan)
    ]
    written = 0
    for start in range(0, len(needed), _CHUNK):
        chunk = needed[start : start + _CHUNK]
        wanted = [key for tool in chunk for key in (*documents[tool][0], *documents[tool][1])]
        rows = await connection.fetch(corpus_sql.VECTORS_OF, model_id, wanted)
        vectors = {row[0]: _array(row[1]) for row in rows}
        records: dict[str, tuple[str, str, int, NDArray[np.float32]]] = {}
        for tool in chunk:
            example_vectors = [vectors[key] for key in documents[tool][1]]
            for description, summary in plans[tool]:
                weight = score.description_weight
                made = summary.vectors(vectors[description], example_vectors, weight)
                for key, vector in zip(summary.keys, made, strict=True):
                    if key in missing and key not in records:
                        records[key] = (model_id, key, int(vector.shape[0]), vector)
        await connection.copy_records_to_table(
            "toolret_summary_vectors",
            columns=corpus_sql.SUMMARY_COLUMNS,
            records=list(records.values()),
        )
        missing.difference_update(records)
        written += len(records)
    filed = {
        (key, tool): summary.exact
        for tool, plan in plans.items()
        for _, summary in plan
        for key in summary.keys
    }
    await connection.copy_records_to_table(
        "toolret_corpus_summaries",
        columns=corpus_sql.CORPUS_SUMMARY_COLUMNS,
        records=[(corpus_id, tag, key, tool, exact) for (key, tool), exact in filed.items()],
    )
    await connection.execute(corpus_sql.MARK_SUMMARIZED, corpus_id, tag)
    return written


def _array(value: Any) -> NDArray[np.float32]:
    """A vector as pgvector's codec returns it (``Vector``, or an array), as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)
