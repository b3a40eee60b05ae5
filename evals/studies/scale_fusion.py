"""Whether the sparse signal's losses are a matter of scale: fusions that put the dense and
sparse scores on comparable scales, chosen on half A of every tuning set's requests and
confirmed on half B (``toolret.recall._halves``).

``python -m evals.studies.scale_fusion [--benchmarks DIR] [--out FILE] [--memo FILE]``

The sets, the rule and the cached score matrices are ``evals.studies.sparse_fusion``'s
(massive-dev with and without examples, toollens-dev-ml, xsid-dev, the mixed-language fleet, the
roster's tuning half judged whole, in-sample on both sides). Every candidate keeps today's opt-in
gate and weight ``g`` per message (``SPARSE_PROFILE``: ``described_elsewhere``, descriptions of
at least five words, the length ramp 4 → 8 words) and changes only how the sparse score joins
the default's score (dense + BM25), for the messages with ``g > 0``:

- **fixed**: ``+ w·g·s`` (today: ``w = 1``);
- **over the best**: ``+ w·g·s / s₁``, ``s₁`` the message's best sparse score over the catalog
  (the sparse scores are ≥ 0, so the term lies in ``[0, w]``: at small ``w`` the sparse signal
  only reorders tools within ``w`` of each other in the default's score, a near-tie breaker);
- **σ-matched**: ``+ w·g·σ(d)/σ(s)·s`` over the catalog (rank-equal to adding z-scores);
- **range-matched**: ``+ w·g·(max d − min d)/(max s − min s)·s`` (rank-equal to adding
  min-max normalised scores);
- **head-matched, k**: ``+ w·g·(d₁ − d_k)/(s₁ − s_k)·s``: the two heads' spreads matched;
- **reciprocal ranks, k**: ``1/(k + rank of the default) + w·g/(k + rank of sparse)``;
- **h39conf's rule** for comparison: ``g`` times ``1 − (d₁ − d₂)/(d₁ − d₅)``.

**The choice**, set before half B was read: on half A, a candidate must pass the rule (no
(set, language) loses more than ``MAX_LOSS`` point of R@3/R@5/R@12, xsid-dev R@1/3/5, against
today's default) and keep at least ``KEEP`` of today's opt-in's mean R@5 gain; of those, the one
with the fewest cases lost against the default at R@3 (the share of a case's needed tools in
the top 3 falls), all sets pooled; ties go to fewer lost on the roster's tuning half without
examples, then to the larger gain. Every candidate is in the choice; the report says which
the client can compute exactly. Half B is read only once (``SCALE_FUSION_HALF_B=1``).
Writes ``evals/out/scale_fusion.md``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import TUNE
from evals.recall.mixed_fleet import mixed_fleet
from evals.recall.roster_sets import roster_set
from evals.studies._fusion_signals import FusionSignals, fusion_signals
from evals.studies._report import report_main
from evals.studies.sparse_fusion import (
    MAX_LOSS,
    REFERENCE,
    SETS,
    Measured,
    _gain,
    _ranks,
    _reference,
    _worst,
    detail,
    measure_choices,
)
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._halves import BLOCK
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._short import length_share
from toolret.retrieval._sparse import described_elsewhere, described_words

__all__ = ["main", "turns_table"]

Matrix = NDArray[np.float64]
Vector = NDArray[np.float64]
Choices = dict[str, tuple[Matrix, NDArray[np.bool_]]]
TODAY = "+ 1 × g × sparse (today's opt-in: gate, min 5 words, ramp 4→8)"
KEEP = 0.9
"""A candidate keeps the gains when its mean R@5 gain on A is at least this share of today's."""
ROSTER = "roster-tuning"
"""The roster's tuning half without examples: its lost cases break ties."""
CONFIRM = os.environ.get("SCALE_FUSION_HALF_B") == "1"
"""Half B is read only once the choice is made on A (``SCALE_FUSION_HALF_B=1``)."""

