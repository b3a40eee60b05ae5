"""What the fusion and names studies rank with: every case's dense and BM25 score of every tool.

``Signals`` holds, for one (set, example configuration), the dense scores (the embedder's
template and ``ToolScore``, as the in-memory retriever computes them) and the BM25 scores of
every case against every tool, and what a fusion may read of a message: its distinct
informative words, how peaked its BM25 scores are, how much of its lexical evidence the best
tool holds, how many of its words the catalog knows, and whether its language is one of the
catalog's. A fusion is then a function of these arrays (``Fusion``), scored by ``metrics``
exactly as the runner scores a retriever's ranking (``metrics_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from numpy.typing import NDArray

from toolret._tool import Tool, render
from toolret.recall._results import RankMetrics, metrics_of
from toolret.recall.studies._scoring import Scored, Scorer
from toolret.retrieval._lexical import BM25Index, catalog_index, tokenize

__all__ = ["Fusion", "Signals", "by_best", "lexical_signals", "signals"]

Matrix = NDArray[np.float64]
"""One row per case (the set's case order), one column per tool (catalog order)."""
LANGUAGE_SHARE = 0.1
"""A language is one of the catalog's when it is that of this share of its texts (each tool's
description, each example)."""


@dataclass
class Signals:
    """One (set, example configuration): each case's dense and BM25 scores and features."""

    scored: Scored
    names: tuple[str, ...]
    candidates: NDArray[np.bool_]
    """Which columns are candidates (not core)."""
    dense: Matrix
    lexical: Matrix
    words: NDArray[np.float64]
    """Each message's distinct informative words (``BM25Index.words``)."""
    features: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    def ranked(self, scores: Matrix) -> list[dict[str, float]]:
        """``scores`` as the per-case mappings ``metrics_of`` reads."""
        return [dict(zip(self.names, row.tolist(), strict=True)) for row in scores]

    def metrics(self, scores: Matrix) -> dict[str, RankMetrics]:
        """Per language, the metrics of ranking by ``scores``."""
        bench = self.scored.bench
        rankings = self.ranked(scores)
        out = {}
        for language in bench.languages:
            rows = [i for i, case in enumerate(bench.cases) if case.language == language]
            cases = [bench.cases[i] for i in rows]
            out[language] = metrics_of(self.scored.catalog, cases, [rankings[i] for i in rows])
        return out


Fusion = Callable[[Signals], Matrix]


def by_best(
    signals: Signals, weight: NDArray[np.float64] | float, lexical: Matrix | None = None
) -> Matrix:
    """Dense plus ``weight`` (one per case, or one for all) x BM25 over the case's best BM25
    score: ``toolret.retrieval._lexical.fuse`` over whole arrays."""
    lexical = signals.lexical if lexical is None else lexical
    best = lexical.max(axis=1, keepdims=True)
    weights = np.broadcast_to(np.asarray(weight, dtype=np.float64), (len(lexical),))[:, None]
    share = np.divide(lexical, best, out=np.zeros_like(lexical), where=best > 0)
    fused: Matrix = signals.dense + weights * share
    return fused


async def signals(scorer: Scorer, scored: Scored) -> Signals:
    """Dense and BM25 scores for every case of ``scored``, and the message features."""
    template = scorer.memo.profile.template
    index = await scorer.index(scored, lambda tool: render(template, tool))
    queries = [case.query for case in scored.bench.cases]
    dense = np.stack([index.score_array(scored.vectors[query]) for query in queries])
    catalog = scored.catalog
    lexical, words = lexical_signals(scored, catalog_index(catalog))
    core = {tool.name for tool in catalog.core}
    found = Signals(
        scored,
        tuple(index.names),
        np.array([name not in core for name in index.names]),
        dense,
        lexical,
        words,
    )
    found.features.update(_features(found, catalog_index(catalog), queries))
    return found


def lexical_signals(scored: Scored, index: BM25Index) -> tuple[Matrix, NDArray[np.float64]]:
    """Each case's BM25 scores under ``index``, and its distinct informative words."""
    queries = [case.query for case in scored.bench.cases]
    lexical = np.stack([index.scores(query).astype(np.float64) for query in queries])
    words = np.array([index.words(query) for query in queries], dtype=np.float64)
    return lexical, words


def _features(
    found: Signals, index: BM25Index, queries: Sequence[str]
) -> dict[str, NDArray[np.float64]]:
    @cache
    def attainable(token: str) -> float:  # the most one word can add to any tool's score
        return float(index.scores(token).max())

    identify = _identifier()
    spoken = _catalog_languages(found.scored.catalog.tools)
    peak, held, known, same = [], [], [], []
    for row, query in zip(found.lexical, queries, strict=True):
        ordered = np.sort(row)[::-1]
        best = float(ordered[0])
        runner_up = float(ordered[1]) if len(ordered) > 1 else 0.0
        peak.append((best - runner_up) / best if best > 0 else 0.0)
        words = set(index.informative(query))
        evidence = sum(attainable(word) for word in index.informative(query))
        held.append(best / evidence if evidence > 0 else 0.0)
        content = {token for token in tokenize(query) if token not in STOPWORDS_EN}
        known.append(len(words) / len(content) if content else 0.0)
        same.append(float(identify.classify(query)[0] in spoken))
    return {
        "peak": np.array(peak),
        "held": np.array(held),
        "known": np.array(known),
        "same language": np.array(same),
    }


def _catalog_languages(tools: Sequence[Tool]) -> frozenset[str]:
    identify = _identifier()
    texts = [text for tool in tools for text in (tool.description, *tool.examples) if text]
    labels = [identify.classify(text)[0] for text in texts]
    return frozenset(
        label for label in set(labels) if labels.count(label) >= LANGUAGE_SHARE * len(labels)
    )


@cache
def _identifier() -> Any:
    """py3langid over every language it knows (loaded once)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE)
