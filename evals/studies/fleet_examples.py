"""What examples buy on a fleet: ``python -m evals.studies.fleet_examples`` (tuning data).

toollens-dev's requests are split in two halves by request (the parity of the first byte of a
request's SHA-256, so the split does not follow the file's order). One half's requests stand in
for what users of the fleet asked before; the other half is measured; then the halves swap. The
rows:

- **no examples**: the fleet as listed (the default, hybrid);
- **written examples**: each earlier request as an example of every tool it needed, as a person
  keeps them in the catalog's examples file (what ``toolret examples suggest`` proposes, if a
  model wrote requests like the users'): embedded as the bundled model embeds examples, read by
  BM25 too;
- **learned from misses**: each earlier request's query vector as a learned vector of each tool
  it needed and the selection missed (not in its top 12), as the worker promotes them
  (``toolret.feedback._learning``: at most ``cap_per_tool`` a tool, none within
  ``duplicate_similarity`` of one kept), scored only within ``LEARNED_MIN_SIMILARITY`` of the
  message, as the ranking statements score them; no text, so BM25 is unchanged;
- **learned from every call**: the same for every tool the earlier request needed, hit or miss
  (what learning would know if hits were promoted too).

"covered" is the share of the measured half's needed tools that an earlier request needed at all:
examples can only help those. Writes ``evals/out/fleet_examples.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.studies._report import report_main
from toolret._profile import LEARNED_MIN_SIMILARITY
from toolret._tool import render
from toolret.feedback._learning import LearningPolicy
from toolret.recall._data import BenchCase, BenchSet, load_benchmark
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer

__all__ = ["halves", "main"]

OUT = Path(__file__).resolve().parents[1] / "out" / "fleet_examples.md"
K = 12
CUTS = (5, 12, 20)
POLICY = LearningPolicy()


def halves(cases: Sequence[BenchCase]) -> tuple[tuple[BenchCase, ...], tuple[BenchCase, ...]]:
    """The two halves of the requests, by the parity of each request's hash."""
    first = tuple(c for c in cases if hashlib.sha256(c.query.encode()).digest()[0] % 2 == 0)
    return first, tuple(c for c in cases if c not in first)


def _order(names: list[str], scores: dict[str, float]) -> list[str]:
    return sorted(names, key=lambda name: (-scores[name], name))


class Fleet:
    """toollens-dev's vectors, scored as the in-memory retriever scores them (hybrid)."""

    def __init__(self, scorer: Scorer, bench: BenchSet) -> None:
        self.scorer = scorer
        self.bench = bench

    async def scores_with(
        self, examples: dict[str, list[str]], cases: Sequence[BenchCase]
    ) -> dict[str, dict[str, float]]:
        """Hybrid scores per measured request, the catalog holding ``examples``."""
        given = {tool: {"en": tuple(texts)} for tool, texts in examples.items()}
        bench = dataclasses.replace(self.bench, examples=given, cases=tuple(cases))
        scored = await self.scorer.prepare(bench, bool(given))
        template = self.scorer.memo.profile.template
        index = await self.scorer.index(scored, lambda tool: render(template, tool))
        return {
            c.query: self.scorer.hybrid(scored, index.scores(scored.vectors[c.query]), c.query)
            for c in cases
        }

    async def learned(
        self,
        traffic: Sequence[BenchCase],
        cases: Sequence[BenchCase],
        *,
        misses_only: bool,
        policy: LearningPolicy = POLICY,
    ) -> tuple[dict[str, dict[str, float]], int]:
        """Hybrid scores per measured request with ``traffic`` learned, and how many vectors."""
        bench = dataclasses.replace(self.bench, examples={}, cases=tuple([*traffic, *cases]))
        scored = await self.scorer.prepare(bench, False)
        template = self.scorer.memo.profile.template
        index = await self.scorer.index(scored, lambda tool: render(template, tool))
        names = list(index.names)
        position = {name: i for i, name in enumerate(names)}
        kept: dict[str, list[NDArray[np.float32]]] = {}
        for case in traffic:
            vector = scored.vectors[case.query]
            fused = self.scorer.hybrid(scored, index.scores(vector), case.query)
            top = set(_order(names, fused)[:K])
            for tool in case.expected:
                if misses_only and tool in top:
                    continue
                mine = kept.setdefault(tool, [])
                near = max((float(v @ vector) for v in mine), default=0.0)
                if len(mine) < policy.cap_per_tool and near < policy.duplicate_similarity:
                    mine.append(vector)
        owners = np.array([position[t] for t, vs in kept.items() for _ in vs], dtype=np.intp)
        matrix = np.stack([v for vs in kept.values() for v in vs]) if len(owners) else None
        out = {}
        for case in cases:
            vector = scored.vectors[case.query]
            described = (index.descriptions @ vector).astype(np.float64)
            if matrix is None:
                dense = described
            else:
                cosines = (matrix @ vector).astype(np.float64)
                near = cosines >= LEARNED_MIN_SIMILARITY
                dense = index.score.combine(described, cosines[near], owners[near])
            plain = dict(zip(names, dense.tolist(), strict=True))
            out[case.query] = self.scorer.hybrid(scored, plain, case.query)
        return out, len(owners)