Scale = Callable[[FusionSignals], Vector]
"""A candidate's per-message factor on the sparse score (before ``w`` and ``g``)."""

FIXED = (0.1, 0.2, 0.3, 0.5)
OVER_BEST = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
MATCHED = (0.5, 1.0, 2.0)
HEADS = (5, 12)
RRF_K = (10, 30, 60)
RRF_W = (0.5, 1.0)

CLIENT = {
    "fixed": "exact: today's statement, w known before it runs",
    "over the best": "exact with one more read before the statement: the message's best "
    "sparse tool score (a sparse-only ranking, limit 1)",
    "σ-matched": "exact statement only (window aggregates over every document); the index "
    "path would need every tool's dense and sparse score",
    "range-matched": "exact statement only (min/max over every document); the index path "
    "would need every tool's scores",
    "head-matched": "exact with reads before the statement: dense's and sparse's k best "
    "scores (h39conf's client already reads dense's five best)",
    "reciprocal ranks": "exact statement only (rank() windows over every document); the "
    "index path knows ranks only to its depth",
    "h39conf": "exact with one more read: dense's five best scores (h39conf's client)",
}


def _masked(x: FusionSignals, scores: Matrix) -> Matrix:
    return np.where(x.candidates[None, :], scores, np.nan)


def _head(x: FusionSignals, scores: Matrix) -> Matrix:
    """Each message's candidate scores, best first."""
    masked = np.where(x.candidates[None, :], scores, -np.inf)
    return -np.sort(-masked, axis=1)


def _ratio(top: Vector, bottom: Vector) -> Vector:
    out: Vector = np.divide(top, bottom, out=np.zeros_like(top), where=bottom > 0)
    return out


def over_best(x: FusionSignals) -> Vector:
    return _ratio(np.ones(len(x.sparse)), _head(x, x.sparse)[:, 0])


def sigma_matched(x: FusionSignals) -> Vector:
    return _ratio(np.nanstd(_masked(x, x.dense), axis=1), np.nanstd(_masked(x, x.sparse), axis=1))


def range_matched(x: FusionSignals) -> Vector:
    d, s = _masked(x, x.dense), _masked(x, x.sparse)
    return _ratio(
        np.nanmax(d, axis=1) - np.nanmin(d, axis=1), np.nanmax(s, axis=1) - np.nanmin(s, axis=1)
    )


def head_matched(k: int) -> Scale:
    def scale(x: FusionSignals) -> Vector:
        d, s = _head(x, x.dense), _head(x, x.sparse)
        last = min(k, d.shape[1]) - 1
        return _ratio(d[:, 0] - d[:, last], s[:, 0] - s[:, last])

    return scale


def confident_head(x: FusionSignals) -> Vector:
    """h39conf's factor on ``g``: ``1 − (d₁ − d₂)/(d₁ − d₅)`` (``sparse_confident_head=5``)."""
    d = _head(x, x.dense)
    return 1.0 - _ratio(d[:, 0] - d[:, 1], d[:, 0] - d[:, min(5, d.shape[1]) - 1])


def _rank_of(x: FusionSignals, scores: Matrix) -> Matrix:
    """Each tool's rank (1 = best) among the candidates; others ranked last."""
    masked = np.where(x.candidates[None, :], scores, -np.inf)
    order = np.argsort(-masked, axis=1, kind="stable")
    ranks = np.empty_like(order)
    rows = np.arange(len(order))[:, None]
    ranks[rows, order] = np.arange(1, order.shape[1] + 1)[None, :]
    out: Matrix = ranks.astype(np.float64)
    return out


