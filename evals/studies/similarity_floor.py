"""No similarity floor: where a floor that rejects off-topic messages would have to sit.

Per roster case (both halves), the dense score of its weakest-scoring needed tool; per
off-topic message (``evals.data.cases.OFF_TOPIC``), the best score any tool got, on the
bundled model through ``InMemoryRetriever``, with and without the roster's examples. A floor
that dropped every off-topic message would also drop the true matches at or below the
strongest off-topic score: the two overlap, which is why selection has no floor.

    python -m evals.studies.similarity_floor     # the table, and evals/out/similarity_floor.md
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.data.cases import CASES, OFF_TOPIC
from toolret.demo.roster import build_catalog
from toolret.embedders._e5 import BundledE5Embedder
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._memory import InMemoryRetriever

__all__ = ["ScoreSplit", "main", "score_splits"]

TIME_BUDGET = 60.0
"""Seconds: the study measures scores, not the speed of the machine running it."""


@dataclass(frozen=True)
class ScoreSplit:
    """Dense scores of true matches against off-topic messages, with or without examples."""

    examples: bool
    true_scores: tuple[float, ...]
    """Per case: the score of its weakest-scoring needed tool."""
    off_topic_scores: tuple[float, ...]
    """Per off-topic message: the best score any tool got."""

    @property
    def true_at_or_below_off_topic(self) -> int:
        """True matches a floor that drops every off-topic message would also drop."""
        ceiling = max(self.off_topic_scores)
        return sum(score <= ceiling for score in self.true_scores)

    @property
    def off_topic_at_or_above_true(self) -> int:
        """Off-topic messages a floor that keeps every true match would let through."""
        floor = min(self.true_scores)
        return sum(score >= floor for score in self.off_topic_scores)


async def score_splits() -> list[ScoreSplit]:
    """The split with the roster's examples, then without."""
    memo = MemoEmbedder(BundledE5Embedder())
    splits = []
    for examples in (True, False):
        catalog = build_catalog(examples=examples)
        retriever = InMemoryRetriever(memo, mode="dense", time_budget=TIME_BUDGET)
        true_scores = []
        for case in CASES:
            scores = (await retriever.rank(catalog, case.prompt)).scores
            true_scores.append(min(scores[n] for n in case.tools if not catalog[n].core))
        off_topic = []
        for message in OFF_TOPIC:
            off_topic.append(max((await retriever.rank(catalog, message.prompt)).scores.values()))
        splits.append(ScoreSplit(examples, tuple(true_scores), tuple(off_topic)))
    await memo.aclose()
    return splits


def table(splits: Sequence[ScoreSplit]) -> str:
    lines = [
        "| examples | weakest true match | strongest off-topic | true matches at or below it "
        "| off-topic at or above the weakest true match |",
        "|---|---:|---:|---:|---:|",
    ]
    for split in splits:
        lines.append(
            f"| {'yes' if split.examples else 'no'} | {min(split.true_scores):.3f} "
            f"| {max(split.off_topic_scores):.3f} "
            f"| {split.true_at_or_below_off_topic} / {len(split.true_scores)} "
            f"| {split.off_topic_at_or_above_true} / {len(split.off_topic_scores)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.studies.similarity_floor", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=Path("evals/out"), help="report directory")
    args = parser.parse_args(argv)
    text = table(asyncio.run(score_splits()))
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "similarity_floor.md").write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
