"""The fusion study: how hybrid ranking joins BM25 to the dense score.

Every candidate is measured on every tuning set with and without examples (``Signals``):

- the two signals alone, and the profile's weight held **fixed** (the reference);
- fixed weights, larger;
- a weight that follows the message and the catalog: the message's distinct informative words
  (the profile's rule, ``RetrievalProfile.lexical_weight_for``, at several shapes); how peaked
  its BM25 scores are; how much of its lexical evidence the best tool holds; the share of its
  words the catalog knows; whether its language is one of the catalog's (py3langid);
- normalised fusions: BM25 unnormalised, the dense scores' z-score or min-max over the
  catalog, reciprocal rank fusion;
- the union of BM25's top k and the dense top k, which binds up to 2k tools (its cost in
  tokens is in the verdict).

**The rule**, fixed before measuring: against the fixed weight, no (set, language, examples)
loses more than ``MAX_LOSS`` points of R@5 or R@12 (a language with fewer than ``POOL_BELOW``
cases judged with its set's others), and each fleet (a set read from ``servers.json``) reaches
BM25 alone's R@12. Of the choices that pass and bind ``k`` tools, the one chosen is the one
whose worst shortfall against the better of dense and BM25 alone, at R@5 or R@12 on any (set,
language, examples), is smallest (the design's rule: never below the better signal); mean MRR
breaks a tie.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from toolret._profile import RetrievalProfile
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall._results import CURVE_KS, RankMetrics
from toolret.recall.studies._fleets import (
    MAX_LOSS,
    judged_groups,
    rule_losses,
    worst_shortfall,
)
from toolret.recall.studies._result import StudyResult, StudyRow, Variant
from toolret.recall.studies._scoring import Scorer, is_fleet
from toolret.recall.studies._signals import Fusion, Matrix, Signals, by_best, signals
from toolret.retrieval._selection import top_k
from toolret.retrieval._tokens import schema_tokens

__all__ = ["FIXED", "UNION", "describe", "fusions", "run_fusion_study", "verdict"]

DENSE, BM25 = "dense alone", "BM25 alone"
FIXED = "the profile's weight, fixed"
UNION = "dense top k ∪ BM25 top k (binds up to 2k)"
RRF_K = 60
SHAPES = ((4.0, 1.0), (5.0, 1.0), (5.0, 1.5), (5.0, 3.0), (4.0, 2.0), (6.0, 2.0), (8.0, 2.0))
"""(words, growth) pairs of the informative-words rule compared with the profile's own."""


def describe(profile: RetrievalProfile) -> str:
    """The profile's fusion in words."""
    if profile.lexical_growth == 0:
        return f"weight {profile.lexical_weight:g}, fixed"
    return (
        f"weight {profile.lexical_weight:g} × max(1, informative words / "
        f"{profile.lexical_words:g})^{profile.lexical_growth:g}"
    )


def _following(profile: RetrievalProfile) -> Fusion:
    def fused(s: Signals) -> Matrix:
        weights = np.array([profile.lexical_weight_for(int(n)) for n in s.words])
        return by_best(s, weights)

    return fused


def _ranks(s: Signals, scores: Matrix) -> Matrix:
    masked = np.where(s.candidates[None, :], scores, -np.inf)
    order = np.argsort(-masked, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(len(order))[:, None], order] = np.arange(order.shape[1])[None, :] + 1
    return ranks.astype(np.float64)


def _rrf(s: Signals) -> Matrix:
    lexical = np.where(s.lexical > 0, 1 / (RRF_K + _ranks(s, s.lexical)), 0.0)
    return 1 / (RRF_K + _ranks(s, s.dense)) + lexical


def _normalised(s: Signals, how: str, weight: float) -> Matrix:
    dense = s.dense[:, s.candidates]
    if how == "z-score":
        scaled = (s.dense - dense.mean(1, keepdims=True)) / dense.std(1, keepdims=True)
    else:
        low, high = dense.min(1, keepdims=True), dense.max(1, keepdims=True)
        scaled = (s.dense - low) / (high - low)
    return by_best(replace(s, dense=scaled), weight)


