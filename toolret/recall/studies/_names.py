"""The names study: a tool's name, split into words, as a signal where it carries the meaning.

The bundled model's description document holds no name (``documents`` measured it: the name in
the document costs Persian 9.7 points of R@12). BM25 reads the name, split at camelCase and
snake_case (``toolret.retrieval._lexical.tokenize``). Compared, under the fusion in use:

- in the lexical index only: the name once (in use), not at all, twice; or BM25 over the names
  alone as a signal of its own;
- as a vector of its own: each tool's dense score plus a weight x the cosine of the message
  with its name in words (``readable_identifier``), in hybrid and in dense mode.

A first-party set's fleet view (``scoring.as_fleet``) keeps each tool's name, so every variant
ranks it as it ranks the set itself: the sets below are both kinds of catalog. The verdict is the
fleet studies' rule (``_fleets.keep``): no set loses more than a point of R@5 or R@12 against the
choice in use, and the fleets gain at least a point of R@12.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from toolret._tool import Tool, parameter_text, readable_identifier
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._fleets import keep
from toolret.recall.studies._result import StudyResult, StudyRow, Variant
from toolret.recall.studies._scoring import Scorer, is_fleet
from toolret.recall.studies._signals import Matrix, Signals, by_best, lexical_signals, signals
from toolret.retrieval._lexical import BM25Index, lexical_text

__all__ = ["NAME_VECTOR_WEIGHTS", "run_names_study"]

NAME_VECTOR_WEIGHTS = (0.1, 0.2, 0.3)
NAME_BM25_WEIGHT = 0.01
IN_USE = "in use: the name in BM25's text, once"
DENSE = "dense (in use)"


def _without_name(tool: Tool) -> str:
    parts = (tool.description, *tool.keywords, parameter_text(tool), *tool.examples)
    return " ".join(part for part in parts if part)


def _name_twice(tool: Tool) -> str:
    return f"{lexical_text(tool)} {tool.name}"


LEXICAL: dict[str, Callable[[Tool], str]] = {
    "BM25 without the name": _without_name,
    "BM25 with the name twice": _name_twice,
}


def _variants(s: Signals, cosines: Matrix, weight: Callable[[int], float]) -> dict[str, Matrix]:
    """Per choice, each case's scores (hybrid choices first, then dense)."""
    weights = np.array([weight(int(n)) for n in s.words])
    tools = s.scored.catalog.tools
    out = {IN_USE: by_best(s, weights)}
    for label, text in LEXICAL.items():
        lexical, words = lexical_signals(s.scored, BM25Index(tools, text))
        out[label] = by_best(s, np.array([weight(int(n)) for n in words]), lexical)
    names, _ = lexical_signals(s.scored, BM25Index(tools, lambda tool: tool.name))
    alone = by_best(s, NAME_BM25_WEIGHT, names) - s.dense
    out[f"in use + {NAME_BM25_WEIGHT:g} × BM25 over the names alone"] = out[IN_USE] + alone
    for beta in NAME_VECTOR_WEIGHTS:
        named = replace(s, dense=s.dense + beta * cosines)
        out[f"in use + {beta:g} × the name's own vector"] = by_best(named, weights)
    out[DENSE] = s.dense
    for beta in NAME_VECTOR_WEIGHTS:
        out[f"dense + {beta:g} × the name's own vector"] = s.dense + beta * cosines
    return out


async def run_names_study(memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int) -> StudyResult:
    """Measure every way of using names on ``sets`` (tuning sets only)."""
    del k  # ranked in full; the cut-offs are read off the ranking
    scorer = Scorer(memo)
    rows: list[StudyRow] = []
    for bench in sets:
        for flag in bench.example_flags:
            scored = await scorer.prepare(bench, flag)
            s = await signals(scorer, scored)
            vectors = await scorer.tool_vectors(scored, lambda t: readable_identifier(t.name))
            queries = np.stack([scored.vectors[case.query] for case in bench.cases])
            cosines = (queries @ vectors.T).astype(np.float64)
            for label, scores in _variants(s, cosines, memo.profile.lexical_weight_for).items():
                mode = "dense" if label.startswith("dense") else "hybrid"
                variant = Variant(label, memo.example_role, memo.profile, mode, flag)  # type: ignore[arg-type]
                for language, metrics in s.metrics(scores).items():
                    rows.append(StudyRow(variant, bench.name, language, metrics))
    question = (
        "Names as a signal: in BM25's text (once, not at all, twice, or on their own), or as a "
        "vector of their own? Under the fusion in use, and dense."
    )
    result = StudyResult("names", memo.model_id, question, tuple(rows), IN_USE)
    text, passed = keep(result, {bench.name for bench in sets if is_fleet(bench)})
    return replace(result, verdict=text, passed=passed)
