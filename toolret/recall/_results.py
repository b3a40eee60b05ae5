"""What a benchmark run measures: recall at each cut-off and MRR per set, language and mode.

``rank_metrics`` reads them off a retriever's full ranking (``ranker``); ``BenchRow`` is one
set x retriever x language x mode x example configuration, ``Agreement`` whether the client
selected what the in-memory retriever selected, ``BenchResult`` a whole run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from toolret._catalog import Catalog
from toolret.recall._data import BenchCase, BenchSet
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Ranking, top_k

__all__ = [
    "CURVE_KS",
    "RANK_KS",
    "TIME_BUDGET",
    "Agreement",
    "BenchResult",
    "BenchRow",
    "Rank",
    "RankMetrics",
    "metrics_of",
    "rank_metrics",
    "ranker",
]

RANK_KS = (1, 3, 5)
"""Cut-offs read off the ranking; the configured ``k`` is read off what ``select()`` bound."""
CURVE_KS = tuple(range(1, 21))
TIME_BUDGET = 60.0
"""Seconds: the benchmark measures ranking, not the speed of a loaded machine."""

Rank = Callable[[str], Awaitable[Ranking]]


@dataclass(frozen=True)
class RankMetrics:
    """Recall at each cut-off of ``CURVE_KS``, MRR, and the share of messages with no signal.

    ``complete`` is, at each cut-off, the share of messages with every tool they need in the
    top k: what a message needing several tools gets whole."""

    curve: tuple[float, ...]
    mrr: float
    no_signal: float
    cases: int
    complete: tuple[float, ...] = ()

    def recall(self, cut: int) -> float:
        return self.curve[CURVE_KS.index(cut)]

    def all_bound(self, cut: int) -> float:
        return self.complete[CURVE_KS.index(cut)]


async def rank_metrics(rank: Rank, catalog: Catalog, cases: Sequence[BenchCase]) -> RankMetrics:
    """Rank every case; a case's recall at k is the share of its tools in the top k, its
    reciprocal rank the mean of 1/rank over its tools (0 for a tool the ranking left out)."""
    rankings = [(await rank(case.query)).scores for case in cases]
    return metrics_of(catalog, cases, rankings)


def metrics_of(
    catalog: Catalog, cases: Sequence[BenchCase], rankings: Sequence[Mapping[str, float]]
) -> RankMetrics:
    """``RankMetrics`` of scores already computed, one mapping per case (ties: catalog order)."""
    curve = [0.0] * len(CURVE_KS)
    complete = [0.0] * len(CURVE_KS)
    reciprocal = no_signal = 0.0
    for case, scores in zip(cases, rankings, strict=True):
        order = top_k(catalog, scores, len(catalog.candidates))
        place = {name: i + 1 for i, name in enumerate(order)}
        ranks = [place.get(name, 10**9) for name in case.expected]
        for i, cut in enumerate(CURVE_KS):
            curve[i] += sum(r <= cut for r in ranks) / len(ranks)
            complete[i] += all(r <= cut for r in ranks)
        reciprocal += sum(1 / r for r in ranks) / len(ranks)
        no_signal += max(scores.values(), default=0.0) <= 0
    n = len(cases) or 1
    return RankMetrics(
        tuple(v / n for v in curve),
        reciprocal / n,
        no_signal / n,
        len(cases),
        tuple(v / n for v in complete),
    )


@dataclass(frozen=True)
class BenchRow:
    """One benchmark x retriever x language x mode x example configuration."""

    bench: str
    tuning: bool
    retriever: str
    embedder: str
    language: str
    mode: str
    examples: bool
    metrics: RankMetrics
    recall_at_k: float
    """What ``select()`` bound: the share of each case's tools among its ``k``."""
    complete_at_k: float
    """The share of cases whose selection bound every tool they need."""
    bound: float
    """Tools bound per selection (core + retrieved)."""
    roster: int
    narrowed: float = 1.0
    """The share of selections that narrowed (fewer tools than the roster; the rest fell open)."""


@dataclass(frozen=True)
class Agreement:
    """Whether the client selected what the in-memory retriever selected, case by case."""

    bench: str
    embedder: str
    mode: str
    examples: bool
    cases: int
    same: int
    largest_score_gap: float

    @property
    def all_same(self) -> bool:
        return self.same == self.cases


@dataclass
class BenchResult:
    """Everything one ``--bench`` run measured."""

    k: int
    sets: list[BenchSet] = field(default_factory=list)
    rows: list[BenchRow] = field(default_factory=list)
    agreements: list[Agreement] = field(default_factory=list)
    studies: list[object] = field(default_factory=list)
    """``toolret.recall.studies.StudyResult`` per study run."""
    embedders: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    elapsed: float = 0.0


def ranker(retriever: InMemoryRetriever, catalog: Catalog) -> Rank:
    """``retriever.rank`` on ``catalog``, as a function of the message."""
    return lambda text: retriever.rank(catalog, text)