def _choices(x: FusionSignals, bench: BenchSet, examples: bool) -> Choices:
    catalog = bench.catalog(examples=examples)
    texts = [case.query for case in bench.cases]
    gate = np.array([described_elsewhere(catalog, t) for t in texts], dtype=np.float64)
    gate *= described_words(catalog) >= 5
    g = gate * np.array([length_share(t, 4, 8) for t in texts])
    sent = g > 0
    reference = _reference(x)

    def plus(factor: Vector) -> tuple[Matrix, NDArray[np.bool_]]:
        return reference + (g * factor)[:, None] * x.sparse, sent

    ones = np.ones(len(g))
    out: Choices = {REFERENCE: (reference, np.zeros(len(g), dtype=bool)), TODAY: plus(ones)}
    for w in FIXED:
        out[f"fixed: + {w:g} × g × sparse"] = plus(w * ones)
    best = over_best(x)
    for w in OVER_BEST:
        out[f"over the best: + {w:g} × g × sparse / s₁"] = plus(w * best)
    for label, scale in (("σ-matched", sigma_matched), ("range-matched", range_matched)):
        factor = scale(x)
        for w in MATCHED:
            out[f"{label}: + {w:g} × g × sparse × ratio"] = plus(w * factor)
    for k in HEADS:
        factor = head_matched(k)(x)
        for w in MATCHED:
            out[f"head-matched, k {k}: + {w:g} × g × sparse × ratio"] = plus(w * factor)
    ref_rank, sparse_rank = _rank_of(x, reference), _rank_of(x, x.sparse)
    for k in RRF_K:
        for w in RRF_W:
            fused = 1.0 / (k + ref_rank) + (w * g)[:, None] / (k + sparse_rank)
            out[f"reciprocal ranks, k {k}: + {w:g} × g × sparse's"] = (fused, sent)
    out["h39conf: + g × (1 − head margin, k 5) × sparse"] = plus(confident_head(x))
    return out


Turns = dict[tuple[str, str, str], tuple[int, int, list[int]]]
"""Per (set, choice, half): cases the choice loses and wins against the reference at R@3 (the
share of the case's needed tools in the top 3 falls or rises), and where the needed tools the
reference had in its top 3 fell to in the lost cases."""


