"""The sparse study: does the model's sparse head ("latent terms") add to the shipped ranking?

Every candidate is measured on every tuning set with and without examples, against the
**shipped default without the sparse signal** (hybrid: dense plus BM25 under the profile's
growing weight), not against dense alone:

- the signals alone: dense, BM25, sparse (a tool's sparse score is its ``ToolScore`` over its
  documents' sparse cosines, as ``toolret.retrieval._sparse.SparseIndex`` computes it);
- the sparse score added to the reference at several weights, for every message (``always``);
  from the description alone rather than the blend with the examples;
- spent only where a gate says it pays (the message's sparse vector is a second encoder pass):
  where the message has no lexical evidence, where it is mostly in a non-Latin script, where its
  language is not one of the catalog's (``other_language``, ``toolret.retrieval._sparse``);
- the documents' sparse vectors cut to fewer latents (pgvector's HNSW indexes at most 1,000);
- where the language differs, the sparse vector *instead of* the dense one (one pass).

The chosen weight's row is repeated with the vectors cut to fewer latents; ``SPARSE_PROFILE``
holds the choice (not the default: see docs/decisions.md, "The sparse signal", for its cost).

**The rule** (the fusion study's, ``toolret.recall.studies._fusion``): against the reference, no
(set, language, examples) loses more than ``MAX_LOSS`` points of R@5 or R@12 (a language with
fewer than ``POOL_BELOW`` cases judged with its set's others), and each fleet reaches BM25
alone's R@12. Of the passing choices that do not pay the second pass on every message (that
doubles every query's encoding: above the latency bar by construction), the one with the
smallest worst shortfall against the best single signal (dense, BM25 or sparse alone, at R@5 or
R@12 on any (set, language, examples)) is chosen; mean MRR breaks a tie. The verdict also
gives, per set, the share of messages each choice spends the second pass on, and the language
parity table of the multilingual fleet (each language's R@5/12/20 and its share of English's).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from toolret._profile import SPARSE_PROFILE, RetrievalProfile
from toolret._tool import render
from toolret.embedders._sparse import SparseMatrix
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall._results import RankMetrics
from toolret.recall.studies._fleets import (
    MAX_LOSS,
    judged_groups,
    rule_losses,
    worst_shortfall,
)
from toolret.recall.studies._result import StudyResult, StudyRow, Variant
from toolret.recall.studies._scoring import Scorer, is_fleet
from toolret.recall.studies._signals import Matrix, Signals, by_best, signals
from toolret.retrieval._sparse import SparseIndex, catalog_languages, language_of

__all__ = ["REFERENCE", "run_sparse_study", "sparse_choices"]

REFERENCE = "without the sparse signal (the rule's reference)"
DENSE, BM25, SPARSE = "dense alone", "BM25 alone", "sparse alone"
NAMED = "dense over `name: description` (the plain reference; not a candidate)"
ALWAYS = (0.05, 0.1, 0.2, 0.3, 0.5)
GATED = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
GATE_WEIGHT = 0.3
LATENTS = (512, 256, 128)
SIGNALS = (DENSE, BM25, SPARSE)


@dataclasses.dataclass
class SparseSignals:
    """One (set, example configuration): the fusion study's signals, each case's sparse tool
    scores (``by_latents``: with the documents cut to that many latents; None: as stored), and
    the gates."""

    base: Signals
    sparse: dict[int | None, Matrix]
    description_only: Matrix
    instead: Matrix
    named: Matrix
    gates: dict[str, NDArray[np.bool_]]


def _non_latin(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    latin = sum(unicodedata.name(ch, "").startswith("LATIN") for ch in letters)
    return bool(letters) and latin < len(letters) / 2


def _reference(profile: RetrievalProfile, s: Signals) -> Matrix:
    weights = np.array([profile.lexical_weight_for(int(n)) for n in s.words])
    return by_best(s, weights)


async def _sparse_signals(scorer: Scorer, bench: BenchSet, examples: bool) -> SparseSignals:
    scored = await scorer.prepare(bench, examples)
    s = await signals(scorer, scored)
    catalog = scored.catalog
    embedder = scorer.embedder
    queries = [case.query for case in bench.cases]
    vectors = [(await embedder.embed_sparse([q], "query"))[0] for q in queries]  # type: ignore[attr-defined]
    index = await SparseIndex.build(catalog, embedder)
    sparse: dict[int | None, Matrix] = {None: np.stack([index.score_array(v) for v in vectors])}
    for latents in LATENTS:
        cut = dataclasses.replace(
            index,
            descriptions=_cut(index.descriptions, latents),
            examples=_cut(index.examples, latents),
        )
        sparse[latents] = np.stack([cut.score_array(v.strongest(latents)) for v in vectors])
    alone = replace(index, examples=_cut(index.examples, 0), owners=index.owners[:0])
    description_only = np.stack([alone.score_array(v) for v in vectors])
    other = np.array([language_of(q) not in catalog_languages(catalog) for q in queries])
    gates = {
        "always": np.ones(len(queries), dtype=bool),
        "no lexical evidence": s.lexical.max(axis=1) <= 0,
        "non-Latin script": np.array([_non_latin(q) for q in queries]),
        "other language": other,
    }
    profile = scorer.profile
    words = np.array([profile.lexical_weight_for(int(n)) for n in s.words])
    instead = np.where(
        other[:, None], by_best(replace(s, dense=sparse[None]), 3 * words), _reference(profile, s)
    )
    named_index = await scorer.index(scored, lambda tool: render("{name}: {description}", tool))
    named = np.stack([named_index.score_array(scored.vectors[q]) for q in queries])
    return SparseSignals(s, sparse, description_only, instead, named, gates)


def _cut(matrix: SparseMatrix, latents: int) -> SparseMatrix:
    """Each vector of ``matrix`` cut to its ``latents`` strongest, normalised again."""
    if latents == 0:
        return SparseMatrix.stack([])
    keep = np.zeros(len(matrix.indices), dtype=bool)
    for row in range(matrix.rows):
        where = np.flatnonzero(matrix.rows_of == row)
        keep[where[np.argsort(-matrix.values[where], kind="stable")[:latents]]] = True
    values = matrix.values.astype(np.float64) * keep
    norms = np.sqrt(np.bincount(matrix.rows_of, weights=values**2, minlength=matrix.rows))
    scaled = values / np.where(norms > 0, norms, 1.0)[matrix.rows_of]
    return SparseMatrix(matrix.indices, scaled.astype(np.float32), matrix.rows_of, matrix.rows)


Choice = Callable[[SparseSignals, RetrievalProfile], Matrix]


def _added(weight: float, gate: str, latents: int | None = None) -> Choice:
    def fused(x: SparseSignals, profile: RetrievalProfile) -> Matrix:
        mask = x.gates[gate][:, None]
        added: Matrix = _reference(profile, x.base) + weight * x.sparse[latents] * mask
        return added

    return fused


def sparse_choices(chosen: float) -> dict[str, tuple[Choice, str | None]]:
    """Every candidate, the reference first: (its scores, the gate that says which messages pay
    the second pass, None for the signals alone and the plain reference)."""
    out: dict[str, tuple[Choice, str | None]] = {
        REFERENCE: (lambda x, p: _reference(p, x.base), None),
        DENSE: (lambda x, p: x.base.dense, None),
        BM25: (lambda x, p: x.base.lexical, None),
        SPARSE: (lambda x, p: x.sparse[None], "always"),
        NAMED: (lambda x, p: x.named, None),
    }
    for weight in ALWAYS:
        out[f"+ {weight:g} × sparse, every message"] = (_added(weight, "always"), "always")
    out["+ 0.1 × sparse of the description alone, every message"] = (
        lambda x, p: _reference(p, x.base) + 0.1 * x.description_only,
        "always",
    )
    for gate in ("no lexical evidence", "non-Latin script", "other language"):
        out[f"+ {GATE_WEIGHT:g} × sparse where {gate}"] = (_added(GATE_WEIGHT, gate), gate)
    for weight in GATED:
        out[f"+ {weight:g} × sparse where other language"] = (
            _added(weight, "other language"),
            "other language",
        )
    for latents in LATENTS:
        out[f"+ {chosen:g} × sparse where other language, {latents} latents a vector"] = (
            _added(chosen, "other language", latents),
            "other language",
        )
    out["where other language: sparse instead of dense (one pass), BM25 × 3"] = (
        lambda x, p: x.instead,
        "other language",
    )
    return out


async def run_sparse_study(memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int) -> StudyResult:
    """Measure every sparse choice on ``sets`` (tuning sets only), with and without examples."""
    if memo.sparse_head is None:
        raise ValueError(f"{memo.model_id} has no sparse head: nothing to study")
    whole = replace(memo.profile, sparse_latents=memo.sparse_head.top_k)  # every latent it gives
    scorer = Scorer(memo.variant(profile=whole))
    reference_profile = replace(memo.profile, sparse_weight=0.0)
    chosen = SPARSE_PROFILE.sparse_weight
    choices = sparse_choices(chosen)
    rows: list[StudyRow] = []
    paid: dict[str, list[str]] = {}
    for bench in sets:
        for flag in bench.example_flags:
            x = await _sparse_signals(scorer, bench, flag)
            for label, (choice, gate) in choices.items():
                scores = choice(x, reference_profile)
                for language, metrics in x.base.metrics(scores).items():
                    variant = Variant(label, memo.example_role, memo.profile, "hybrid", flag)
                    rows.append(StudyRow(variant, bench.name, language, metrics))
                if gate is not None:
                    share = 100 * float(x.gates[gate].mean())
                    where = f"{bench.name}{' with examples' if flag else ''}"
                    paid.setdefault(label, []).append(f"{where} {share:.0f}%")
    result = StudyResult("sparse", memo.model_id, QUESTION, tuple(rows), REFERENCE)
    text, passed = verdict(result, {b.name for b in sets if is_fleet(b)}, paid)
    return replace(result, verdict=text, passed=passed)


QUESTION = (
    "Does the sparse head add to the shipped hybrid ranking, and where is its second encoder "
    "pass worth paying? Every tuning set, with and without examples."
)


def verdict(
    result: StudyResult, fleets: set[str], paid: dict[str, list[str]]
) -> tuple[str, tuple[str, ...]]:
    """The rule of the module docstring, the share of messages that pay, and the parity table."""
    groups = judged_groups(result)
    passed, failed, short = [], [], []
    shortfall: dict[str, float] = {}
    for choice in result.choices:
        if choice in (REFERENCE, NAMED, *SIGNALS):
            continue
        losses = rule_losses(groups, choice, REFERENCE, BM25, fleets)
        if losses:
            failed.append(f"{choice}: {losses[0][1]}")
            continue
        passed.append(choice)
        worst = worst_shortfall(groups, choice, SIGNALS)
        shortfall[choice] = worst[0]
        short.append(f"{choice}: {worst[0]:+.1f} ({worst[1]})")
    affordable = [c for c in passed if not all(p.endswith(" 100%") for p in paid.get(c, [""]))]
    chosen = (
        max(affordable, key=lambda c: (round(shortfall[c], 6), result.criterion(c)))
        if affordable
        else "none"
    )
    spent = "; ".join(f"{c}: {', '.join(p)}" for c, p in paid.items() if c in passed)
    text = (
        f"Rule: against {REFERENCE}, no set loses more than {MAX_LOSS:g} point of R@5 or R@12, "
        f"and the fleets reach BM25 alone's R@12. Pass: {'; '.join(passed) or 'none'}. "
        f"Chosen (of those not paying the second pass on every message, the smallest worst "
        f"shortfall against the best single signal, then mean MRR): **{chosen}**. "
        f"Fail: {'; '.join(failed) or 'none'}. Worst shortfall against the best of dense, BM25 "
        f"and sparse alone: {'; '.join(short) or '-'}. Messages paying the second pass: "
        f"{spent or '-'}.\n\n" + parity_table(result, (REFERENCE, chosen, SPARSE, NAMED))
    )
    return text, tuple(passed)


def parity_table(result: StudyResult, choices: Sequence[str]) -> str:
    """Per multilingual set (one with cases in several languages and no examples): each
    language's R@5 / R@12 / R@20 and its R@12 as a share of English's, for ``choices``."""
    lines: list[str] = []
    benches = dict.fromkeys(r.bench for r in result.rows if r.language != "en")
    for bench in benches:
        rows = [r for r in result.rows if r.bench == bench and not r.variant.examples]
        languages = list(dict.fromkeys(r.language for r in rows))
        if "en" not in languages or len(languages) < 3:
            continue
        lines += [
            f"Language parity on {bench} (R@5 / R@12 / R@20, and R@12's share of English's):",
            "",
            "| choice | " + " | ".join(languages) + " |",
            "|---|" + "---:|" * len(languages),
        ]
        for choice in choices:
            by = {r.language: r.metrics for r in rows if r.variant.choice == choice}
            if not by:
                continue
            english = by["en"].recall(12) or 1.0
            cells = [_parity(by[language], english) for language in languages]
            lines.append(f"| {choice} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _parity(metrics: RankMetrics, english: float) -> str:
    recalls = " / ".join(f"{100 * metrics.recall(cut):.1f}" for cut in (5, 12, 20))
    return f"{recalls} ({metrics.recall(12) / english:.2f})"
