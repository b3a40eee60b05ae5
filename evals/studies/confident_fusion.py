"""When the sparse signal should defer to a confident dense ranking, chosen on half A of every
tuning set's requests and confirmed on half B (``toolret.recall._halves``).

``python -m evals.studies.confident_fusion [--benchmarks DIR] [--out FILE] [--memo FILE]``

The sets, the rule and the cached score matrices are ``evals.studies.sparse_fusion``'s
(massive-dev with and without examples, toollens-dev-ml, xsid-dev, the mixed-language fleet, the
roster's tuning half judged whole, in-sample on both sides). Every candidate keeps today's opt-in
(``SPARSE_PROFILE``: the ``described_elsewhere`` gate, descriptions of at least five words, the
length ramp 4 → 8 words) and multiplies its weight ``g`` per message by a factor read from the
message's scores over the catalog:

- **dense's margin** (top-1 minus top-2 dense score, in the model's cosine units): the whole
  weight below ``t``, none from ``2t`` on, linear between (``margin t``); the same as a step
  (``margin < t``);
- **dense's margin over its head** (top-1 minus top-2, over top-1 minus the k-th): no unit, so
  no threshold to tune beyond ``k`` (``1 − head margin, k``);
- **dense's confidence over the catalog** (top-1 against the candidates' mean, in standard
  deviations; memory only: the client's statements do not score every tool);
- **sparse's own confidence** (its top-1 minus top-2 sparse score) and **the heads' agreement**
  (dense's best tool among sparse's best three, and the reverse), both memory only as measured
  here;
- **sparse within dense's near-ties**: the sparse term of each tool clipped, per message, so that
  no tool gains on dense's best by more than ``t`` (a bound, not a weight).

**The rule** (``sparse_fusion``'s): on every set and language, no loss of more than
``MAX_LOSS`` point of R@3, R@5 or R@12 (xsid-dev: R@1/3/5) against today's default (no sparse).
**The choice**: of the client-computable candidates that, on half A, pass the rule, keep at least
``KEEP`` of today's opt-in's mean R@5 gain, and are *selective* (the share of today's opt-in's
lost cases they give back, over every set, is larger than the share of its won cases they give
up: a case is lost or won when the share of its needed tools in the top 3 falls or rises against
the default), the most selective; it holds only if it does all three on half B too. Half B is
read only once (``CONFIDENT_FUSION_HALF_B=1``). The report ends with what a per-message rule
could read (dense's and sparse's margins, dense's z over the catalog), in medians over the
messages today's opt-in loses, wins and leaves alike. Writes ``evals/out/confident_fusion.md``.
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

__all__ = ["main"]

Matrix = NDArray[np.float64]
Vector = NDArray[np.float64]
TODAY = "today's opt-in: + g × sparse (gate, min 5 words, ramp 4→8)"

Factor = Callable[[FusionSignals], Vector]
"""A candidate's factor on each message's opt-in weight ``g``."""


def _head(x: FusionSignals, scores: Matrix) -> Matrix:
    """Each message's candidate scores, best first."""
    masked = np.where(x.candidates[None, :], scores, -np.inf)
    return -np.sort(-masked, axis=1)


def margin(x: FusionSignals) -> Vector:
    """Dense's top-1 minus top-2 score."""
    head = _head(x, x.dense)
    out: Vector = head[:, 0] - head[:, 1]
    return out


def _margin_ramp(t: float) -> Factor:
    return lambda x: np.clip(2.0 - margin(x) / t, 0.0, 1.0)


def _margin_step(t: float) -> Factor:
    return lambda x: (margin(x) < t).astype(np.float64)


def _head_share(k: int) -> Factor:
    def factor(x: FusionSignals) -> Vector:
        head = _head(x, x.dense)
        spread = head[:, 0] - head[:, min(k, head.shape[1]) - 1]
        share = np.divide(
            head[:, 0] - head[:, 1], spread, out=np.zeros(len(head)), where=spread > 0
        )
        out: Vector = 1.0 - share
        return out

    return factor