def fusions(profile: RetrievalProfile) -> dict[str, Fusion]:
    """The candidates, the one in use first, then the fixed weight (the rule's reference)."""
    fixed = replace(profile, lexical_growth=0.0)
    base = profile.lexical_weight
    out: dict[str, Fusion] = {f"in use: {describe(profile)}": _following(profile)}
    out[FIXED] = _following(fixed)
    out[DENSE] = lambda s: s.dense
    out[BM25] = lambda s: s.lexical
    for weight in (0.025, 0.05, 0.1):
        out[f"weight {weight:g}, fixed"] = _following(replace(fixed, lexical_weight=weight))
    for words, growth in SHAPES:
        shaped = replace(profile, lexical_words=words, lexical_growth=growth)
        out[describe(shaped)] = _following(shaped)
    out[f"weight {2 * base:g} × (1 − the runner-up's share of the best BM25 score)"] = lambda s: (
        by_best(s, 2 * base * (1 - s.features["peak"]))
    )
    out[f"weight {2 * base:g} × (1 − the best tool's share of the message's BM25 evidence)"] = (
        lambda s: by_best(s, 2 * base * (1 - s.features["held"]))
    )
    out[f"weight {10 * base / 3:g} × the share of the message's words the catalog knows"] = (
        lambda s: by_best(s, 10 * base / 3 * s.features["known"])
    )
    out["the fixed weight where the message's language is the catalog's, else none"] = lambda s: (
        by_best(s, base * s.features["same language"])
    )
    out[f"BM25 unnormalised: dense + {base / 3:.3g} × BM25"] = lambda s: (
        s.dense + base / 3 * s.lexical
    )
    out["z-score of dense + 1 × BM25 over the best"] = lambda s: _normalised(s, "z-score", 1.0)
    out["min-max of dense + 0.2 × BM25 over the best"] = lambda s: _normalised(s, "min-max", 0.2)
    out[f"reciprocal rank fusion (k {RRF_K})"] = _rrf
    return out


def _union(s: Signals, k: int) -> tuple[dict[str, RankMetrics], float, float]:
    """The union's metrics per language (recall at c: the union of both top c), and at ``k``
    the tools it binds and their tokens, per message on average."""
    catalog = s.scored.catalog
    bench = s.scored.bench
    position = {name: i for i, name in enumerate(s.names)}
    every = len(catalog.candidates)
    per_case: list[tuple[list[float], list[float], float, int, int]] = []
    for i, case in enumerate(bench.cases):
        # Each signal's order as a retriever ranks it (ties by name: ``top_k``).
        dense = [position[n] for n in top_k(catalog, s.ranked(s.dense[i : i + 1])[0], every)]
        lexical = [
            position[n]
            for n in top_k(catalog, s.ranked(s.lexical[i : i + 1])[0], every)
            if s.lexical[i, position[n]] > 0
        ]
        needed = [position[name] for name in case.expected]
        curve, whole = [], []
        for cut in CURVE_KS:
            reached = set(dense[:cut]) | set(lexical[:cut])
            curve.append(sum(j in reached for j in needed) / len(needed))
            whole.append(float(all(j in reached for j in needed)))
        pairs = itertools.zip_longest(dense, lexical)
        interleaved = list(dict.fromkeys(j for pair in pairs for j in pair if j is not None))
        reciprocal = sum(1 / (interleaved.index(j) + 1) for j in needed) / len(needed)
        at_k = set(dense[:k]) | set(lexical[:k])
        cost = schema_tokens(catalog.subset(s.names[j] for j in at_k))
        per_case.append((curve, whole, reciprocal, len(at_k), cost))
    out = {}
    for language in bench.languages:
        rows = [per_case[i] for i, case in enumerate(bench.cases) if case.language == language]
        out[language] = RankMetrics(
            tuple(float(v) for v in np.mean([r[0] for r in rows], axis=0)),
            float(np.mean([r[2] for r in rows])),
            0.0,
            len(rows),
            tuple(float(v) for v in np.mean([r[1] for r in rows], axis=0)),
        )
    bound = float(np.mean([r[3] for r in per_case]))
    tokens = float(np.mean([r[4] for r in per_case]))
    return out, bound, tokens