def _row(cases: Sequence[BenchCase], scores: dict[str, dict[str, float]]) -> list[float]:
    recall = {cut: 0.0 for cut in CUTS}
    complete = 0.0
    for case in cases:
        ranked = _order(list(scores[case.query]), scores[case.query])
        for cut in CUTS:
            top = set(ranked[:cut])
            recall[cut] += sum(t in top for t in case.expected) / len(case.expected)
        complete += all(t in set(ranked[:K]) for t in case.expected)
    n = len(cases)
    return [100 * recall[cut] / n for cut in CUTS] + [100 * complete / n]


async def run(benchmarks: Path, memo: MemoEmbedder) -> str:
    scorer = Scorer(memo)
    bench = load_benchmark(benchmarks / "toollens-dev")
    fleet = Fleet(scorer, bench)
    first, second = halves(bench.cases)
    lines = [
        "## Examples on a fleet (toollens-dev, tuning): one half's requests teach, the other is"
        " measured",
        "",
        "| measured half | examples from the other half | R@5 (= find_tools at 5) | R@12 | R@20"
        " | all@12 | covered | vectors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals: dict[str, list[list[float]]] = {}
    for name, taught, measured in (("A", second, first), ("B", first, second)):
        needed = {tool for case in taught for tool in case.expected}
        wanted = [tool for case in measured for tool in case.expected]
        covered = 100 * sum(tool in needed for tool in wanted) / len(wanted)
        written: dict[str, list[str]] = {}
        for case in taught:
            for tool in case.expected:
                written.setdefault(tool, []).append(case.query)
        plain = await fleet.scores_with({}, measured)
        with_written = await fleet.scores_with(written, measured)
        misses, n_misses = await fleet.learned(taught, measured, misses_only=True)
        every, n_every = await fleet.learned(taught, measured, misses_only=False)
        variants = (
            ("none (the fleet as listed)", plain, 0),
            ("written examples", with_written, sum(map(len, written.values()))),
            ("learned from misses", misses, n_misses),
            ("learned from every call", every, n_every),
        )
        for label, scores, vectors in variants:
            cells = _row(measured, scores)
            totals.setdefault(label, []).append(cells)
            shown = " | ".join(f"{value:.1f}" for value in cells)
            lines.append(
                f"| {name} ({len(measured)}) | {label} | {shown} | {covered:.0f}% | {vectors} |"
            )
    lines += ["", "Both halves, mean:", "", "| examples | R@5 | R@12 | R@20 | all@12 |"]
    lines.append("|---|---:|---:|---:|---:|")
    for label, rows in totals.items():
        mean = np.mean(np.array(rows), axis=0)
        lines.append(f"| {label} | " + " | ".join(f"{value:.1f}" for value in mean) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", run, OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
