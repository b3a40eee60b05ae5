"""The find_tools path, studied on tuning data: ``python -m evals.studies.find_tools_path``.

Two questions, on the tuning sets only (massive-dev en/fa with and without examples, toollens-dev,
the roster's tuning half; never the held-back half):

1. **Single need at limit 5.** The model asks find_tools with the request itself, nothing bound:
   the share of the request's tools among the five returned (needed-tool recall), for the plain
   top 5 and for answers that spread the five over look-alike clusters (``DIVERSITY``): a cap of
   one tool per look-alike cluster (two tools whose description vectors lie within the lint's
   look-alike cosine, ``toolret.authoring._lint.LOOKALIKE_THRESHOLDS``), or maximal marginal
   relevance over the description vectors at several weights. "lists changed" is the share of
   answers a variant changes at all.
2. **Two phases on a fleet** (toollens-dev): ``select`` at k 12, then one find_tools call with
   several capabilities, the selection bound, five tools per capability. What a model would send
   as a capability is not in the data, so the study feeds phrases taken from the request alone
   (never from a needed tool's description): the request again, its clauses
   (``toolret.recall.studies._fleets.clauses``, sentences and "and"/"then"/commas, at least three
   words), or both. One row feeds each missing tool's own name in words: it leaks the answer and
   is a ceiling on what precise phrases could reach, not a figure to claim.

Every text is embedded once (``MemoEmbedder``), scored as the in-memory retriever scores it
(hybrid, the bundled model's profile). Writes ``evals/out/find_tools_path.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import TUNE
from evals.recall.roster_sets import roster_set
from evals.studies._report import report_main
from toolret._tool import readable_identifier, render
from toolret.authoring._lint import LOOKALIKE_THRESHOLDS
from toolret.recall._data import BenchSet, load_benchmark
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._fleets import SPLITTERS, clauses
from toolret.recall.studies._scoring import Scored, Scorer, server_of
from toolret.retrieval._memory import DenseIndex
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS

__all__ = ["DIVERSITY", "diverse", "main"]

OUT = Path(__file__).resolve().parents[1] / "out" / "find_tools_path.md"
K = 12
LIMIT = MAX_DISCOVERED_TOOLS
POOL = 20
"""Candidates a diverse answer picks its five from (the best ``POOL`` by score)."""
SPLIT = SPLITTERS["sentences, and/then, commas"]


def diverse(
    ranked: Sequence[int],
    scores: NDArray[np.float64],
    vectors: NDArray[np.float32],
    limit: int,
    *,
    cap: float | None = None,
    mmr: float | None = None,
    per_cluster: int = 1,
    free: int = 0,
    servers: Sequence[str] | None = None,
) -> list[int]:
    """``limit`` of ``ranked`` (best first): the plain top, or with ``cap`` (a cosine) at most
    ``per_cluster`` tools per look-alike cluster (the first ``free`` slots plain; with
    ``servers``, only tools of one server are look-alikes), or by maximal marginal relevance of
    weight ``mmr``."""
    pool = list(ranked[:POOL])
    if cap is None and mmr is None:
        return pool[:limit]
    chosen: list[int] = pool[:free]
    if cap is not None:

        def alike(i: int, j: int) -> bool:
            same = servers is None or servers[i] == servers[j]
            return same and float(vectors[i] @ vectors[j]) >= cap

        for i in pool[free:]:
            if sum(alike(i, j) for j in chosen) < per_cluster:
                chosen.append(i)
            if len(chosen) == limit:
                return chosen
        rest = [i for i in pool if i not in chosen]
        return (chosen + rest)[:limit]
    assert mmr is not None
    while pool and len(chosen) < limit:

        def value(i: int) -> float:
            near = max((float(vectors[i] @ vectors[j]) for j in chosen), default=0.0)
            return mmr * float(scores[i]) - (1 - mmr) * near

        best = max(pool, key=value)
        chosen.append(best)
        pool.remove(best)
    return chosen


threshold = LOOKALIKE_THRESHOLDS["multilingual-e5-small-q4@384"]
DIVERSITY: dict[str, dict[str, Any]] = {
    "top 5 (in use)": {},
    f"one per look-alike cluster (cosine ≥ {threshold})": {"cap": threshold},
    "one per cluster at cosine ≥ 0.90": {"cap": 0.90},
    "two per cluster": {"cap": threshold, "per_cluster": 2},
    "one per cluster, first 3 slots plain": {"cap": threshold, "free": 3},
    "one per cluster within a server": {"cap": threshold, "servers": True},
    "MMR 0.9": {"mmr": 0.9},
    "MMR 0.8": {"mmr": 0.8},
    "MMR 0.7": {"mmr": 0.7},
}


@dataclass
class Ranked:
    """One (set, examples) scored: per case its hybrid scores, in catalog order."""

    scored: Scored
    names: list[str]
    vectors: NDArray[np.float32]
    """Description vectors, catalog order."""
    index: DenseIndex
    scorer: Scorer
    servers: list[str]
    """Each tool's MCP server ("" for a tool no server listed), catalog order."""

    def options(self, label: str) -> dict[str, Any]:
        given = dict(DIVERSITY[label])
        if given.pop("servers", False):
            given["servers"] = self.servers
        return given

    def scores(self, text: str, vector: NDArray[np.float32]) -> NDArray[np.float64]:
        fused = self.scorer.hybrid(self.scored, self.index.scores(vector), text)
        return np.array([fused[name] for name in self.names])

    def order(self, scores: NDArray[np.float64], skip: set[int]) -> list[int]:
        ranked = np.lexsort((np.array(self.names), -scores))  # ties by name, as top_k breaks them
        return [int(i) for i in ranked if int(i) not in skip]


