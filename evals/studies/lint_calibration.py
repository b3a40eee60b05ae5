"""Calibrate ``toolret lint``'s look-alike threshold for an embedding model.

``python -m evals.studies.lint_calibration`` (``--embedder gemini`` with a key) prints the table
behind ``toolret.authoring._lint.LOOKALIKE_THRESHOLDS``. Only the demo roster's tools and the
tuning half of
the eval's cases are used to choose:

1. The 39 non-core roster tools, without examples, are embedded as indexing embeds them
   (``toolret.authoring._lint.embed_corpus``), and every pair's description-document cosine is
   taken.
2. Each ``TUNE`` case's message is embedded as a query and the tools ranked by their
   description document alone. A pair is *confused* when one of them is an expected tool of a
   case and the other, not expected, ranks first.
3. Each pair cosine is tried as the threshold ("cosine >= t flags the pair"). The threshold is
   the lowest at which at least ``TARGET_PRECISION`` of the flagged pairs were confused: a
   look-alike warning should be right often enough to be worth a tool author's time.

Best F1 was the first rule tried (on the tuning half too): for the bundled model it chose 0.9095
and flagged 64 of the 741 pairs at a precision of 0.22, a list too long and too often wrong to
act on. Document cosine is a weak predictor overall (the pairs' cosines run 0.87 +- 0.03 with
this model), but a strong one at the top: the pairs above the precision rule's threshold are
confused about nine times as often as the base rate (0.5 against 0.057).

The held-back half (``HELD``) is then scored at the chosen threshold and printed for the record;
it never moves the choice.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evals.data.cases import CASES, HELD, TUNE, Split
from toolret.authoring._lint import CorpusVectors, embed_corpus
from toolret.demo.roster import catalog_without_examples
from toolret.embedders._base import Embedder
from toolret.embedders._guard import guarded

__all__ = ["TARGET_PRECISION", "Calibration", "calibrate", "main"]

TARGET_PRECISION = 0.5
"""The share of flagged pairs that must have been confused on the tuning half."""


@dataclass(frozen=True)
class Calibration:
    """The chosen threshold and how well it flags the confused pairs of each half."""

    model_id: str
    pairs: int
    threshold: float
    tune: tuple[int, int, int]
    """(confused pairs, flagged pairs, flagged pairs that were confused) on the tuning half."""
    held: tuple[int, int, int]
    """The same counts on the held-back half, at the tuning half's threshold."""
    sweep: tuple[tuple[float, float, float, float], ...]
    """(threshold, precision, recall, F1) on the tuning half, from the highest threshold down."""


async def confused_pairs(
    corpus: CorpusVectors, embedder: Embedder, split: Split
) -> set[frozenset[int]]:
    """The pairs one of whose tools a ``split`` case expects while the other ranks first."""
    index = {tool.name: i for i, tool in enumerate(corpus.tools)}
    cases = [case for case in CASES if case.split == split]
    queries = await guarded(embedder).embed_queries([case.prompt for case in cases])
    top = np.argmax(queries @ corpus.descriptions.T, axis=1)
    confused: set[frozenset[int]] = set()
    for case, first in zip(cases, top, strict=True):
        expected = {index[name] for name in case.tools if name in index}
        if int(first) in expected:
            continue
        confused |= {frozenset((tool, int(first))) for tool in expected}
    return confused


async def calibrate(embedder: Embedder, *, shown: int = 12) -> Calibration:
    """Choose the look-alike threshold for ``embedder``'s model (see the module docstring)."""
    corpus = await embed_corpus(catalog_without_examples, embedder)
    similarity = corpus.descriptions @ corpus.descriptions.T
    first, second = np.triu_indices(len(corpus.tools), k=1)
    pairs = sorted(
        (
            (float(similarity[i, j]), frozenset((int(i), int(j))))
            for i, j in zip(first, second, strict=True)
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    tune = await confused_pairs(corpus, embedder, TUNE)
    held = await confused_pairs(corpus, embedder, HELD)
    sweep: list[tuple[float, float, float, float]] = []
    hits = 0
    for flagged, (score, pair) in enumerate(pairs, 1):
        hits += pair in tune
        precision, recall = hits / flagged, hits / max(len(tune), 1)
        f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
        sweep.append((score, precision, recall, f1))
    precise = [i for i, row in enumerate(sweep) if row[1] >= TARGET_PRECISION and row[2] > 0]
    best = precise[-1] if precise else 0
    threshold = sweep[best][0]
    flagged_pairs = [pair for score, pair in pairs if score >= threshold]
    return Calibration(
        model_id=embedder.model_id,
        pairs=len(pairs),
        threshold=threshold,
        tune=_counts(tune, flagged_pairs),
        held=_counts(held, flagged_pairs),
        sweep=tuple(sweep[: max(shown, best + 3)]),
    )


def _counts(confused: set[frozenset[int]], flagged: list[frozenset[int]]) -> tuple[int, int, int]:
    return len(confused), len(flagged), sum(pair in confused for pair in flagged)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--embedder", choices=("bundled", "gemini"), default="bundled")
    args = parser.parse_args(argv)
    from toolret._settings import Settings, make_embedder

    if args.embedder == "bundled":
        from toolret.embedders._e5 import BundledE5Embedder

        embedder: Embedder = BundledE5Embedder()
    else:
        embedder = make_embedder(Settings())
    result = asyncio.run(calibrate(embedder))
    print(f"model {result.model_id}: {result.pairs} pairs of non-core roster tools")
    print("| threshold | precision | recall | F1 |\n|---|---|---|---|")
    for score, precision, recall, f1 in result.sweep:
        print(f"| {score:.4f} | {precision:.2f} | {recall:.2f} | {f1:.3f} |")
    for label, (confused, flagged, hit) in (("tuning", result.tune), ("held-back", result.held)):
        print(
            f"{label} half: {confused} confused pairs; at {result.threshold:.4f}, {flagged} "
            f"pairs flagged, {hit} of them confused"
        )
    print(f"chosen threshold: {result.threshold:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
