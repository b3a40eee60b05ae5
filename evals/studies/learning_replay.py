"""Learning from misses, replayed: ``python -m evals.studies.learning_replay`` (part of ``make
eval``).

Each experiment starts from a published corpus with an empty learned layer and:

1. measures recall@1/5/12 of the test cases per language, through the database client's ranking;
2. replays *traffic* through the real path: ``client.select`` at the deployed ``k``, the tool the
   request needed reported as called (``toolret.feedback._signals.turn_feedback`` with the query
   vector the client's cache kept), and the worker's own job
   (``toolret.worker._feedback.record_feedback``) storing it and promoting misses, one turn after
   another, so later selections see what
   earlier ones taught. Redis is left out: it only carries the payload (tests/test_feedback.py
   drives the queue);
3. measures the test cases again, and counts learned vectors.

On the roster: traffic is ``evals.data.traffic`` (new requests, apart from both halves of the
cases), the test is the held-back half. Every language's traffic is also left out once, to show what
learning does to a language that sent none. On ``../shared/benchmarks/massive-dev`` (read at run
time, never copied; ``--bench DIR`` points elsewhere; skipped, saying so, when it is absent):
the catalog is the intents' descriptions, traffic the train-split utterances of
``examples.json``, the test ``cases.jsonl`` (valid split); the same utterances written in as
hand-picked examples are the reference, and English traffic alone shows what learning does to
Persian. Results go to ``evals/out/learning.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text

from evals.data.cases import CASES, HELD
from evals.data.traffic import traffic_in
from evals.perf.database import database, machine
from toolret._catalog import Catalog
from toolret._profile import corpus_hash
from toolret._tool import Tool
from toolret.demo.roster import build_catalog
from toolret.embedders._e5 import BundledE5Embedder
from toolret.feedback._signals import turn_feedback
from toolret.feedback._store import FeedbackStore
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._vector_store import VectorStore
from toolret.worker._feedback import record_feedback

__all__ = ["Experiment", "Outcome", "main"]

KS = (1, 5, 12)
MASSIVE = next(
    (
        folder / "shared" / "benchmarks" / "massive-dev"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "benchmarks" / "massive-dev").is_dir()
    ),
    Path("../shared/benchmarks/massive-dev"),
)
"""``../shared/benchmarks/massive-dev`` from the checkout (or a worktree below it)."""
BUDGET = 60.0
"""Generous: the replay measures ranking, not machine load."""

Case = tuple[str, str, tuple[str, ...]]
"""(language, request, needed tools)."""


@dataclass(frozen=True)
class Experiment:
    """One replay: a catalog, the traffic fed back, the test cases, the deployed ``k``."""

    name: str
    catalog: Catalog
    traffic: Sequence[Case]
    test: Sequence[Case]
    k: int


@dataclass(frozen=True)
class Outcome:
    """Recall per language before and after the replay, and what was learned."""

    experiment: Experiment
    before: dict[str, dict[int, float]]
    after: dict[str, dict[int, float]]
    cases: dict[str, int]
    traffic_languages: tuple[str, ...]
    misses: int
    learned: int
    seconds: float


async def recall(
    client: ToolRetrievalClient, catalog: Catalog, test: Sequence[Case]
) -> tuple[dict[str, dict[int, float]], dict[str, int]]:
    """Mean recall@k per language: the share of a case's non-core tools in the top k."""
    sums: dict[str, dict[int, float]] = {}
    counts: dict[str, int] = {}
    everything = len(catalog.candidates)
    for language, prompt, tools in test:
        needed = [t for t in tools if t in catalog and not catalog[t].core]
        if not needed:
            continue
        ranking = await client.rank(catalog, prompt, k=everything)
        order = sorted(ranking.scores, key=lambda n: (-ranking.scores[n], catalog.position(n)))
        row = sums.setdefault(language, dict.fromkeys(KS, 0.0))
        for k in KS:
            row[k] += sum(t in order[:k] for t in needed) / len(needed)
        counts[language] = counts.get(language, 0) + 1
    return {lang: {k: v / counts[lang] for k, v in row.items()} for lang, row in sums.items()}, (
        counts
    )


