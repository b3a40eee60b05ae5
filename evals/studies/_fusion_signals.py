"""Every score a sparse-fusion candidate reads, for one (set, example configuration), cached.

For each case of a set: every tool's dense score (the bundled model's template and
``ToolScore``), BM25 score and sparse score (its 512 strongest latents, as ``SPARSE_PROFILE``
stores and queries them), the message's informative words, its language as ``py3langid`` reads
it, and the tools' languages. Computing them costs two encoder passes per message, so they are
kept in ``evals/out/fusion/<set>.npz`` between runs (and every vector in the run's memo).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from toolret._profile import SPARSE_PROFILE
from toolret.recall._data import BenchSet
from toolret.recall._halves import scenarios
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._scoring import Scorer
from toolret.recall.studies._signals import signals
from toolret.retrieval._sparse import SparseIndex, catalog_languages, language_of

__all__ = ["FusionSignals", "fusion_signals"]

Matrix = NDArray[np.float64]
CACHE = Path("evals/out/fusion")


@dataclass
class FusionSignals:
    """One (set, example configuration); rows are cases (the set's order), columns tools."""

    name: str
    languages: tuple[str, ...]
    """Each case's language (the set's label)."""
    identified: tuple[str, ...]
    """Each case's language as ``py3langid`` reads it."""
    tool_languages: tuple[str, ...]
    """Each tool's description's language as ``py3langid`` reads it."""
    catalog_languages: tuple[str, ...]
    """The catalog's languages under today's ``LANGUAGE_SHARE``."""
    expected: tuple[tuple[int, ...], ...]
    candidates: NDArray[np.bool_]
    scenarios: NDArray[np.intp]
    dense: Matrix
    lexical: Matrix
    sparse: Matrix
    words: NDArray[np.float64]
    description_words: NDArray[np.float64]
    """Each tool's description's length in words."""

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if not isinstance(getattr(self, f.name), np.ndarray)
        }
        arrays = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), np.ndarray)
        }
        with path.open("wb") as out:
            np.savez_compressed(out, meta=json.dumps(meta), **arrays)

    @classmethod
    def load(cls, path: Path) -> FusionSignals:
        with np.load(path) as stored:
            meta = json.loads(str(stored["meta"]))
            arrays = {key: stored[key] for key in stored.files if key != "meta"}
        meta = {
            k: tuple(tuple(v) if isinstance(v, list) else v for v in value)
            if isinstance(value, list)
            else value
            for k, value in meta.items()
        }
        return cls(**meta, **arrays)


async def fusion_signals(
    memo: MemoEmbedder, bench: BenchSet, examples: bool, *, cache: Path = CACHE
) -> FusionSignals:
    """The set's signals, from ``cache`` when computed before for the same cases."""
    key = f"{bench.name}{'+examples' if examples else ''}"
    path = cache / f"{key}.npz"
    if path.is_file():
        found = FusionSignals.load(path)
        if len(found.languages) == len(bench.cases):
            return found
    embedder = memo.variant(profile=SPARSE_PROFILE)
    scorer = Scorer(embedder)
    scored = await scorer.prepare(bench, examples)
    base = await signals(scorer, scored)
    catalog = scored.catalog
    index = await SparseIndex.build(catalog, scorer.embedder)
    queries = [case.query for case in bench.cases]
    vectors = [
        (await scorer.embedder.embed_sparse([q], "query"))[0].strongest(512)  # type: ignore[attr-defined]
        for q in queries
    ]
    sparse = np.stack([index.score_array(v) for v in vectors])
    position = {name: i for i, name in enumerate(base.names)}
    found = FusionSignals(
        name=key,
        languages=tuple(case.language for case in bench.cases),
        identified=tuple(language_of(q) for q in queries),
        tool_languages=tuple(language_of(catalog[name].description or name) for name in base.names),
        catalog_languages=tuple(sorted(catalog_languages(catalog))),
        expected=tuple(tuple(position[n] for n in case.expected) for case in bench.cases),
        candidates=base.candidates,
        scenarios=np.array(scenarios(bench.cases)[0], dtype=np.intp),
        dense=base.dense,
        lexical=base.lexical,
        sparse=sparse,
        words=base.words,
        description_words=np.array(
            [len(catalog[name].description.split()) for name in base.names], dtype=np.float64
        ),
    )
    found.save(path)
    return found
