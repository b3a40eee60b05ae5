"""The comparisons behind each ranking choice, re-runnable for any embedder.

``toolret recall DIR --study NAME`` measures, on the tuning sets only (the benchmark
folders and the roster's tuning half, never its held-back half), every candidate value of one
choice with the others held at what the embedder declares:

- ``choices``: ``template``, ``role``, ``score`` and ``hybrid``, the embedder's
  ``RetrievalProfile``, judged by mean MRR over every (set, language);
- ``fleet``: ``documents``, ``servers`` and ``clauses``, for catalogs users bring, judged by a
  rule: no set loses more than a point, and the MCP fleets gain;
- ``fusion``: how BM25 joins the dense score (fixed, following the message, normalised, the
  union of both top k), and ``names``: a tool's name in BM25 or as a vector of its own; both
  judged by a rule against the choice in use, the fleets reaching BM25 alone;
- ``sparse``: whether the model's sparse head joins the score, and where its second encoder
  pass is paid (``toolret.recall.studies._sparse``), judged by the fusion study's rule;
- ``result``: what a study returns; ``scoring``: the fleet studies' sets, views and scores;
  ``signals``: every case's dense and BM25 scores, for the fusion and names studies.

A choice is made by editing the embedder's profile (or toolret's defaults) to the winner, with
its table in docs/decisions.md; the held-back half is then reported as it falls.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall.studies._result import StudyResult, StudyRow, Variant

__all__ = ["STUDIES", "StudyResult", "StudyRow", "Variant", "run_study"]

STUDIES = (
    "template",
    "role",
    "score",
    "hybrid",
    "fusion",
    "names",
    "documents",
    "servers",
    "clauses",
    "sparse",
)


async def run_study(
    study: str, memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int
) -> StudyResult:
    """Measure every variant of ``study`` on ``sets`` (tuning sets only)."""
    if any(not bench.tuning for bench in sets):
        raise ValueError("studies run on tuning sets only; the held-back half is never tuned on")
    if study == "fusion":
        from toolret.recall.studies._fusion import run_fusion_study

        return await run_fusion_study(memo, sets, k=k)
    if study == "names":
        from toolret.recall.studies._names import run_names_study

        return await run_names_study(memo, sets, k=k)
    if study == "sparse":
        from toolret.recall.studies._sparse import run_sparse_study

        return await run_sparse_study(memo, sets, k=k)
    if study in ("documents", "servers", "clauses"):
        from toolret.recall.studies._fleets import run_fleet_study

        return await run_fleet_study(study, memo, sets, k=k)
    from toolret.recall.studies._choices import run_profile_study

    return await run_profile_study(study, memo, sets, k=k)