async def run_fusion_study(memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int) -> StudyResult:
    """Measure every fusion on ``sets`` (tuning sets only), with and without examples."""
    scorer = Scorer(memo)
    candidates = fusions(memo.profile)
    rows: list[StudyRow] = []
    costs: list[str] = []
    for bench in sets:
        for flag in bench.example_flags:
            s = await signals(scorer, await scorer.prepare(bench, flag))
            in_use = candidates[next(iter(candidates))](s)
            catalog = s.scored.catalog
            kept = [top_k(catalog, scores, k) for scores in s.ranked(in_use)]
            kept_tokens = np.mean([schema_tokens(catalog.subset(names)) for names in kept])
            for label, fusion in candidates.items():
                for language, metrics in s.metrics(fusion(s)).items():
                    rows.append(
                        StudyRow(_variant(memo, label, flag), bench.name, language, metrics)
                    )
            union, bound, tokens = _union(s, k)
            for language, metrics in union.items():
                rows.append(StudyRow(_variant(memo, UNION, flag), bench.name, language, metrics))
            examples = ", with examples" if flag else ""
            costs.append(
                f"{bench.name}{examples}: {bound:.1f} tools, {tokens:.0f} tokens "
                f"(in use: {k}, {kept_tokens:.0f})"
            )
    result = StudyResult("fusion", memo.model_id, QUESTION, tuple(rows), next(iter(candidates)))
    text, passed = verdict(result, {bench.name for bench in sets if is_fleet(bench)})
    text += f" The union at k {k} binds, per message on average: {'; '.join(costs)}."
    return replace(result, verdict=text, passed=passed)


QUESTION = (
    "How does BM25 join the dense score? Every tuning set, with and without examples; the "
    "union binds up to 2k tools, each other choice k."
)


def _variant(memo: MemoEmbedder, label: str, examples: bool) -> Variant:
    mode = "dense" if label == DENSE else "bm25" if label == BM25 else "hybrid"
    return Variant(label, memo.example_role, memo.profile, mode, examples)  # type: ignore[arg-type]


def verdict(result: StudyResult, fleets: set[str]) -> tuple[str, tuple[str, ...]]:
    """The rule of the module docstring: which choices pass, why each other fails, which is
    chosen, and the passing ones' worst shortfall against the better single signal."""
    groups = judged_groups(result)
    passed, failed, short = [], [], []
    shortfall: dict[str, float] = {}
    for choice in result.choices:
        if choice == FIXED:
            continue
        losses = rule_losses(groups, choice, FIXED, BM25, fleets)
        if losses:
            failed.append(f"{choice}: {losses[0][1]}")
            continue
        passed.append(choice)
        worst = worst_shortfall(groups, choice, (DENSE, BM25))
        short.append(f"{choice}: {worst[0]:+.1f} ({worst[1]})")
        shortfall[choice] = worst[0]
    bound = [choice for choice in passed if choice != UNION]
    chosen = (
        max(bound, key=lambda c: (round(shortfall[c], 6), result.criterion(c))) if bound else "none"
    )
    text = (
        f"Rule: against {FIXED}, no set loses more than {MAX_LOSS:g} point of R@5 or R@12 and "
        f"the fleets reach BM25 alone's R@12. Pass: {'; '.join(passed) or 'none'}. Chosen (of "
        f"those binding k, the smallest worst shortfall below): **{chosen}**. "
        f"Fail: {'; '.join(failed) or 'none'}. "
        f"Worst shortfall against the better of dense and BM25 alone: {'; '.join(short) or '-'}."
    )
    return text, tuple(passed)
