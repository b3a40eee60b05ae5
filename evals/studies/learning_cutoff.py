"""Learning's settings, studied in memory: ``python -m evals.studies.learning_cutoff``.

The replay in ``evals.studies.learning_replay`` runs the real path (client, worker job, Postgres)
and so
can only measure the settings the statements are built with. This study replays the same traffic in
memory, scoring as the ranking statements do, under the embedder's profile (its document
template and tool score: the blend for the bundled model; a learned vector counts as one of its
tool's examples, only within the cut-off), through the worker's own
``toolret.feedback._learning.VectorSpace``, which also decides promotions. At the shipped settings
it
should reproduce the database replay's learned-vector counts and recall (the report's "check"
line). It:

- sweeps the learned-vector cut-off (``LEARNED_MIN_SIMILARITY``) on tuning data only: the
  roster's TUNE half with ``evals.data.traffic`` as traffic, and massive-dev's valid cases with its
  train utterances as traffic (the public benchmark is for choosing settings);
- lists, for a language and split, the cases whose top-1 changed after learning, and the learned
  vector (its tool, the traffic request it came from, its similarity) that changed it.

Results go to ``evals/out/learning_study.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evals.data.cases import CASES, HELD, TUNE
from evals.data.traffic import traffic_in
from evals.studies.learning_replay import KS, MASSIVE, Case, massive_sets
from toolret._catalog import Catalog
from toolret._profile import LEARNED_MIN_SIMILARITY, ToolScore, corpus_documents, profile_of
from toolret.demo.roster import build_catalog
from toolret.embedders._base import embed_role
from toolret.embedders._e5 import BundledE5Embedder
from toolret.feedback._learning import LearningPolicy, VectorSpace
from toolret.recall._memo import MemoEmbedder

__all__ = ["Replay", "main"]

CUTOFFS = (0.80, 0.85, 0.87, 0.88, 0.89, 0.90, 0.91, 0.92, 0.93, 0.95, 1.01)
"""1.01: learned vectors never count (the baseline)."""


@dataclass
class Replay:
    """A catalog's vectors in memory, and what a replay of traffic learned."""

    catalog: Catalog
    tools: list[str]
    owners: np.ndarray
    matrix: np.ndarray
    documents: list[tuple[str, np.ndarray]]
    kinds: list[str]
    """Each of ``documents``' kind: ``description`` or ``example``."""
    score: ToolScore
    queries: dict[str, np.ndarray]
    learned: list[tuple[str, np.ndarray, str]] = field(default_factory=list)
    """(tool, vector, the traffic request it came from)."""
    _spaces: dict[tuple[int, float], VectorSpace] = field(default_factory=dict)

    def space(self, cutoff: float) -> VectorSpace:
        """The worker's view of these vectors with what was learned so far."""
        key = (len(self.learned), cutoff)
        if key not in self._spaces:
            self._spaces.clear()
            self._spaces[key] = VectorSpace(
                self.documents,
                [(tool, vector) for tool, vector, _ in self.learned],
                learned_min_similarity=cutoff,
                kinds=self.kinds,
                score=self.score,
            )
        return self._spaces[key]

    def scores(self, query: np.ndarray, cutoff: float) -> np.ndarray:
        """Each candidate tool's score, as the ranking statements compute it."""
        space = self.space(cutoff)
        best = space.best_scores(query)
        return np.array([best[space.tools.index(tool)] for tool in self.tools])

    def order(self, prompt: str, cutoff: float) -> list[str]:
        best = self.scores(self.queries[prompt], cutoff)
        ranked = sorted(
            range(len(self.tools)), key=lambda i: (-best[i], self.catalog.position(self.tools[i]))
        )
        return [self.tools[i] for i in ranked]

    def replay(self, traffic: Sequence[Case], k: int, cutoff: float, policy: LearningPolicy) -> int:
        """Select at ``k`` for each request; a needed tool outside it is a miss the worker
        decides on. Returns the number of misses."""
        space = VectorSpace(
            self.documents, learned_min_similarity=cutoff, kinds=self.kinds, score=self.score
        )
        core = [tool.name for tool in self.catalog.core]
        misses = 0
        for _, prompt, needed in traffic:
            bound = set(self.order(prompt, cutoff)[:k])
            for tool in needed:
                if tool in self.catalog and not self.catalog[tool].core and tool not in bound:
                    misses += 1
                    vector = self.queries[prompt]
                    if space.decide(tool, vector, k=k, core=core, policy=policy).value == (
                        "promoted"
                    ):
                        self.learned.append((tool, vector, prompt))
        return misses

    def recall(self, test: Sequence[Case], cutoff: float) -> dict[str, dict[int, float]]:
        sums: dict[str, dict[int, float]] = {}
        counts: dict[str, int] = {}
        for language, prompt, tools in test:
            needed = [t for t in tools if t in self.catalog and not self.catalog[t].core]
            if not needed:
                continue
            order = self.order(prompt, cutoff)
            row = sums.setdefault(language, dict.fromkeys(KS, 0.0))
            for k in KS:
                row[k] += sum(t in order[:k] for t in needed) / len(needed)
            counts[language] = counts.get(language, 0) + 1
        return {lang: {k: v / counts[lang] for k, v in row.items()} for lang, row in sums.items()}

    def mrr(self, test: Sequence[Case], cutoff: float) -> float:
        """Mean reciprocal rank of a case's best-ranked needed tool."""
        total, count = 0.0, 0
        for _, prompt, tools in test:
            needed = {t for t in tools if t in self.catalog and not self.catalog[t].core}
            if needed:
                order = self.order(prompt, cutoff)
                total += 1 / (1 + min(order.index(t) for t in needed))
                count += 1
        return total / count