def _catalog_z(t: float) -> Factor:
    def factor(x: FusionSignals) -> Vector:
        dense = x.dense[:, x.candidates]
        sigma = dense.std(axis=1)
        z = np.divide(
            dense.max(axis=1) - dense.mean(axis=1), sigma, out=np.zeros(len(dense)), where=sigma > 0
        )
        out: Vector = np.clip(2.0 - z / t, 0.0, 1.0)
        return out

    return factor


def _sparse_margin(t: float) -> Factor:
    def factor(x: FusionSignals) -> Vector:
        head = _head(x, x.sparse)
        out: Vector = np.clip((head[:, 0] - head[:, 1]) / t, 0.0, 1.0)
        return out

    return factor


def _agree(dense_in_sparse: bool) -> Factor:
    def factor(x: FusionSignals) -> Vector:
        d = np.where(x.candidates[None, :], x.dense, -np.inf)
        s = np.where(x.candidates[None, :], x.sparse, -np.inf)
        first, other = (d, s) if dense_in_sparse else (s, d)
        best = first.argmax(axis=1)
        top = np.argsort(-other, axis=1)[:, :3]
        agree = np.array([b in row for b, row in zip(best, top, strict=True)])
        return (~agree).astype(np.float64)

    return factor


FACTORS: dict[str, Factor] = {}
for _t in (0.005, 0.01, 0.02):
    FACTORS[f"margin ramp {_t:g} (client)"] = _margin_ramp(_t)
for _t in (0.01, 0.02, 0.04):
    FACTORS[f"margin < {_t:g} (client)"] = _margin_step(_t)
for _k in (3, 5, 10, 20):
    FACTORS[f"1 − head margin, k {_k} (client)"] = _head_share(_k)
for _t in (2.0, 3.0):
    FACTORS[f"catalog z ramp {_t:g} (memory only)"] = _catalog_z(_t)
for _t in (0.01, 0.02):
    FACTORS[f"sparse margin / {_t:g} (memory only)"] = _sparse_margin(_t)
FACTORS["dense's best not in sparse's 3 best (memory only)"] = _agree(True)
FACTORS["sparse's best not in dense's 3 best (memory only)"] = _agree(False)
TIES = (0.01, 0.02, 0.04)
BLOCKS = (2, 3, 5)
PLACES = ((1, 1), (1, 3), (2, 3), (2, 5), (3, 5), (3, 12))
KEEP = 0.9
"""A candidate keeps the gains when its mean R@5 gain is at least this share of today's."""
CONFIRM = os.environ.get("CONFIDENT_FUSION_HALF_B") == "1"
"""Half B is read only once the choice is made on A (``CONFIDENT_FUSION_HALF_B=1``)."""


def _near_ties(x: FusionSignals, weight: Vector, t: float) -> Matrix:
    """Each tool's sparse term, clipped so that it gains on dense's best tool by at most ``t``."""
    term = weight[:, None] * x.sparse
    best = np.where(x.candidates[None, :], x.dense, -np.inf).argmax(axis=1)
    ceiling = term[np.arange(len(term)), best][:, None] + t
    clipped: Matrix = np.minimum(term, ceiling)
    return clipped


def _head_block(x: FusionSignals, weight: Vector, m: int) -> Matrix:
    """Each tool's sparse term, where dense's ``m`` best tools all get the best of theirs: the
    head moves as a block, in dense's order, and sparse lifts other tools past it or not."""
    term = weight[:, None] * x.sparse
    masked = np.where(x.candidates[None, :], x.dense, -np.inf)
    head = np.argsort(-masked, axis=1, kind="stable")[:, :m]
    rows = np.arange(len(term))[:, None]
    out: Matrix = term.copy()
    out[rows, head] = term[rows, head].max(axis=1, keepdims=True)
    return out


def _kept(
    x: FusionSignals, fused: Matrix, sent: NDArray[np.bool_], best: int, place: int
) -> Matrix:
    """``fused``, where the message got the sparse signal, with each of dense's ``best`` best
    tools raised, where it fell below, to just above the tool in the ``place``-th place among
    the others: the sparse signal may move dense's head down, but not out of the first
    ``place``."""
    out = fused.copy()
    masked = np.where(x.candidates[None, :], x.dense, -np.inf)
    heads = np.argsort(-masked, axis=1, kind="stable")[:, :best]
    for row in np.flatnonzero(sent):
        for b in heads[row][::-1]:  # the best last, so it ends above the others
            others = np.where(x.candidates, out[row], -np.inf)
            others[b] = -np.inf
            bar = np.sort(others)[::-1][place - 1]
            if out[row, b] <= bar:
                out[row, b] = bar + 1e-6
    return out


