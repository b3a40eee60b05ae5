"""Dense scores centred per description language (``toolret.retrieval._centring``), chosen on
half A of every tuning set's requests and confirmed on half B.

``python -m evals.studies.centring [--benchmarks DIR] [--out FILE] [--memo FILE]``

Sets as ``evals.studies.sparse_fusion``'s (massive-dev with and without examples,
toollens-dev-ml, xsid-dev, the mixed-language fleet, the roster's tuning half judged whole),
read from its cached score matrices (``evals.studies._fusion_signals``: its first run computes
them) and the description and message vectors in the memo.

Candidates, each against the **reference** (today's default: dense + BM25, no sparse signal):

- ``centred × a``: the dense score shifted by ``a × q · (μ − μ_g)`` per description group, as
  ``Centring`` computes it (``a`` = 1 ships; ½ and 1½ say whether the full shift is the
  right size), only on catalogs ``description_groups`` finds several languages in and for
  messages written in one of them (``Centring.applies_to``); and the same for every message;
- ``mean-centred (earlier study)``: ``sparse_fusion._centred`` (each group's mean score over
  every tool, languages under ``DESCRIBED_SHARE`` pooled as a group of their own, on every
  catalog);
- ``+ sparse`` and ``+ sparse, centred``: ``SPARSE_PROFILE``'s signal (weight 1,
  ``described_elsewhere``, min 5 words; ``TOOLRET_SPARSE=1``) without and with the centring.

**The rule**: no (set, language) loses more than ``MAX_LOSS`` point of R@3, R@5 or R@12
(xsid-dev: R@1/3/5) against the reference, on A (in-sample) and on B (confirming).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
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
    _centred,
    _gain,
    _reference,
    _worst,
    detail,
    measure_choices,
)
from toolret._catalog import Catalog
from toolret._tool import render
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer
from toolret.retrieval._centring import Centring, description_groups
from toolret.retrieval._sparse import described_elsewhere, described_words

__all__ = ["main"]

Matrix = NDArray[np.float64]
SIZES = (0.5, 1.0, 1.5)
SHIPPED = "centred × 1"
SPARSE = "+ sparse (TOOLRET_SPARSE=1)"
BOTH = "+ sparse, centred × 1"
EARLIER = "mean-centred (earlier study, memory only)"
EVERYONE = "centred × 1, every message (not only those in a group's language)"


async def _offsets(
    scorer: Scorer, bench: BenchSet, examples: bool, x: FusionSignals, *, everyone: bool
) -> Matrix:
    """Each case's shift of each tool (columns as ``x``'s), zero where no groups."""
    scored = await scorer.prepare(bench, examples)
    groups = description_groups(scored.catalog)
    out = np.zeros_like(x.dense)
    if groups is None:
        return out
    template = scorer.memo.profile.template
    index = await scorer.index(scored, lambda tool: render(template, tool))
    vectors = dict(zip(index.names, index.descriptions, strict=True))
    centring = Centring.build(groups, {name: vectors[name] for name in groups})
    queries = np.stack([scored.vectors[case.query] for case in bench.cases]).astype(np.float64)
    per_group = queries @ centring.shifts.T
    if not everyone:  # only messages in one of the groups' languages, as shipped
        per_group *= np.array([centring.applies_to(c.query) for c in bench.cases])[:, None]
    for column, name in enumerate(index.names):
        if name in groups:
            out[:, column] = per_group[:, centring.groups.index(groups[name])]
    return out


def _choices(
    x: FusionSignals, bench: BenchSet, examples: bool, offsets: tuple[Matrix, Matrix]
) -> dict[str, tuple[Matrix, NDArray[np.bool_]]]:
    reference = _reference(x)
    catalog = bench.catalog(examples=examples)
    none = np.zeros(len(reference), dtype=bool)
    sent = np.array([described_elsewhere(catalog, c.query) for c in bench.cases])
    sent &= described_words(catalog) >= 5
    shipped, everyone = offsets
    out = {REFERENCE: (reference, none)}
    for size in SIZES:
        out[f"centred × {size:g}"] = (reference + size * shipped, none)
    out[EVERYONE] = (reference + everyone, none)
    out[EARLIER] = (_centred(x, catalog) - x.dense + reference, none)
    out[SPARSE] = (reference + x.sparse * sent[:, None], sent)
    out[BOTH] = (reference + shipped + x.sparse * sent[:, None], sent)
    return out


def _groups_line(name: str, catalog: Catalog) -> str:
    groups = description_groups(catalog)
    if groups is None:
        return f"- {name}: one description language, no centring"
    counts = Counter(groups.values())
    return f"- {name}: groups " + ", ".join(f"{g} {n}" for g, n in counts.most_common())


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    scorer = Scorer(memo)
    measured, shapes = [], []
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            offsets = await _offsets(scorer, bench, flag, x, everyone=False)
            everyone = await _offsets(scorer, bench, flag, x, everyone=True)
            choices = _choices(x, bench, flag, (offsets, everyone))
            measured.append(measure_choices(x, bench, flag, choices, whole=whole))
            shapes.append(_groups_line(measured[-1].name, bench.catalog(examples=flag)))
            print(f"[centring] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    return "\n".join(shapes) + "\n\n" + _report(measured)


def _report(measured: Sequence[Measured]) -> str:
    choices = list(measured[0].paid)
    lines = [
        "| choice | A (in-sample): worst loss | A: mean R@5 gain | B (confirming): worst loss "
        "| B: mean R@5 gain |",
        "|---|---|---:|---|---:|",
    ]
    for choice in choices[1:]:
        a, b = _worst(measured, choice, "A"), _worst(measured, choice, "B")
        lines.append(
            f"| {choice} | {a[0]:+.1f} {a[1]} | {_gain(measured, choice, 'A'):+.2f} | "
            f"{b[0]:+.1f} {b[1]} | {_gain(measured, choice, 'B'):+.2f} |"
        )
    passing = [
        c for c in choices[1:] if _worst(measured, c, "A")[0] >= -MAX_LOSS and "memory" not in c
    ]
    best = max(passing, key=lambda c: _gain(measured, c, "A")) if passing else "none"
    lines.append(f"\nPassing the rule on A with the best mean R@5 gain there: **{best}**.\n")
    shown = [REFERENCE, "centred × 0.5", SHIPPED, "centred × 1.5", EVERYONE, SPARSE, BOTH]
    return "\n".join(lines) + "\n" + detail(measured, shown)


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/centring.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
