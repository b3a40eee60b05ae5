"""The message's vector moved toward the catalog's language by a per-language linear map learned
from half A's parallel requests, chosen on half A of every tuning set and confirmed on half B.

``python -m evals.studies.language_map --half A|B [--benchmarks DIR] [--out FILE] [--memo FILE]``

``--half A`` writes half A's figures and the choice alone (``evals/out/language_map_A.md``);
``--half B``, run once the choice is written down, both halves and the verdict
(``evals/out/language_map_B.md``). Sets, reference and harness are
``evals.studies.language_shift``'s: only the message's vector changes, and the dense score is
recomputed from the moved vector and fused as the reference (today's default: dense + BM25,
centring per description language as shipped, no sparse signal) fuses it.

The tuning sets are parallel (massive-dev en/fa, toollens-dev-ml the same requests in six
languages, xsid-dev the same utterances in eight), so half A holds pairs: a request in ``L`` and
the same request in ``T`` (English, the language of every tuning catalog's descriptions). From
those pairs alone (``language_pairs``, pooled over the three sets' half A; half B never feeds a
map), a map per language: ``f_L(q) = μ_T + (q − μ_L)·M_L``, ``μ`` the pairs' means, and

    ``q' = normalise(q + a·(f_L(q) − q))``

for a message written in ``L`` (``written_in``) on a catalog described in ``T``, only when a map
``L → T`` exists; English on an English catalog, and a language without pairs, stay
byte-identical (``map_queries``). ``M_L = I`` is last session's shift (rank 0). Candidates:

- ``procrustes × a``: ``M_L`` orthogonal, from the centred pairs (``fit_procrustes``), pulled
  toward ``I`` by a negligible ``PULL`` so that directions the pairs never span stay put;
- ``ridge λ=c × a``: ``M_L = I + ΔW``, ``ΔW`` the ridge fit of the residuals ``(y−μ_T) − (x−μ_L)``
  on ``x−μ_L``, ``λ = c ×`` the pairs' mean squared centred norm (``fit_ridge``; large ``c`` is
  the shift), ``c`` ∈ ``RIDGE``;
- ``ridge λ=1, rank r × a``: the same ``ΔW`` at ``c = 1`` cut to its top ``r`` singular
  directions, ``r`` ∈ ``RANKS``;
- ``… , descriptions of 5 words or more``: the ungated map with the best mean R@5 gain on half A
  (losses or not), applied only on catalogs whose descriptions' median is ≥ 5 words
  (``described_words``, the sparse signal's calibration; last session read this gate's half-B
  figures for the shift, so its confirmation here is less clean);

with ``a`` ∈ ``SIZES``: 12 maps and 1 gated map under the rule, 13 in all.

Half A's own messages fed the maps, so on the sets the pairs come from (and the mixed fleet,
which holds toollens-dev-ml's requests) a half-A message is scored with the maps fitted without
its fold (``FOLDS`` folds of half A's blocks of scenarios, ``fold_of``): cross-fitted, so half A
measures requests the map never saw, as half B does. Half B and the roster use the maps fitted
from every half-A pair. For information only
(outside the rule): ``rank 0`` (the shift with the pairs' means), ``ridge λ=1`` fitted from the
other sets' pairs alone (``FOREIGN``; the roster gets every set's), and each with
``TOOLRET_SPARSE=1``'s signal on top (``+ sparse``).

**The rule** (``language_shift``'s, written before the numbers): of the candidates where no
(set, language) row of half A loses more than ``MAX_LOSS`` point of R@3, R@5 or R@12 (xsid-dev:
R@1/3/5) against the reference, the one with the best mean R@5 gain over the non-English rows of
half A is chosen; it **confirms** only if on half B no row loses more than ``MAX_LOSS`` and its
mean gain there is above zero. Each report also gives toollens-dev-ml's R@12 as a share of
English's per language (the held-out judge asks ≥ 0.8).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import TUNE
from evals.recall.mixed_fleet import MIXED_NAME, mixed_fleet
from evals.recall.roster_sets import roster_set
from evals.studies._fusion_signals import fusion_signals
from evals.studies._report import report_main
from evals.studies.language_shift import MEAN_SETS, SPARSE, Ranker, _ranker
from evals.studies.sparse_fusion import (
    MAX_LOSS,
    REFERENCE,
    SETS,
    Measured,
    _gain,
    _worst,
    detail,
    measure_choices,
)
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._halves import BLOCK, HALVES, Half, scenarios
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer
from toolret.retrieval._sparse import described_elsewhere, described_words

__all__ = ["LanguageMap", "fit_procrustes", "fit_ridge", "language_pairs", "main", "map_queries"]

Matrix = NDArray[np.float64]
TARGET = "en"
"""The language pairs are made toward: every tuning catalog's descriptions are English."""
SIZES = (0.5, 1.0)
RIDGE = (0.1, 1.0, 10.0)
RANKS = (4, 16)
FOLDS = 5
"""Half A's own messages are scored with maps fitted without their fold (``fold_of``)."""
PULL = 1e-3
"""Procrustes' pull toward the identity, as a share of the pairs' largest singular value."""
GATED = ", descriptions of 5 words or more"
INFO = " (for information)"
SHARES = ("ar", "fa", "tr", "zh", "ja")
FOREIGN = "ridge λ=1, other sets' pairs only" + INFO
"""``ridge λ=1`` fitted on the other pair sets alone: does a map carry to a catalog whose
requests never fed it (the held-out judge's case)? xsid-dev's de/id/kk then have no map."""