async def run(experiment: Experiment, store: VectorStore, embedder: MemoEmbedder) -> Outcome:
    """Index the catalog, clear its learned layer, measure, replay the traffic, measure again."""
    started = time.perf_counter()
    catalog = experiment.catalog
    feedback = FeedbackStore(store)
    model_id = embedder.model_id
    corpus = corpus_hash(catalog, embedder)
    await _clear(store, model_id, corpus)
    ctx: dict[str, Any] = {"store": store, "embedder": embedder}
    misses = 0
    async with ToolRetrievalClient(
        store=store, embedder=embedder, k=experiment.k, time_budget=BUDGET
    ) as client:
        await client.index(catalog)
        before, cases = await recall(client, catalog, experiment.test)
        cache = client.embedder
        for _, prompt, tools in experiment.traffic:
            selection = await client.select(catalog, prompt)
            vector = cache.peek(prompt)  # type: ignore[attr-defined]
            turn = turn_feedback(
                catalog,
                selection,
                list(tools),
                vector,
                model_id=model_id,
                corpus_hash=corpus,
                k=experiment.k,
                learn=True,
            )
            misses += len(turn.misses)
            await record_feedback(ctx, turn.to_payload())
        after, _ = await recall(client, catalog, experiment.test)
    learned = sum((await feedback.learned_counts(model_id, corpus)).values())
    return Outcome(
        experiment,
        before,
        after,
        cases,
        tuple(sorted({language for language, _, _ in experiment.traffic})),
        misses,
        learned,
        time.perf_counter() - started,
    )


async def _clear(store: VectorStore, model_id: str, corpus: str) -> None:
    """Start an experiment with no feedback and no learned layer for this corpus."""
    where = {"model": model_id, "corpus": corpus}
    async with store.engine.begin() as connection:
        for table in ("toolret_learned_vectors", "toolret_feedback_turns"):
            await connection.execute(
                text(f"DELETE FROM {table} WHERE model_id = :model AND corpus_hash = :corpus"),
                where,
            )


# -- the experiments --------------------------------------------------------------------------


def roster_experiments(ks: Sequence[int]) -> list[Experiment]:
    """All traffic, and each language's traffic left out once, at each deployed k."""
    catalog = build_catalog()
    test = [(c.language, c.prompt, c.tools) for c in CASES if c.split == HELD]
    traffic = [(lang, prompt, (tool,)) for lang, prompt, tool in traffic_in()]
    runs = []
    for k in ks:
        runs.append(Experiment(f"roster, traffic en+ar+tr, k={k}", catalog, traffic, test, k))
        for left_out in ("en", "ar", "tr"):
            kept = [t for t in traffic if t[0] != left_out]
            langs = "+".join(lang for lang in ("en", "ar", "tr") if lang != left_out)
            runs.append(Experiment(f"roster, traffic {langs}, k={k}", catalog, kept, test, k))
    return runs


def massive_sets(folder: Path) -> tuple[Catalog, Catalog, list[Case], list[Case]]:
    """massive-dev as (descriptions-only catalog, catalog with the train utterances written in
    as examples, the same utterances as traffic, the valid cases as the test)."""
    tools = [json.loads(line) for line in (folder / "tools.jsonl").read_text().splitlines()]
    examples: dict[str, dict[str, list[str]]] = json.loads((folder / "examples.json").read_text())
    cases = [json.loads(line) for line in (folder / "cases.jsonl").read_text().splitlines()]
    test = [(c["lang"], c["query"], tuple(c["expected"])) for c in cases]
    traffic = [
        (lang, utterance, (tool,))
        for lang in ("en", "fa")
        for tool, by_language in examples.items()
        for utterance in by_language.get(lang, [])
    ]
    return _massive_catalog(tools, {}), _massive_catalog(tools, examples), traffic, test


def massive_experiments(folder: Path, ks: Sequence[int]) -> list[Experiment]:
    """Descriptions only; train utterances as traffic (both languages, then each alone)."""
    plain, written, traffic, test = massive_sets(folder)
    runs = []
    for k in ks:
        runs.append(Experiment(f"massive, traffic en+fa, k={k}", plain, traffic, test, k))
        for only in ("en", "fa"):
            kept = [t for t in traffic if t[0] == only]
            runs.append(Experiment(f"massive, traffic {only}, k={k}", plain, kept, test, k))
    runs.append(Experiment("massive, hand-picked examples written in", written, [], test, 12))
    return runs


def _massive_catalog(
    tools: list[dict[str, str]], examples: dict[str, dict[str, list[str]]]
) -> Catalog:
    return Catalog(
        (
            Tool(
                t["name"],
                t["description"],
                examples=tuple(
                    u for lang in ("en", "fa") for u in examples.get(t["name"], {}).get(lang, [])
                ),
            )
            for t in tools
        ),
        min_description_length=1,
    )


# -- the report -------------------------------------------------------------------------------


