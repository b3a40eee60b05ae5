"""Learned vectors in users' languages (tuning): ``python -m evals.studies.learning_languages``.

Learned vectors come from real traffic, so they are in the languages users write. What do they
buy, per language, on catalogs users bring?

- **massive-dev as a fleet** (``as_fleet``: each intent an MCP server's tool, no examples: what
  ``catalog_from_mcp`` builds from a fleet someone else wrote), English and Persian; and
  **toollens-dev-ml** (a real fleet, English descriptions, requests in six languages).
- Split by request (a request and its translations in the same half; the parity of the English
  request's SHA-256): one half is the traffic, the other is measured; then they swap.
- Two paths learn, each with the worker's own decision (``VectorSpace.decide``: a miss at the
  turn's ``k``, at most 16 a tool, none within 0.95 of one kept): **select**, the client's
  reported misses at k 12 (the request's vector); and **the gateway**, a find_tools capability
  whose answer of five lacked the tool the model then found and called (the capability's
  vector; here the request itself is the capability).
- Measured: R@1 / R@5 / R@12 of the hybrid ranking, learned vectors scored as the ranking
  statements score them (within ``LEARNED_MIN_SIMILARITY`` of the message, joining the tool's
  blend), for each (traffic language, measured language).

And why a language gains or not: the share of pairs of requests for the same tool, and for
different tools, whose query vectors lie within the cut-off, per language. Writes
``evals/out/learning_languages.md``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.studies._report import report_main
from toolret._profile import LEARNED_MIN_SIMILARITY
from toolret._tool import render
from toolret.feedback._learning import Decision, LearningPolicy, VectorSpace
from toolret.recall._data import BenchCase, BenchSet, load_benchmark
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scored, Scorer, as_fleet
from toolret.retrieval._memory import DenseIndex

__all__ = ["main"]

OUT = Path(__file__).resolve().parents[1] / "out" / "learning_languages.md"
PATHS = {"select (k 12)": 12, "the gateway (find_tools, 5)": 5}
CUTS = (1, 5, 12)
POLICY = LearningPolicy()


class Learning:
    """One set's vectors and hybrid scores, and what learning from some of its traffic does."""

    def __init__(self, scorer: Scorer, scored: Scored, index: DenseIndex) -> None:
        self.scorer = scorer
        self.scored = scored
        self.index = index
        self.names = list(index.names)
        self.cases = scored.bench.cases

    def order(self, scores: dict[str, float]) -> list[str]:
        return sorted(self.names, key=lambda name: (-scores[name], name))

    def plain(self, case: BenchCase) -> dict[str, float]:
        vector = self.scored.vectors[case.query]
        return self.scorer.hybrid(self.scored, self.index.scores(vector), case.query)

    def learn(self, traffic: Sequence[BenchCase], k: int) -> list[tuple[str, NDArray[np.float32]]]:
        """What the worker promotes from ``traffic``'s misses at ``k`` (a miss: a needed tool
        the hybrid ranking did not put in its top ``k``)."""
        documents = [(name, self.index.descriptions[i]) for i, name in enumerate(self.names)]
        space = VectorSpace(documents, score=self.index.score)
        learned = []
        for case in traffic:
            top = set(self.order(self.plain(case))[:k])
            vector = self.scored.vectors[case.query]
            for tool in case.expected:
                if tool in top:
                    continue
                decision = space.decide(tool, vector, k=k, core=(), policy=POLICY)
                if decision is Decision.PROMOTED:
                    learned.append((tool, vector))
        return learned

    def scores(
        self, case: BenchCase, learned: Sequence[tuple[str, NDArray[np.float32]]]
    ) -> dict[str, float]:
        """The hybrid scores with ``learned`` scored as the ranking statements score them."""
        if not learned:
            return self.plain(case)
        vector = self.scored.vectors[case.query]
        position = {name: i for i, name in enumerate(self.names)}
        owners = np.array([position[tool] for tool, _ in learned], dtype=np.intp)
        matrix = np.stack([v / np.linalg.norm(v) for _, v in learned])
        cosines = (matrix @ (vector / np.linalg.norm(vector))).astype(np.float64)
        near = cosines >= LEARNED_MIN_SIMILARITY
        described = (self.index.descriptions @ vector).astype(np.float64)
        dense = self.index.score.combine(described, cosines[near], owners[near])
        plain = dict(zip(self.names, dense.tolist(), strict=True))
        return self.scorer.hybrid(self.scored, plain, case.query)

    def recall(
        self, cases: Sequence[BenchCase], learned: Sequence[tuple[str, NDArray[np.float32]]]
    ) -> NDArray[np.float64]:
        found = np.zeros(len(CUTS))
        for case in cases:
            ranked = self.order(self.scores(case, learned))
            for j, cut in enumerate(CUTS):
                top = set(ranked[:cut])
                found[j] += sum(t in top for t in case.expected) / len(case.expected)
        return 100 * found / len(cases)


def by_language(bench: BenchSet) -> dict[str, list[BenchCase]]:
    """Each language's cases, in the file's order (the i-th of each is one request)."""
    return {language: list(bench.cases_in(language)) for language in bench.languages}