@dataclass(frozen=True)
class LanguageMap:
    """``f(q) = target + (q − source)·(I + delta)``: one language's vectors carried to ``T``'s."""

    source: NDArray[np.float64]
    target: NDArray[np.float64]
    delta: Matrix

    def step(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """``f(q) − q``."""
        out: NDArray[np.float64] = self.target - self.source + (q - self.source) @ self.delta
        return out


Pairs = Mapping[str, tuple[Matrix, Matrix, NDArray[np.intp]]]
Maps = Mapping[tuple[str, str], LanguageMap]


def fold_of(scenarios: NDArray[np.intp]) -> NDArray[np.intp]:
    """Half-A scenarios' folds: their block's position among half A's blocks, modulo ``FOLDS``."""
    out: NDArray[np.intp] = (scenarios // BLOCK // 2) % FOLDS
    return out


async def language_pairs(
    scorer: Scorer, sets: Sequence[BenchSet], target: str = TARGET
) -> tuple[dict[str, tuple[Matrix, Matrix]], Counter[tuple[str, str]]]:
    """Each language's half-A pairs with ``target`` over ``sets``: the query vectors of its
    messages (rows of the first matrix) and of the same scenario's ``target`` message (the
    second), by each case's own label, with each pair's fold (``fold_of``); and how many pairs
    of which set each language has.
    Scenarios are numbered over the whole set (``scenarios``), as ``half_of`` cuts halves; only
    half A's messages are embedded."""
    sources: dict[str, list[NDArray[np.float64]]] = {}
    targets: dict[str, list[NDArray[np.float64]]] = {}
    numbered: dict[str, list[int]] = {}
    fed: Counter[tuple[str, str]] = Counter()
    for bench in sets:
        numbers, _ = scenarios(bench.cases)
        kept = [
            (case, n)
            for case, n in zip(bench.cases, numbers, strict=True)
            if (n // BLOCK) % 2 == HALVES.index("A")
        ]
        originals = {n: case.query for case, n in kept if case.language == target}
        for case, n in kept:
            if case.language == target or n not in originals:
                continue
            x = await scorer.embedder.embed_query(case.query)
            y = await scorer.embedder.embed_query(originals[n])
            sources.setdefault(case.language, []).append(np.asarray(x, dtype=np.float64))
            targets.setdefault(case.language, []).append(np.asarray(y, dtype=np.float64))
            numbered.setdefault(case.language, []).append(n)
            fed[(case.language, bench.name)] += 1
    pairs = {
        lang: (np.stack(sources[lang]), np.stack(targets[lang]), fold_of(np.array(numbered[lang])))
        for lang in sources
    }
    return pairs, fed


def _centred(x: Matrix, y: Matrix) -> tuple[Matrix, Matrix, Matrix, Matrix]:
    source, target = x.mean(axis=0), y.mean(axis=0)
    return source, target, x - source, y - target


def fit_ridge(x: Matrix, y: Matrix, strength: float, rank: int | None = None) -> LanguageMap:
    """``M = I + ΔW``, ``ΔW`` the ridge fit (``λ = strength ×`` the mean squared centred norm)
    of the centred pairs' residuals, cut to its top ``rank`` singular directions if given
    (``rank=0``: the mean shift)."""
    source, target, xc, yc = _centred(x, y)
    penalty = strength * float((xc**2).sum(axis=1).mean())
    gram = xc @ xc.T + penalty * np.eye(len(xc))
    delta: Matrix = xc.T @ np.linalg.solve(gram, yc - xc)
    if rank is not None:
        u, s, vt = np.linalg.svd(delta)
        delta = (u[:, :rank] * s[:rank]) @ vt[:rank]
    return LanguageMap(source, target, delta)


def fit_procrustes(x: Matrix, y: Matrix) -> LanguageMap:
    """``M`` orthogonal, minimising ``‖(x−μ_L)·M − (y−μ_T)‖ + γ‖M − I‖`` with ``γ`` a ``PULL``
    of the largest singular value: where the pairs say nothing, ``M`` is the identity."""
    source, target, xc, yc = _centred(x, y)
    cross = xc.T @ yc
    pull = PULL * float(np.linalg.norm(cross, 2))
    u, _, vt = np.linalg.svd(cross + pull * np.eye(len(cross)))
    return LanguageMap(source, target, u @ vt - np.eye(len(cross)))


def map_queries(
    queries: Matrix, languages: Sequence[str], target: str | None, maps: Maps, size: float
) -> tuple[Matrix, NDArray[np.bool_]]:
    """Each message's vector (a row of ``queries``, written in ``languages``) moved by
    ``size × (f(q) − q)`` and normalised where its language is not ``target`` and a map from it
    to ``target`` exists (and ``size`` is not 0); else byte-identical. Also says which moved."""
    moved = np.array(
        [size != 0 and lang != target and (lang, target) in maps for lang in languages], dtype=bool
    )
    out = queries.copy()
    for i in np.flatnonzero(moved):
        row = queries[i] + size * maps[(languages[i], str(target))].step(queries[i])
        out[i] = row / np.linalg.norm(row)
    return out, moved


def merged(parts: Sequence[Pairs]) -> dict[str, tuple[Matrix, Matrix, NDArray[np.intp]]]:
    """Several sets' pairs as one, per language."""
    out: dict[str, tuple[Matrix, Matrix, NDArray[np.intp]]] = {}
    for part in parts:
        for lang, (x, y, folds) in part.items():
            if lang in out:
                x0, y0, f0 = out[lang]
                x, y, folds = np.vstack([x0, x]), np.vstack([y0, y]), np.concatenate([f0, folds])
            out[lang] = (x, y, folds)
    return out


def fitted(pairs: Pairs, leave: int | None = None) -> dict[str, Maps]:
    """Every map candidate's maps (``L → TARGET``), by name (``× a`` not yet applied), from
    every pair or (``leave``) every pair but that fold's."""
    fits = {
        "procrustes": lambda x, y: fit_procrustes(x, y),
        **{f"ridge λ={c:g}": lambda x, y, c=c: fit_ridge(x, y, c) for c in RIDGE},
        **{f"ridge λ=1, rank {r}": lambda x, y, r=r: fit_ridge(x, y, 1.0, r) for r in RANKS},
        "rank 0" + INFO: lambda x, y: fit_ridge(x, y, 1.0, 0),
    }
    return {
        name: {
            (lang, TARGET): fit(x[folds != leave], y[folds != leave])
            for lang, (x, y, folds) in pairs.items()
        }
        for name, fit in fits.items()
    }


def _choices(
    r: Ranker,
    bench: BenchSet,
    examples: bool,
    maps: Mapping[str, Maps],
    crossed: Sequence[Mapping[str, Maps]],
) -> tuple[dict[str, tuple[Matrix, NDArray[np.bool_]]], dict[str, int]]:
    """Each candidate's scores (and the messages the sparse pass is paid for), and how many
    English-labelled messages each candidate moved. ``crossed``: the maps without each fold,
    for half A's messages of a set the pairs came from (else none: every message gets
    ``maps``, fitted from every half-A pair)."""
    catalog = bench.catalog(examples=examples)
    sent = np.array([described_elsewhere(catalog, c.query) for c in bench.cases])
    sent &= described_words(catalog) >= 5
    described = described_words(catalog) >= 5
    none = np.zeros(len(sent), dtype=bool)
    english = np.array([lang == "en" for lang in r.x.languages])
    moved: dict[str, Matrix] = {REFERENCE: r.queries}
    touched: dict[str, int] = {REFERENCE: 0}
    for fit, found in maps.items():
        for size in SIZES:
            name = f"{fit.removesuffix(INFO)} × {size:g}{INFO if INFO in fit else ''}"
            moved[name], which = map_queries(r.queries, r.identified, r.target, found, size)
            folds = _folds(r, crossed) if fit != FOREIGN else []
            for rows, held in zip(folds, crossed, strict=False):
                languages = [r.identified[i] for i in rows]
                moved[name][rows], which[rows] = map_queries(
                    r.queries[rows], languages, r.target, held[fit], size
                )
            touched[name] = int((which & english).sum())
            if INFO not in fit:
                moved[name + GATED] = moved[name] if described else r.queries
                touched[name + GATED] = touched[name] if described else 0
    out: dict[str, tuple[Matrix, NDArray[np.bool_]]] = {}
    for name, queries in moved.items():
        out[name] = (r.scores(queries), none)
    for name in list(moved):
        out[name + SPARSE] = (out[name][0] + r.x.sparse * sent[:, None], sent)
    return out, touched


def _folds(r: Ranker, crossed: Sequence[object]) -> list[NDArray[np.intp]]:
    """Each fold's half-A messages (by scenario), when there are folds to leave out."""
    in_a = (r.x.scenarios // BLOCK) % 2 == HALVES.index("A")
    fold = fold_of(r.x.scenarios)
    return [np.flatnonzero(in_a & (fold == k)) for k in range(len(crossed))]


async def study(benchmarks: Path, memo: MemoEmbedder, half: Half) -> str:
    tuning = [load_benchmark(benchmarks / name) for name in MEAN_SETS]
    scorer = Scorer(memo)
    pairs, fed = await language_pairs(scorer, tuning)
    maps = fitted(pairs)
    crossed = [fitted(pairs, leave=k) for k in range(FOLDS)]
    own = {bench.name: (await language_pairs(scorer, [bench]))[0] for bench in tuning}
    foreign = {
        name: fitted(merged([p for other, p in own.items() if other != name]))["ridge λ=1"]
        for name in own
    }
    foreign[MIXED_NAME] = foreign["toollens-dev-ml"]
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured: list[Measured] = []
    notes = []
    touched: Counter[str] = Counter()
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            r = await _ranker(scorer, bench, flag, x)
            paired = bench.name in (*MEAN_SETS, MIXED_NAME)
            found = {**maps, FOREIGN: foreign.get(bench.name, maps["ridge λ=1"])}
            choices, moved = _choices(r, bench, flag, found, crossed if paired else ())
            touched.update(moved)
            measured.append(measure_choices(x, bench, flag, choices, whole=whole))
            notes.append(f"- {measured[-1].name}: description language {r.target}")
            print(f"[language_map] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    fit_notes = _fit_notes(pairs, maps, crossed)
    report = _report(measured, touched, half)
    return "\n".join([_fed(fed), "", fit_notes, "", *notes, "", report])


def _fed(fed: Counter[tuple[str, str]]) -> str:
    lines = [f"Half-A pairs (message in L, the same request in {TARGET}) per language:", ""]
    for lang in sorted({lang for lang, _ in fed}):
        parts = ", ".join(f"{s} {n}" for (g, s), n in sorted(fed.items()) if g == lang)
        lines.append(f"- {lang}: {parts}")
    return "\n".join(lines)


def _fit_notes(
    pairs: Pairs, maps: Mapping[str, Maps], crossed: Sequence[Mapping[str, Maps]]
) -> str:
    """How near each fit brings half A's pairs: the mean cosine of ``f(x)`` to ``y`` with the
    maps fitted from every pair (in-sample), and from the other folds (cross-fitted)."""
    languages = sorted(pairs)
    lines = [
        "Half A's pairs, mean cosine to their English original, in-sample fit / cross-fitted:",
        "",
        "| fit | " + " | ".join(languages) + " |",
        "|---|" + "---|" * len(languages),
    ]
    cells = [f"{np.mean(np.sum(pairs[g][0] * pairs[g][1], axis=1)):.3f}" for g in languages]
    lines.append("| unmoved | " + " | ".join(cells) + " |")
    for name, found in maps.items():
        cells = []
        for lang in languages:
            x, y, folds = pairs[lang]
            own = _cosine(found[(lang, TARGET)], x, y)
            held = [
                _cosine(m[name][(lang, TARGET)], x[folds == k], y[folds == k])
                for k, m in enumerate(crossed)
            ]
            cells.append(f"{own.mean():.3f} / {np.concatenate(held).mean():.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cosine(found: LanguageMap, x: Matrix, y: Matrix) -> NDArray[np.float64]:
    f = x + found.step(x)
    out: NDArray[np.float64] = np.sum(f * y, axis=1) / np.linalg.norm(f, axis=1)
    return out


def _ruled(choices: Sequence[str], measured: Sequence[Measured]) -> list[str]:
    """The candidates under the rule: the maps, and the best-gaining map gated (chosen on A)."""
    maps = [c for c in choices if c != REFERENCE and SPARSE not in c and INFO not in c]
    ungated = [c for c in maps if GATED not in c]
    best = max(ungated, key=lambda c: _gain(measured, c, "A"))
    return [*ungated, best + GATED]


def _report(measured: Sequence[Measured], touched: Mapping[str, int], half: Half) -> str:
    choices = list(measured[0].paid)
    ruled = _ruled(choices, measured)
    shown = ruled + [c for c in choices if INFO in c and SPARSE not in c]
    shown += [c + SPARSE for c in [REFERENCE, *shown]]
    halves = HALVES[: HALVES.index(half) + 1]
    head = " | ".join(
        f"{_label(h)}: worst loss | {h}: worst, roster left out | {h}: mean R@5 gain | "
        f"{h}: toollens R@12 / en "
        f"({'/'.join(SHARES)})"
        for h in halves
    )
    lines = [
        f"| choice | {head} | English messages moved |",
        "|---|" + "---|---|---:|---|" * len(halves) + "---:|",
    ]
    toollens = next(m for m in measured if m.name == "toollens-dev-ml")
    # one roster message is 3.4-3.8 points of its rows: say what else loses
    elsewhere = [m for m in measured if not m.name.startswith("roster")]
    for choice in shown:
        cells = []
        for h in halves:
            worst, other = _worst(measured, choice, h), _worst(elsewhere, choice, h)
            cells.append(
                f"{worst[0]:+.1f} {worst[1]} | {other[0]:+.1f} {other[1]} | "
                f"{_gain(measured, choice, h):+.2f} | "
                f"{_share(toollens, choice, h)}"
            )
        moved = touched.get(choice.removesuffix(SPARSE), 0)
        lines.append(f"| {choice} | " + " | ".join(cells) + f" | {moved} |")
    passing = [c for c in ruled if _worst(measured, c, "A")[0] >= -MAX_LOSS]
    chosen = max(passing, key=lambda c: _gain(measured, c, "A")) if passing else None
    lines.append(
        f"\n{len(ruled)} candidates under the rule ({', '.join(ruled)}); "
        f"{len(passing)} pass on A. Chosen on A (no row of A losing more than "
        f"{MAX_LOSS:g} point, best mean R@5 gain there): **{chosen or 'none'}**."
    )
    if half == "B" and chosen is not None:
        confirmed = (
            _worst(measured, chosen, "B")[0] >= -MAX_LOSS and _gain(measured, chosen, "B") > 0
        )
        lines.append(f"On B it {'CONFIRMS' if confirmed else 'does not confirm'}.")
    lines.append("")
    best = max(ruled, key=lambda c: _gain(measured, c, "A"))
    table = [REFERENCE, *dict.fromkeys(c for c in (chosen, best) if c is not None)]
    table += [REFERENCE + SPARSE, (chosen or best) + SPARSE]
    return "\n".join(lines) + "\n" + detail(measured, table, halves)


def _label(half: str) -> str:
    return "A (in-sample)" if half == "A" else "B (confirming)"


def _share(m: Measured, choice: str, half: str) -> str:
    k = m.ks.index(12)
    english = m.recall[(choice, half, "en")][k]
    return "/".join(f"{m.recall[(choice, half, lang)][k] / english:.2f}" for lang in SHARES)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--half", choices=HALVES, default="A")
    known, rest = parser.parse_known_args(argv)
    half: Half = known.half

    async def run(benchmarks: Path, memo: MemoEmbedder) -> str:
        return await study(benchmarks, memo, half)

    out = Path(f"evals/out/language_map_{half}.md")
    return report_main(__doc__ or "", run, out, rest)


if __name__ == "__main__":
    raise SystemExit(main())