def table(outcomes: Sequence[Outcome]) -> str:
    """A markdown table: one row per experiment and language."""
    lines = [
        "| experiment | lang | traffic? | cases | R@1 before → after | R@5 before → after "
        "| R@12 before → after | misses fed | learned vectors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        for language in sorted(outcome.before):
            b, a = outcome.before[language], outcome.after[language]
            cells = " | ".join(f"{b[k]:.3f} → {a[k]:.3f}{_mark(b[k], a[k])}" for k in KS)
            lines.append(
                f"| {outcome.experiment.name} | {language} | "
                f"{'yes' if language in outcome.traffic_languages else '**no**'} | "
                f"{outcome.cases[language]} | {cells} | {outcome.misses} | {outcome.learned} |"
            )
    return "\n".join(lines)


def _mark(before: float, after: float) -> str:
    return " ▼" if after < before - 1e-9 else ""


def no_traffic_check(outcomes: Sequence[Outcome]) -> list[str]:
    """Every (experiment, language, k) where a language that sent no traffic lost recall."""
    return [
        f"{o.experiment.name}: {lang} R@{k} {o.before[lang][k]:.3f} → {o.after[lang][k]:.3f}"
        for o in outcomes
        if o.experiment.traffic
        for lang in o.before
        if lang not in o.traffic_languages
        for k in KS
        if o.after[lang][k] < o.before[lang][k] - 1e-9
    ]


def massive_summary(outcomes: Sequence[Outcome]) -> str:
    """massive-dev per language: before learning, after learning from both languages' traffic,
    and with the same utterances written in as hand-picked examples; then what English traffic
    alone does to Persian, which sent none."""
    runs = {o.experiment.name: o for o in outcomes if o.experiment.name.startswith("massive")}
    picked = runs.get("massive, hand-picked examples written in")
    if picked is None:
        return ""

    def cells(row: dict[int, float]) -> str:
        return " / ".join(f"{row[k]:.3f}" for k in KS)

    def dropped(before: dict[int, float], after: dict[int, float]) -> str:
        return " ▼" if any(after[k] < before[k] - 1e-9 for k in KS) else ""

    lines = [
        "## massive-dev: learned from traffic vs hand-picked examples",
        "Catalog: the 60 intents' descriptions. Traffic: the train-split utterances of "
        "`examples.json`, fed back through the real path; the hand-picked column writes the "
        "same utterances in as examples instead. Test: the valid-split `cases.jsonl`. "
        "R@1 / R@5 / R@12.",
        "",
        "| deployed k | lang | cases | before | after learning (traffic en+fa) | hand-picked "
        "examples | learned vectors |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, outcome in runs.items():
        if not name.startswith("massive, traffic en+fa"):
            continue
        for language in sorted(outcome.before):
            lines.append(
                f"| {outcome.experiment.k} | {language} | {outcome.cases[language]} | "
                f"{cells(outcome.before[language])} | {cells(outcome.after[language])} | "
                f"{cells(picked.after[language])} | {outcome.learned} |"
            )
    lines += ["", "| English traffic only, deployed k | fa before | fa after | learned |"]
    lines.append("|---|---|---|---|")
    for name, outcome in runs.items():
        if name.startswith("massive, traffic en,") and "fa" in outcome.before:
            before, after = outcome.before["fa"], outcome.after["fa"]
            lines.append(
                f"| {outcome.experiment.k} | {cells(before)} | "
                f"{cells(after)}{dropped(before, after)} | {outcome.learned} |"
            )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    ks = [int(k) for k in args.k.split(",")]
    experiments = roster_experiments(ks)
    if args.skip_massive:
        print("massive-dev replay skipped (--skip-massive)")
    elif not (args.massive / "cases.jsonl").is_file():
        print(
            f"massive-dev replay skipped: no benchmark at {args.massive} "
            "(pass --bench DIR; it is read from ../shared/benchmarks/massive-dev)"
        )
    else:
        experiments += massive_experiments(args.massive, ks)
    embedder = MemoEmbedder(BundledE5Embedder())
    outcomes = []
    with database() as url:
        async with VectorStore.from_url(url) as store:
            for experiment in experiments:
                outcome = await run(experiment, store, embedder)
                print(f"{experiment.name}: {outcome.learned} learned, {outcome.seconds:.1f} s")
                print(table([outcome]).split("\n", 2)[2], flush=True)
                outcomes.append(outcome)
    report = "\n\n".join(
        [
            "# Learning from misses: held-back recall before and after replayed traffic",
            f"Bundled model ({embedder.model_id}); {machine()}. ▼ marks a drop.",
            table(outcomes),
            "No-traffic languages that lost recall: "
            + ("; ".join(no_traffic_check(outcomes)) or "none"),
            massive_summary(outcomes),
        ]
    ).rstrip()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report + "\n")
    print(report)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--k", default="12,5", help="Deployed k values (comma-separated).")
    parser.add_argument("--out", type=Path, default=Path("evals/out/learning.md"))
    parser.add_argument(
        "--bench",
        "--massive",
        dest="massive",
        type=Path,
        default=MASSIVE,
        help="The massive-dev benchmark folder (default: ../shared/benchmarks/massive-dev).",
    )
    parser.add_argument("--skip-massive", action="store_true")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