def _choices(
    x: FusionSignals, bench: BenchSet, examples: bool
) -> dict[str, tuple[Matrix, NDArray[np.bool_]]]:
    catalog = bench.catalog(examples=examples)
    texts = [case.query for case in bench.cases]
    gate = np.array([described_elsewhere(catalog, t) for t in texts], dtype=np.float64)
    gate *= described_words(catalog) >= 5
    g = gate * np.array([length_share(t, 4, 8) for t in texts])
    reference = _reference(x)
    out = {REFERENCE: (reference, np.zeros(len(texts), dtype=bool))}
    out[TODAY] = (reference + g[:, None] * x.sparse, g > 0)
    for name, factor in FACTORS.items():
        w = g * factor(x)
        out[name] = (reference + w[:, None] * x.sparse, w > 0)
    for t in TIES:
        out[f"near ties {t:g} (client?)"] = (reference + _near_ties(x, g, t), g > 0)
    for m in BLOCKS:
        out[f"dense's {m} best as a block (client)"] = (reference + _head_block(x, g, m), g > 0)
    fused = reference + g[:, None] * x.sparse
    for best, place in PLACES:
        name = f"dense's {best} best kept in the top {place} (client)"
        out[name] = (_kept(x, fused, g > 0, best, place), g > 0)
    return out


Turns = dict[tuple[str, str], tuple[int, int]]
"""Per (choice, half): cases whose needed tools' share in the top 3 the choice lowers and
raises against the reference, over every set and language."""