def _turns(x: FusionSignals, name: str, choices: Choices, whole: bool) -> Turns:
    halves = {"A": (x.scenarios // BLOCK) % 2 == 0, "B": (x.scenarios // BLOCK) % 2 == 1}
    if whole:
        halves = {h: np.ones(len(x.languages), dtype=bool) for h in halves}
    ranks = {c: _ranks(x, s) for c, (s, _) in choices.items()}
    hits = {
        c: np.array([np.mean([r <= 3 for r in row]) for row in got]) for c, got in ranks.items()
    }
    out: Turns = {}
    for choice, got in hits.items():
        for half, mask in halves.items():
            delta = np.where(mask, got - hits[REFERENCE], 0.0)
            fell = [
                after
                for i in np.flatnonzero(delta < 0)
                for before, after in zip(ranks[REFERENCE][i], ranks[choice][i], strict=True)
                if before <= 3 < after
            ]
            out[(name, choice, half)] = (int(np.sum(delta < 0)), int(np.sum(delta > 0)), fell)
    return out


def _pooled(turns: Turns, choice: str, half: str, only: str | None = None) -> tuple[int, int]:
    lost = won = 0
    for (name, c, h), (lo, wo, _) in turns.items():
        if c == choice and h == half and (only is None or name == only):
            lost, won = lost + lo, won + wo
    return lost, won


def _fell(turns: Turns, choice: str, half: str) -> str:
    """Median (and largest) rank the lost cases' needed tools fell to, all sets pooled."""
    fell = [r for (_, c, h), (_, _, f) in turns.items() if c == choice and h == half for r in f]
    return f"{np.median(fell):.0f} ({max(fell)})" if fell else "–"


def _eligible(measured: Sequence[Measured], choice: str, half: str) -> bool:
    kept = _gain(measured, choice, half) >= KEEP * _gain(measured, TODAY, half)
    return kept and _worst(measured, choice, half)[0] >= -MAX_LOSS


def _order(measured: Sequence[Measured], turns: Turns, choice: str) -> tuple[float, ...]:
    """The choice's key on A: fewest lost pooled, then on the roster, then the best gain."""
    return (
        _pooled(turns, choice, "A")[0],
        _pooled(turns, choice, "A", ROSTER)[0],
        -_gain(measured, choice, "A"),
    )


def _family(choice: str) -> str:
    if choice == TODAY:
        return "fixed"
    return next(f for f in CLIENT if choice.startswith(f))


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured = []
    turns: Turns = {}
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            choices = _choices(x, bench, flag)
            m = measure_choices(x, bench, flag, choices, whole=whole)
            measured.append(m)
            turns.update(_turns(x, m.name, choices, whole))
            print(f"[scale_fusion] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    return _report(measured, turns)


def turns_table(
    measured: Sequence[Measured], turns: Turns, choices: Sequence[str], halves: Sequence[str]
) -> list[str]:
    """Per choice and half: the worst loss, the mean R@5 gain, the cases lost and won at R@3
    (pooled, and on the roster's tuning half without examples) and where lost tools fell to."""
    head = ["choice"]
    for half in halves:
        label = "A (in-sample)" if half == "A" else "B (confirming)"
        head += [
            f"{label}: worst loss",
            f"{half}: mean R@5 gain",
            f"{half}: lost / won at R@3, pooled",
            f"{half}: lost / won, roster w/o examples",
            f"{half}: lost tools fell to, median (max)",
        ]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---|" * (len(head) - 1)]
    for choice in choices:
        cells = [choice]
        for half in halves:
            worst, where = _worst(measured, choice, half)
            lost, won = _pooled(turns, choice, half)
            r_lost, r_won = _pooled(turns, choice, half, ROSTER)
            cells += [
                f"{worst:+.1f} {where}",
                f"{_gain(measured, choice, half):+.2f}",
                f"{lost} / {won}",
                f"{r_lost} / {r_won}",
                _fell(turns, choice, half),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _report(measured: Sequence[Measured], turns: Turns) -> str:
    choices = list(measured[0].paid)
    halves = ("A", "B") if CONFIRM else ("A",)
    lines = turns_table(measured, turns, choices[1:], halves)
    passing = [c for c in choices[2:] if _eligible(measured, c, "A")]
    chosen = min(passing, key=lambda c: _order(measured, turns, c)) if passing else None
    verdict = (
        "\nChosen on A (within the rule, at least "
        f"{KEEP:.0%} of today's opt-in's mean R@5 gain, the fewest cases lost at R@3): "
        f"**{chosen or 'none'}**"
    )
    if CONFIRM and chosen is not None:
        within = _worst(measured, chosen, "B")[0] >= -MAX_LOSS
        kept = _gain(measured, chosen, "B") >= KEEP * _gain(measured, TODAY, "B")
        fewer = _pooled(turns, chosen, "B")[0] < _pooled(turns, TODAY, "B")[0]
        verdict += (
            f"; on B it {'passes' if within else 'FAILS'} the rule, "
            f"{'keeps' if kept else 'does NOT keep'} {KEEP:.0%} of the gain and "
            f"loses {'fewer' if fewer else 'NOT fewer'} cases than today's opt-in"
        )
    client = ["", "What the client needs, per family:", ""]
    client += [f"- **{family}**: {need}" for family, need in CLIENT.items()]
    if chosen is not None:
        client.append(f"\nThe chosen one's family: {_family(chosen)}.")
    shown = [REFERENCE, TODAY] + ([chosen] if chosen else [])
    tables = detail(measured, shown)
    if not CONFIRM:
        tables = "\n".join(line for line in tables.splitlines() if "B (confirming)" not in line)
    return "\n".join(lines) + "\n" + verdict + ".\n" + "\n".join(client) + "\n\n" + tables


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/scale_fusion.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
