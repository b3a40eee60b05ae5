"""How the sparse signal joins the score, and which messages get it, chosen on half A of every
tuning set's requests and confirmed on half B (``toolret.recall._halves``).

``python -m evals.studies.sparse_fusion [--benchmarks DIR] [--out FILE] [--memo FILE]``

Sets: massive-dev (with and without examples), toollens-dev-ml, xsid-dev, the mixed-language
fleet (``evals.recall.mixed_fleet``: toollens-dev with a tenth of its servers described in
Chinese) and the roster's tuning half (its languages are written separately, not translated,
so it has no halves: judged whole, in-sample, on both sides).

Candidates, each against the **reference** (today's default: dense + BM25, no sparse signal):

- the sparse score added at a fixed weight (``+ w × sparse``), as ``SPARSE_PROFILE`` does;
- the sparse score scaled per message to the dense score's spread over the catalog
  (``+ w × σ(dense)/σ(sparse) × sparse``: a z-score fusion, rank-equal to adding the z-scores);
  in memory only: the client's statement ranks by a sum whose weight is known before it runs;
- each behind a gate: ``other_language`` (today's: the message's language holds under a tenth
  of the catalog's texts) or ``described`` (some tools are described in another language than
  the message's, ``toolret.retrieval._sparse.described_elsewhere``);
- each with and without the catalog's calibration ``min5``: no signal on a catalog whose
  descriptions' median length is under five words;
- the chosen one with the dense score centred per description language (``_centred``; memory
  only: the client's statement would need each language's centroid).

**The rule**: on every set and language, on half A (in-sample) and half B (confirming), no
loss of more than ``MAX_LOSS`` point of R@3, R@5 or R@12 against the reference (xsid-dev: R@1
and R@3 and R@5, its 16 tools make R@12 almost all). Of the candidates passing on A, the one
with the best mean R@5 gain on A is chosen; it ships only if it also passes on B.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import TUNE
from evals.recall.mixed_fleet import MIXED_NAME, mixed_fleet
from evals.recall.roster_sets import roster_set
from evals.studies._fusion_signals import FusionSignals, fusion_signals
from evals.studies._report import report_main
from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._halves import BLOCK, HALVES
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._sparse import (
    DESCRIBED_SHARE,
    described_elsewhere,
    described_words,
    written_in,
)

__all__ = ["main", "per_case_recall"]

Matrix = NDArray[np.float64]
MAX_LOSS = 1.0
REFERENCE = "reference (today's default, no sparse)"
TODAY = "+ 1 × sparse, other_language (the opt-in before)"
FIXED = (0.25, 0.5, 0.75, 1.0)
SPREAD = (0.1, 0.2, 0.3)
MIN_WORDS = (0.0, 5.0)
SETS = ("massive-dev", "toollens-dev-ml", "xsid-dev")
CENTRED = "+ 1 × sparse, described, min 5 words, dense centred per description language"


@dataclass
class Measured:
    """One (set, example configuration): recall per (choice, half, language), and the share of
    messages each choice sends the second pass to."""

    name: str
    ks: tuple[int, ...]
    languages: tuple[str, ...]
    recall: dict[tuple[str, str, str], tuple[float, ...]]
    paid: dict[str, float]


def _ranks(x: FusionSignals, scores: Matrix) -> list[list[int]]:
    """Each case's needed tools' ranks among the candidates (ties in catalog order)."""
    masked = np.where(x.candidates[None, :], scores, -np.inf)
    column = np.arange(masked.shape[1])
    out = []
    for row, expected in zip(masked, x.expected, strict=True):
        out.append(
            [
                1
                + int(np.sum(row > row[e] + 1e-9))
                + int(np.sum((np.abs(row - row[e]) <= 1e-9) & (column < e)))
                for e in expected
            ]
        )
    return out


def per_case_recall(ranks: Sequence[Sequence[int]], ks: Sequence[int] = (3, 5, 12)) -> Matrix:
    """Each case's recall at each ``k`` (columns), in points: the share of its needed tools
    ranked within ``k``."""
    return np.array([[100 * np.mean([r <= k for r in rs]) for k in ks] for rs in ranks])


def _reference(x: FusionSignals) -> Matrix:
    weights = np.array([DEFAULT_PROFILE.lexical_weight_for(int(n)) for n in x.words])
    best = x.lexical.max(axis=1, keepdims=True)
    share = np.divide(x.lexical, best, out=np.zeros_like(x.lexical), where=best > 0)
    fused: Matrix = x.dense + weights[:, None] * share
    return fused


def _choices(
    x: FusionSignals, bench: BenchSet, examples: bool
) -> dict[str, tuple[Matrix, NDArray[np.bool_]]]:
    reference = _reference(x)
    catalog = bench.catalog(examples=examples)
    gates = {
        "other_language": np.array([i not in x.catalog_languages for i in x.identified]),
        "described": np.array([described_elsewhere(catalog, c.query) for c in bench.cases]),
    }
    words = described_words(catalog)
    spread_d = x.dense[:, x.candidates].std(axis=1)
    spread_s = x.sparse[:, x.candidates].std(axis=1)
    ratio = np.divide(spread_d, spread_s, out=np.zeros_like(spread_d), where=spread_s > 0)
    none = np.zeros(len(reference), dtype=bool)
    out = {REFERENCE: (reference, none)}
    chosen = gates["described"] & (words >= 5)
    centred = _centred(x, catalog) - x.dense + reference
    out[f"{CENTRED} (memory only)"] = (centred + x.sparse * chosen[:, None], chosen)
    out[TODAY] = (reference + x.sparse * gates["other_language"][:, None], gates["other_language"])
    for gate_name, gate in gates.items():
        for least in MIN_WORDS:
            sent = gate & (words >= least)
            tail = f"{gate_name}{f', min {least:g} words' if least else ''}"
            for w in FIXED:
                out[f"+ {w:g} × sparse, {tail}"] = (reference + w * x.sparse * sent[:, None], sent)
            for w in SPREAD:
                scaled = (w * ratio * sent)[:, None] * x.sparse
                out[f"+ {w:g} × σ-matched sparse, {tail} (memory only)"] = (
                    reference + scaled,
                    sent,
                )
    return out


def _centred(x: FusionSignals, catalog: Catalog) -> Matrix:
    """The dense scores with each description language's tools moved, per message, to the
    mean over the catalog: a message in a language some tools are described in no longer
    prefers them for that alone (languages under ``DESCRIBED_SHARE`` of the tools pooled)."""
    written = [written_in(catalog[n].description or n, short=True) for n in catalog.names]
    kept = {w for w in written if written.count(w) >= DESCRIBED_SHARE * len(written)}
    groups = np.array([w if w in kept else "" for w in written])
    out = x.dense.copy()
    overall = x.dense.mean(axis=1, keepdims=True)
    for group in set(groups.tolist()):
        members = groups == group
        out[:, members] += overall - x.dense[:, members].mean(axis=1, keepdims=True)
    return out


def _measure(x: FusionSignals, bench: BenchSet, examples: bool, *, whole: bool) -> Measured:
    return measure_choices(x, bench, examples, _choices(x, bench, examples), whole=whole)


def measure_choices(
    x: FusionSignals,
    bench: BenchSet,
    examples: bool,
    choices: dict[str, tuple[Matrix, NDArray[np.bool_]]],
    *,
    whole: bool,
) -> Measured:
    """Recall per (choice, half, language) of each choice's scores (and the share of messages
    it sends the second pass to); ``whole``: both halves are the whole set."""
    ks = (1, 3, 5) if bench.name.startswith("xsid") else (3, 5, 12)
    languages = tuple(dict.fromkeys(x.languages))
    language = np.array(x.languages)
    halves = {h: (x.scenarios // BLOCK) % 2 == i for i, h in enumerate(HALVES)}
    if whole:
        halves = {h: np.ones(len(language), dtype=bool) for h in HALVES}
    recall: dict[tuple[str, str, str], tuple[float, ...]] = {}
    paid = {}
    for choice, (scores, sent) in choices.items():
        cases = per_case_recall(_ranks(x, scores), ks)
        paid[choice] = float(sent.mean())
        for half, mask in halves.items():
            for lang in languages:
                rows = np.flatnonzero(mask & (language == lang))
                recall[(choice, half, lang)] = tuple(float(v) for v in cases[rows].mean(axis=0))
    name = f"{bench.name}{' with examples' if examples else ''}"
    return Measured(name, ks, languages, recall, paid)


def _worst(measured: Sequence[Measured], choice: str, half: str) -> tuple[float, str]:
    worst, where = 0.0, ""
    for m in measured:
        for lang in m.languages:
            for k, got, ref in zip(
                m.ks, m.recall[(choice, half, lang)], m.recall[(REFERENCE, half, lang)], strict=True
            ):
                if got - ref < worst:
                    worst, where = got - ref, f"{m.name} {lang} R@{k}"
    return worst, where


def _gain(measured: Sequence[Measured], choice: str, half: str) -> float:
    """Mean R@5 gain over every (set, language) but English (where the signal is meant)."""
    gains = [
        m.recall[(choice, half, lang)][m.ks.index(5)]
        - m.recall[(REFERENCE, half, lang)][m.ks.index(5)]
        for m in measured
        for lang in m.languages
        if lang != "en" or m.name.startswith(MIXED_NAME)
    ]
    return float(np.mean(gains))


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured = []
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            measured.append(_measure(x, bench, flag, whole=whole))
            print(f"[sparse_fusion] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    return _report(measured)


def _report(measured: Sequence[Measured]) -> str:
    choices = list(measured[0].paid)
    lines = [
        "| choice | A (in-sample): worst loss | A: mean R@5 gain | B (confirming): worst loss "
        "| B: mean R@5 gain | messages paying the second pass |",
        "|---|---|---:|---|---:|---|",
    ]
    passing = []
    for choice in choices[1:]:
        a, b = _worst(measured, choice, "A"), _worst(measured, choice, "B")
        paid = ", ".join(f"{m.name} {100 * m.paid[choice]:.0f}%" for m in measured)
        lines.append(
            f"| {choice} | {a[0]:+.1f} {a[1]} | {_gain(measured, choice, 'A'):+.2f} | "
            f"{b[0]:+.1f} {b[1]} | {_gain(measured, choice, 'B'):+.2f} | {paid} |"
        )
        if a[0] >= -MAX_LOSS and "memory only" not in choice:
            passing.append(choice)
    chosen = max(passing, key=lambda c: _gain(measured, c, "A")) if passing else None
    confirmed = chosen is not None and _worst(measured, chosen, "B")[0] >= -MAX_LOSS
    verdict = (
        f"\nChosen on A (passing the rule there, best mean R@5 gain, client-computable): "
        f"**{chosen or 'none'}**; on B it {'passes' if confirmed else 'FAILS'} the rule.\n"
    )
    return "\n".join(lines) + "\n" + verdict + "\n" + _detail(measured, chosen)


def _detail(measured: Sequence[Measured], chosen: str | None) -> str:
    shown = [REFERENCE, TODAY] + ([chosen] if chosen else []) + [f"{CENTRED} (memory only)"]
    return detail(measured, shown)


def detail(
    measured: Sequence[Measured], shown: Sequence[str], halves: Sequence[str] = HALVES
) -> str:
    """Each set's table of the ``shown`` choices, per half (of ``halves``) and language."""
    lines = []
    for m in measured:
        ks = "/".join(f"R@{k}" for k in m.ks)
        lines += [f"{m.name} ({ks}):", "", "| choice | half | " + " | ".join(m.languages) + " |"]
        lines.append("|---|---|" + "---|" * len(m.languages))
        for choice in shown:
            for half in halves:
                cells = [
                    "/".join(f"{v:.1f}" for v in m.recall[(choice, half, lang)])
                    for lang in m.languages
                ]
                label = "A (in-sample)" if half == "A" else "B (confirming)"
                lines.append(f"| {choice} | {label} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/sparse_fusion.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