async def prepare(scorer: Scorer, bench: BenchSet, examples: bool) -> Ranked:
    scored = await scorer.prepare(bench, examples)
    template = scorer.memo.profile.template
    index = await scorer.index(scored, lambda tool: render(template, tool))
    vectors = index.descriptions.astype(np.float32)
    servers = [server_of(tool) for tool in scored.catalog.tools]
    return Ranked(scored, list(scored.catalog.names), vectors, index, scorer, servers)


async def single_need(ranked: Ranked) -> list[str]:
    """Table 1's rows for one (set, examples): recall@5 per language and variant."""
    rows = []
    bench = ranked.scored.bench
    for language in bench.languages:
        cases = bench.cases_in(language)
        found = dict.fromkeys(DIVERSITY, 0.0)
        changed = dict.fromkeys(DIVERSITY, 0)
        for case in cases:
            scores = ranked.scores(case.query, ranked.scored.vectors[case.query])
            order = ranked.order(scores, set())
            plain = order[:LIMIT]
            for label in DIVERSITY:
                picked = diverse(order, scores, ranked.vectors, LIMIT, **ranked.options(label))
                names = {ranked.names[i] for i in picked}
                found[label] += sum(n in names for n in case.expected) / len(case.expected)
                changed[label] += picked != plain
        n = len(cases)
        cells = [f"{100 * found[label] / n:.1f}" for label in DIVERSITY]
        moved = [f"{100 * changed[label] / n:.0f}%" for label in list(DIVERSITY)[1:]]
        flag = "with examples" if ranked.scored.examples else "no examples"
        rows.append(f"| {bench.name} | {language} | {flag} | {n} | " + " | ".join(cells + moved))
    return rows


CEILING = "ceiling (leaks the answer): each missing tool's name in words"
Phrases = Callable[[str, Sequence[str], set[str]], list[str]]


def _clauses_or_request(query: str) -> list[str]:
    return clauses(query, SPLIT, 3) or [query]


PHRASES: dict[str, Phrases] = {
    "the request again": lambda query, expected, bound: [query],
    "its clauses (the request where it has one)": lambda query, expected, bound: (
        _clauses_or_request(query)
    ),
    "the request and its clauses": lambda query, expected, bound: list(
        dict.fromkeys([query, *clauses(query, SPLIT, 3)])
    ),
    CEILING: lambda query, expected, bound: [
        readable_identifier(name) for name in expected if name not in bound
    ],
}


async def two_phase(ranked: Ranked, diversity: str) -> list[str]:
    """Table 2's rows: per phrase source, what select and then find_tools bound."""
    bench = ranked.scored.bench
    options = ranked.options(diversity)
    cases = bench.cases
    after_select = complete_select = 0.0
    selections: list[set[int]] = []
    for case in cases:
        scores = ranked.scores(case.query, ranked.scored.vectors[case.query])
        chosen = set(ranked.order(scores, set())[:K])
        selections.append(chosen)
        names = {ranked.names[i] for i in chosen}
        after_select += sum(n in names for n in case.expected) / len(case.expected)
        complete_select += all(n in names for n in case.expected)
    rows = []
    for label, phrases in PHRASES.items():
        bound_share = complete = calls = added = 0.0
        for case, chosen in zip(cases, selections, strict=True):
            names = {ranked.names[i] for i in chosen}
            asked = phrases(case.query, case.expected, names)
            vectors = [await ranked.scorer.embedder.embed_query(text) for text in asked]
            taken = set(chosen)
            for text, vector in zip(asked, vectors, strict=True):
                scores = ranked.scores(text, vector)
                order = ranked.order(scores, taken)
                found = diverse(order, scores, ranked.vectors, LIMIT, **options)
                taken.update(found)
                added += len(found)
            calls += len(asked)
            have = {ranked.names[i] for i in taken}
            bound_share += sum(n in have for n in case.expected) / len(case.expected)
            complete += all(n in have for n in case.expected)
        n = len(cases)
        rows.append(
            f"| {label} | {diversity} | {100 * after_select / n:.1f} | {100 * bound_share / n:.1f}"
            f" | {100 * complete_select / n:.1f} | {100 * complete / n:.1f} | {calls / n:.2f}"
            f" | {added / n:.1f} |"
        )
    return rows


async def run(benchmarks: Path, memo: MemoEmbedder) -> str:
    scorer = Scorer(memo)
    sets = [
        load_benchmark(benchmarks / "massive-dev"),
        load_benchmark(benchmarks / "toollens-dev"),
        roster_set(TUNE),
    ]
    head = " | ".join(DIVERSITY)
    moved = " | ".join(f"changed: {label}" for label in list(DIVERSITY)[1:])
    lines = [
        "## find_tools, one need at limit 5 (tuning): needed-tool recall@5",
        "",
        f"| set | language | examples | cases | {head} | {moved} |",
        "|" + "---|" * (4 + 2 * len(DIVERSITY) - 1),
    ]
    fleet: Ranked | None = None
    for bench in sets:
        for flag in bench.example_flags:
            ranked = await prepare(scorer, bench, flag)
            lines += await single_need(ranked)
            if bench.name == "toollens-dev":
                fleet = ranked
    assert fleet is not None
    lines += [
        "",
        "## Two phases on toollens-dev (tuning): select at k 12, then find_tools (5 a capability)",
        "",
        "| capabilities sent | find_tools answer | needed bound after select | after find_tools"
        " | tasks complete after select | after find_tools | capabilities a task | tools added |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for diversity in DIVERSITY:
        lines += await two_phase(fleet, diversity)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", run, OUT, argv)


if __name__ == "__main__":
    raise SystemExit(main())