def halves(english: Sequence[BenchCase]) -> list[list[int]]:
    side = [hashlib.sha256(c.query.encode()).digest()[0] % 2 for c in english]
    return [[i for i, s in enumerate(side) if s == half] for half in (0, 1)]


async def prepare(scorer: Scorer, bench: BenchSet) -> Learning:
    scored = await scorer.prepare(bench, False)
    template = scorer.memo.profile.template
    index = await scorer.index(scored, lambda tool: render(template, tool))
    return Learning(scorer, scored, index)


def _cells(values: NDArray[np.float64]) -> str:
    return " / ".join(f"{value:.1f}" for value in values)


def learning_rows(learning: Learning, traffic_languages: Sequence[str]) -> list[str]:
    languages = by_language(learning.scored.bench)
    sides = halves(languages["en"])
    rows = []
    for path, k in PATHS.items():
        for taught in traffic_languages:
            cells = []
            count = 0
            for measured in languages:
                before = after = np.zeros(len(CUTS))
                for mine, theirs in ((sides[0], sides[1]), (sides[1], sides[0])):
                    traffic = [languages[taught][i] for i in theirs]
                    cases = [languages[measured][i] for i in mine]
                    learned = learning.learn(traffic, k)
                    count += len(learned) if measured == taught else 0
                    before = before + learning.recall(cases, []) / 2
                    after = after + learning.recall(cases, learned) / 2
                cells.append(f"{measured}: {_cells(before)} → {_cells(after)}")
            rows.append(f"| {path} | {taught} | {count // 2} | " + " | ".join(cells) + " |")
    return rows


def own_language_rows(learning: Learning) -> list[str]:
    """Per language: learning from its own traffic, and from English traffic."""
    languages = by_language(learning.scored.bench)
    sides = halves(languages["en"])
    rows = []
    for path, k in PATHS.items():
        for measured in languages:
            cells = []
            for taught in (measured, "en"):
                before = after = np.zeros(len(CUTS))
                count = 0
                for mine, theirs in ((sides[0], sides[1]), (sides[1], sides[0])):
                    learned = learning.learn([languages[taught][i] for i in theirs], k)
                    cases = [languages[measured][i] for i in mine]
                    count += len(learned)
                    before = before + learning.recall(cases, []) / 2
                    after = after + learning.recall(cases, learned) / 2
                cells.append(f"{_cells(before)} → {_cells(after)} ({count // 2})")
            rows.append(f"| {path} | {measured} | " + " | ".join(cells) + " |")
    return rows


def gate_rows(learning: Learning) -> list[str]:
    """Per language, the share of same-tool and different-tool request pairs within the cut-off."""
    rows = []
    for language, cases in by_language(learning.scored.bench).items():
        vectors = np.stack([learning.scored.vectors[c.query] for c in cases])
        vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        similarity = vectors @ vectors.T
        upper = np.triu_indices(len(cases), 1)
        same = np.array([[bool(set(a.expected) & set(b.expected)) for b in cases] for a in cases])[
            upper
        ]
        values = similarity[upper]
        cells = []
        for cut in (0.88, 0.90, LEARNED_MIN_SIMILARITY):
            alike, unlike = np.mean(values[same] >= cut), np.mean(values[~same] >= cut)
            cells.append(f"{100 * alike:.1f}% / {100 * unlike:.2f}%")
        medians = f"{np.median(values[same]):.3f} / {np.median(values[~same]):.3f}"
        rows.append(
            f"| {learning.scored.bench.name} | {language} | {medians} | " + " | ".join(cells) + " |"
        )
    return rows


async def run(benchmarks: Path, memo: MemoEmbedder) -> str:
    scorer = Scorer(memo)
    massive = await prepare(scorer, as_fleet(load_benchmark(benchmarks / "massive-dev")))
    fleet = await prepare(scorer, load_benchmark(benchmarks / "toollens-dev-ml"))
    lines = [
        "## Learned vectors per language (tuning): one half's traffic teaches, the other half"
        " is measured (mean of both ways); R@1 / R@5 / R@12 before → after",
        "",
        "massive-dev as a fleet (no examples):",
        "",
    ]
    lines.append("| path | traffic | vectors learned | en | fa |")
    lines.append("|---|---|---:|---|---|")
    lines += learning_rows(massive, ["en", "fa"])
    lines += [
        "",
        "toollens-dev-ml (a fleet with English descriptions, requests in six languages):",
        "",
        "| path | measured | traffic in its language (vectors learned) | English traffic |",
        "|---|---|---|---|",
    ]
    lines += own_language_rows(fleet)
    lines += [
        "",
        "## Why: request pairs within the cut-off, same tool / different tools (tuning)",
        "",
        "| set | language | median cosine, same / different | ≥ 0.88 | ≥ 0.90 |"
        f" ≥ {LEARNED_MIN_SIMILARITY} (in use) |",
        "|---|---|---|---|---|---|",
    ]
    lines += gate_rows(massive) + gate_rows(fleet)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", run, OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