def _turns(
    x: FusionSignals, choices: dict[str, tuple[Matrix, NDArray[np.bool_]]], whole: bool
) -> Turns:
    halves = {"A": (x.scenarios // BLOCK) % 2 == 0, "B": (x.scenarios // BLOCK) % 2 == 1}
    if whole:
        halves = {h: np.ones(len(x.languages), dtype=bool) for h in halves}
    hits = {
        c: np.array([np.mean([r <= 3 for r in row]) for row in _ranks(x, s)])
        for c, (s, _) in choices.items()
    }
    out: Turns = {}
    for choice, got in hits.items():
        for half, mask in halves.items():
            delta = (got - hits[REFERENCE])[mask]
            out[(choice, half)] = (int(np.sum(delta < 0)), int(np.sum(delta > 0)))
    return out


Features = dict[tuple[str, str], list[NDArray[np.float64]]]
"""Per (half, "lost" / "won" / "same"): each message today's opt-in sends, its features."""
FEATURES = (
    "dense d1 − d2",
    "(d1 − d2) / (d1 − d5)",
    "dense top-1 z",
    "sparse s1 − s2",
    "sparse s1",
)


def _features(
    x: FusionSignals, choices: dict[str, tuple[Matrix, NDArray[np.bool_]]], whole: bool
) -> Features:
    """What a per-message rule could read, for the messages today's opt-in loses, wins and
    leaves alike against the reference (the needed tools' share in the top 3)."""
    dense, sparse = _head(x, x.dense), _head(x, x.sparse)
    candidates = x.dense[:, x.candidates]
    sigma = candidates.std(axis=1)
    rows = np.stack(
        [
            dense[:, 0] - dense[:, 1],
            (dense[:, 0] - dense[:, 1]) / np.maximum(dense[:, 0] - dense[:, 4], 1e-9),
            (dense[:, 0] - candidates.mean(axis=1)) / np.maximum(sigma, 1e-9),
            sparse[:, 0] - sparse[:, 1],
            sparse[:, 0],
        ],
        axis=1,
    )
    hit = {
        c: np.array([np.mean([r <= 3 for r in row]) for row in _ranks(x, choices[c][0])])
        for c in (REFERENCE, TODAY)
    }
    delta, sent = hit[TODAY] - hit[REFERENCE], choices[TODAY][1]
    out: Features = {}
    for i, half in enumerate(("A", "B")):
        mask = sent & (
            np.ones(len(delta), dtype=bool) if whole else (x.scenarios // BLOCK) % 2 == i
        )
        for outcome, chosen in (("lost", delta < 0), ("won", delta > 0), ("same", delta == 0)):
            out.setdefault((half, outcome), []).append(rows[mask & chosen])
    return out


def _feature_table(features: Features) -> str:
    lines = [
        "Medians over the messages today's opt-in sends, by what it does to them against the "
        "default (all sets pooled; n cases):",
        "",
        "| half | outcome | n | " + " | ".join(FEATURES) + " |",
        "|---|---|---:|" + "---:|" * len(FEATURES),
    ]
    for (half, outcome), parts in features.items():
        if half == "B" and not CONFIRM:
            continue
        rows = np.concatenate(parts)
        medians = np.median(rows, axis=0) if len(rows) else np.full(len(FEATURES), np.nan)
        cells = " | ".join(f"{v:.4f}" for v in medians)
        lines.append(f"| {half} | {outcome} | {len(rows)} | {cells} |")
    return "\n".join(lines) + "\n"


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured = []
    turns: Turns = {}
    features: Features = {}
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            choices = _choices(x, bench, flag)
            measured.append(measure_choices(x, bench, flag, choices, whole=whole))
            for key, found in _features(x, choices, whole).items():
                features.setdefault(key, []).extend(found)
            for key, (lost, won) in _turns(x, choices, whole).items():
                before = turns.get(key, (0, 0))
                turns[key] = (before[0] + lost, before[1] + won)
            print(f"[confident_fusion] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    return _report(measured, turns) + "\n" + _feature_table(features)


def _selective(turns: Turns, choice: str, half: str) -> float:
    """The share of today's lost cases the choice gives back minus the share of its won cases
    it gives up: above 0 when it defers more where dense was right than where it was wrong."""
    lost, won = turns[(TODAY, half)]
    got_lost, got_won = turns[(choice, half)]
    return (lost - got_lost) / max(lost, 1) - (won - got_won) / max(won, 1)


def _passes(measured: Sequence[Measured], turns: Turns, choice: str, half: str) -> bool:
    kept = _gain(measured, choice, half) >= KEEP * _gain(measured, TODAY, half)
    within = _worst(measured, choice, half)[0] >= -MAX_LOSS
    return within and kept and _selective(turns, choice, half) > 0


def _report(measured: Sequence[Measured], turns: Turns) -> str:
    choices = list(measured[0].paid)
    lines = [
        "| choice | A (in-sample): worst loss | A: mean R@5 gain | A: cases lost / won at R@3 "
        "| A: selectivity | B (confirming): worst loss | B: mean R@5 gain "
        "| B: cases lost / won at R@3 | B: selectivity | messages given any sparse weight |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for choice in choices[1:]:
        cells = []
        for half in ("A", "B") if CONFIRM else ("A",):
            worst, where = _worst(measured, choice, half)
            lost, won = turns[(choice, half)]
            cells += [
                f"{worst:+.1f} {where}",
                f"{_gain(measured, choice, half):+.2f}",
                f"{lost} / {won}",
                f"{100 * _selective(turns, choice, half):+.1f}",
            ]
        if not CONFIRM:
            cells += ["(not read)"] * 4
        paid = ", ".join(f"{m.name} {100 * m.paid[choice]:.0f}%" for m in measured)
        lines.append(f"| {choice} | " + " | ".join(cells) + f" | {paid} |")
    passing = [
        c for c in choices[2:] if "memory only" not in c and _passes(measured, turns, c, "A")
    ]
    chosen = max(passing, key=lambda c: _selective(turns, c, "A")) if passing else None
    verdict = (
        "\nChosen on A (client-computable, within the rule, at least "
        f"{KEEP:.0%} of today's mean R@5 gain, the best selectivity above 0): "
        f"**{chosen or 'none'}**"
    )
    if CONFIRM and chosen is not None:
        confirmed = _passes(measured, turns, chosen, "B")
        verdict += f"; on B it {'holds' if confirmed else 'does NOT hold'}"
    shown = [REFERENCE, TODAY] + ([chosen] if chosen else [])
    return "\n".join(lines) + "\n" + verdict + ".\n\n" + detail(measured, shown)


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/confident_fusion.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