async def build(catalog: Catalog, prompts: Sequence[str], embedder: MemoEmbedder) -> Replay:
    """Embed the catalog's documents (as indexing does) and every request (as a query)."""
    candidates = [tool.name for tool in catalog.candidates]
    documents: list[tuple[str, np.ndarray]] = []
    kinds: list[str] = []
    for name, document in corpus_documents(catalog, embedder):
        (vector,) = await embed_role(embedder, [document.text], document.role)
        documents.append((name, _unit(vector)))
        kinds.append(document.kind)
    rows = [(name, vector) for name, vector in documents if name in candidates]
    unique = list(dict.fromkeys(prompts))
    vectors = await embedder.embed_queries(unique)
    return Replay(
        catalog,
        candidates,
        np.array([candidates.index(name) for name, _ in rows]),
        np.stack([vector for _, vector in rows]),
        documents,
        kinds,
        profile_of(embedder).score,
        {prompt: _unit(vector) for prompt, vector in zip(unique, vectors, strict=True)},
    )


def _unit(vector: object) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    return array / np.linalg.norm(array)


# -- the study --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """A data set to replay: its catalog, traffic and test."""

    name: str
    catalog: Catalog
    traffic: Sequence[Case]
    test: Sequence[Case]


def roster_setting(split: str) -> Setting:
    test = [(c.language, c.prompt, c.tools) for c in CASES if c.split == split]
    traffic = [(lang, prompt, (tool,)) for lang, prompt, tool in traffic_in()]
    return Setting(f"roster {split}", build_catalog(), traffic, test)


def massive_setting(folder: Path) -> Setting:
    plain, _, traffic, test = massive_sets(folder)
    return Setting("massive-dev valid", plain, traffic, test)


async def prepare(setting: Setting, embedder: MemoEmbedder) -> Replay:
    prompts = [prompt for _, prompt, _ in [*setting.traffic, *setting.test]]
    return await build(setting.catalog, prompts, embedder)


def sweep(replay: Replay, setting: Setting, k: int, policy: LearningPolicy) -> list[str]:
    """One table row per cut-off: learned vectors, MRR and recall per language before/after."""
    before_mrr = replay.mrr(setting.test, 1.01)
    before = replay.recall(setting.test, 1.01)
    rows = []
    for cutoff in CUTOFFS:
        replay.learned = []
        misses = replay.replay(setting.traffic, k, cutoff, policy)
        after = replay.recall(setting.test, cutoff)
        cells = " | ".join(
            f"{after[lang][1] - before[lang][1]:+.3f} / {after[lang][5] - before[lang][5]:+.3f}"
            f" / {after[lang][12] - before[lang][12]:+.3f}"
            for lang in sorted(before)
        )
        mrr = replay.mrr(setting.test, cutoff)
        rows.append(
            f"| {setting.name} | {k} | {cutoff:.2f} | {misses} | {len(replay.learned)} | "
            f"{before_mrr:.3f} → {mrr:.3f} ({mrr - before_mrr:+.3f}) | {cells} |"
        )
    replay.learned = []
    return rows


