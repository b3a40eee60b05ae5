"""The studies behind a model's ``RetrievalProfile``: document template, example role, tool
score, hybrid weight; each through the real in-memory retriever (which scores exactly as the
client's SQL does), every candidate with the other choices held at what the embedder declares.

- ``template``: which fields the description document holds, in which order, how joined, the
  name as words or raw or not at all; with and without examples;
- ``role``: example requests embedded as queries or as documents, under max and under the
  embedder's tool score;
- ``score``: max over vectors, or the description blended with the best 1, 2, 3 or 5 examples at
  weights 0.3-0.9; descriptions alone as the reference;
- ``hybrid``: dense, BM25, and dense plus BM25 at several base weights (each growing with the
  message's informative words as the profile says), with and without examples; how the weight
  follows the message is the ``fusion`` study's question.

Criterion: mean MRR over every (set, language) (``StudyResult.criterion``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from toolret._profile import LEGACY_PROFILE, MAX_SCORE, RetrievalProfile, ToolScore
from toolret._settings import RetrievalMode
from toolret._tool import LEGACY_TEMPLATE, Role
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall._results import TIME_BUDGET, rank_metrics, ranker
from toolret.recall.studies._result import StudyResult, StudyRow, Variant
from toolret.retrieval._memory import InMemoryRetriever

__all__ = ["PROFILE_STUDIES", "TEMPLATES", "run_profile_study"]

PROFILE_STUDIES = ("template", "role", "score", "hybrid")

TEMPLATES: tuple[tuple[str, str], ...] = (
    ("name⏎description⏎keywords⏎category (legacy)", LEGACY_TEMPLATE),
    ("name: description", "{name}: {description}"),
    ("raw_name: description", "{raw_name}: {description}"),
    ("name. description", "{name}. {description}"),
    ("name: description⏎keywords⏎category", "{name}: {description}\n{keywords}\n{category}"),
    ("name⏎keywords⏎description", "{name}\n{keywords}\n{description}"),
    ("description", "{description}"),
    ("description⏎keywords", "{description}\n{keywords}"),
    ("description⏎keywords⏎name", "{description}\n{keywords}\n{name}"),
    ("keywords⏎description", "{keywords}\n{description}"),
    ("keywords⏎description⏎category", "{keywords}\n{description}\n{category}"),
    ("keywords⏎description⏎parameters", "{keywords}\n{description}\n{parameters}"),
    ("name: description⏎parameters", "{name}: {description}\n{parameters}"),
)
"""The templates compared. (A newline and a space read the same to an E5 tokenizer; colons
and full stops do not.)"""

SCORES: tuple[ToolScore, ...] = (
    MAX_SCORE,
    ToolScore("blend", 0.0, 1),
    *(
        ToolScore("blend", weight, examples)
        for weight in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
        for examples in (1, 2, 3, 5)
    ),
)
"""The scores compared. Weights up to 0.9 and the best five examples are there for the bundled
model's English top-1 on the roster: a heavier description might keep examples from
costing precision. On the tuning sets none did better than 0.5 and the best two."""
LEXICAL_WEIGHTS = (0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.08, 0.1)
BEFORE = "before: legacy template, max, examples as documents"
SINGLE_MODES: tuple[RetrievalMode, ...] = ("dense", "bm25")


async def run_profile_study(
    study: str, memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int
) -> StudyResult:
    """Measure every variant of ``study`` on ``sets`` (tuning sets only)."""
    role, profile = memo.example_role, memo.profile
    variants, question, current = _variants(study, role, profile)
    catalogs = {
        (bench.name, flag): bench.catalog(examples=flag)
        for bench in sets
        for flag in bench.example_flags
    }
    rows: list[StudyRow] = []
    for variant in variants:
        embedder = memo.variant(example_role=variant.example_role, profile=variant.profile)
        for bench in sets:
            if (bench.name, variant.examples) not in catalogs:
                continue  # no examples to measure with
            catalog = catalogs[(bench.name, variant.examples)]
            retriever = InMemoryRetriever(embedder, mode=variant.mode, k=k, time_budget=TIME_BUDGET)
            await retriever.index(catalog)
            for language in bench.languages:
                metrics = await rank_metrics(
                    ranker(retriever, catalog), catalog, bench.cases_in(language)
                )
                rows.append(StudyRow(variant, bench.name, language, metrics))
    return StudyResult(study, memo.model_id, question, tuple(rows), current)


def _variants(study: str, role: Role, profile: RetrievalProfile) -> tuple[list[Variant], str, str]:
    if study == "template":
        variants = [
            Variant(label, role, replace(profile, template=template), examples=flag)
            for label, template in TEMPLATES
            for flag in (False, True)
        ]
        current = next(
            (label for label, template in TEMPLATES if template == profile.template),
            profile.template,
        )
        if current == profile.template:
            variants += [Variant(current, role, profile, examples=flag) for flag in (False, True)]
        question = (
            "Which document template? Dense, without and with examples (examples as "
            f"{_plural(role)}, tool score {profile.score})."
        )
        return variants, question, current
    if study == "role":
        scores = [MAX_SCORE] + ([profile.score] if profile.score != MAX_SCORE else [])
        variants = [
            Variant(f"examples as {_plural(each)}, {score}", each, replace(profile, score=score))
            for each in ("document", "query")
            for score in scores
        ]
        variants.append(Variant(BEFORE, "document", LEGACY_PROFILE))
        question = (
            "Examples embedded as queries or as documents? Dense, with examples; the last row "
            "is every choice as toolret made it before they were measured."
        )
        return variants, question, f"examples as {_plural(role)}, {profile.score}"
    if study == "score":
        variants = [Variant("descriptions only (no examples)", role, profile, examples=False)]
        variants += [
            Variant(_score_label(score), role, replace(profile, score=score)) for score in SCORES
        ]
        question = f"How do a tool's vectors make its score? Dense, examples as {_plural(role)}."
        return variants, question, _score_label(profile.score)
    if study == "hybrid":
        variants = [
            Variant(mode, role, profile, mode=mode, examples=flag)
            for mode in SINGLE_MODES
            for flag in (False, True)
        ]
        variants += [
            Variant(
                f"hybrid, weight {weight:g}",
                role,
                replace(profile, lexical_weight=weight),
                mode="hybrid",
                examples=flag,
            )
            for weight in LEXICAL_WEIGHTS
            for flag in (False, True)
        ]
        question = (
            "Dense, BM25, or dense plus BM25 where the message shares informative words with "
            "the catalog? Without and with examples."
        )
        return variants, question, f"hybrid, weight {profile.lexical_weight:g}"
    raise ValueError(f"unknown study {study!r}; use one of {PROFILE_STUDIES}")


def _score_label(score: ToolScore) -> str:
    if score.kind == "blend" and score.description_weight == 0.0:
        return f"best {score.examples} example{'s' if score.examples > 1 else ''} only"
    return str(score)


def _plural(role: Role) -> str:
    return "queries" if role == "query" else "documents"