def flips(replay: Replay, setting: Setting, language: str, k: int, cutoff: float) -> list[str]:
    """The test cases of ``language`` whose top-1 changed, and the learned vector that did it."""
    replay.learned = []
    replay.replay(setting.traffic, k, cutoff, LearningPolicy())
    learned = list(replay.learned)
    lines = []
    for lang, prompt, tools in setting.test:
        if lang != language:
            continue
        replay.learned = []
        was = replay.order(prompt, 1.01)[0]
        replay.learned = learned
        now = replay.order(prompt, cutoff)[0]
        if was == now:
            continue
        query = replay.queries[prompt]
        culprit = max(
            (item for item in learned if item[0] == now), key=lambda item: float(item[1] @ query)
        )
        description = float(np.max(replay.matrix[replay.owners == replay.tools.index(now)] @ query))
        lines.append(
            f"| {prompt} | {', '.join(tools)} | {was} → {now} "
            f"{'(right)' if now in tools else '(wrong)' if was in tools else '(still wrong)'} | "
            f"{culprit[2]} | {float(culprit[1] @ query):.3f} | {description:.3f} |"
        )
    replay.learned = []
    return lines


async def main_async(args: argparse.Namespace) -> int:
    embedder = MemoEmbedder(BundledE5Embedder())
    policy = LearningPolicy()
    report = [
        "# Learning's settings, in memory (`python -m evals.studies.learning_cutoff`)",
        "Tuning data only: the roster's TUNE half and massive-dev's valid split, traffic as in "
        "`evals.studies.learning_replay`. Changes are after − before, R@1 / R@5 / R@12 per "
        "language (alphabetical).",
        "| data | k | cut-off | misses | learned | MRR before → after | Δ recall per language |",
        "|---|---|---|---|---|---|---|",
    ]
    settings = [roster_setting(TUNE)]
    if args.massive.is_dir():
        settings.append(massive_setting(args.massive))
    else:
        print(f"massive-dev not found at {args.massive}: the study runs on the roster only")
    for setting in settings:
        replay = await prepare(setting, embedder)
        for k in (12, 5):
            rows = sweep(replay, setting, k, policy)
            print("\n".join(rows), flush=True)
            report += rows
    held = roster_setting(HELD)
    replay = await prepare(held, embedder)
    replay.replay(held.traffic, 12, LEARNED_MIN_SIMILARITY, policy)
    check = replay.recall(held.test, LEARNED_MIN_SIMILARITY)
    report += [
        "",
        f"## Check against the database replay (roster HELD, k 12, cut-off "
        f"{LEARNED_MIN_SIMILARITY:.2f})",
        f"{len(replay.learned)} learned; "
        + "; ".join(
            f"{lang} R@1/5/12 {row[1]:.3f}/{row[5]:.3f}/{row[12]:.3f}"
            for lang, row in sorted(check.items())
        ),
    ]
    for split_setting in (held, roster_setting(TUNE)):
        flipped = await prepare(split_setting, embedder)
        report += [
            "",
            f"## Top-1 changes, {args.language}, {split_setting.name}, k 12, cut-off "
            f"{args.cutoff:.2f}",
            "| case | needed | top-1 before → after | learned from traffic | its similarity "
            "| best description/example similarity of the new top-1 |",
            "|---|---|---|---|---|---|",
            *flips(flipped, split_setting, args.language, 12, args.cutoff),
        ]
    text = "\n".join(report) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"written to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("evals/out/learning_study.md"))
    parser.add_argument("--massive", type=Path, default=MASSIVE)
    parser.add_argument("--language", default="ar", help="Whose top-1 changes to list.")
    parser.add_argument("--cutoff", type=float, default=LEARNED_MIN_SIMILARITY)
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
