"""How the sparse signal treats short messages and capability phrases, chosen on half A of every
tuning set's requests and confirmed on half B (``toolret.recall._halves``).

``python -m evals.studies.short_fusion [--benchmarks DIR] [--out FILE] [--memo FILE]``

The sets and the rule are ``evals.studies.sparse_fusion``'s (massive-dev, toollens-dev-ml,
xsid-dev, the mixed-language fleet, the roster's tuning half judged whole), read from the same
cached score matrices (``evals.studies._fusion_signals``). Every candidate keeps today's
opt-in gate (``SPARSE_PROFILE``: described elsewhere, descriptions of at least five words) and
changes only how much of the sparse weight a message gets:

- ``+ 1 × sparse`` (today's ``TOOLRET_SPARSE=1``);
- a ramp on the message's length (``toolret.retrieval._short``): none up to ``a`` words, all of
  it from ``b`` on, linear between; client-computable (one number per message, from its text);
- in memory only, for comparison: the full weight only where the sparse signal's best tool is
  among dense's ten best (its agreement with dense).

Then **the two-phase path per language** on toollens-dev-ml and the mixed fleet: ``select`` at k
12 with the request, then one find_tools answer of five tools per capability phrase, none
already bound. What a model sends as capabilities is not in the data, so the phrases are the
request's clauses (sentences, commas in every script, "and"/"then"; at least three words, as
``toolret.retrieval._short`` counts them), or the request itself when it has one clause.
Needed-tool recall and complete tasks per language, and each language's share of English's.
A last path row ranks the phrases by dense alone: what BM25 does to short phrases. The roster's
held-back half is reported at the end, after the choice (never tuned on).

**The choice**: of the client-computable ramps (today's whole weight is what they are to mend:
it ranks the suite's short Arabic capability and the Agents SDK guide's message wrongly) that,
on half A, lose no more than ``MAX_LOSS`` point of any (set, language)'s recall and of any
language's needed tools bound or tasks complete on the path, the best mean R@5 gain on A; it
ships only if it passes on B.

Writes ``evals/out/short_fusion.md``.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from evals.data.cases import HELD, TUNE
from evals.recall.mixed_fleet import mixed_fleet
from evals.recall.roster_sets import roster_set
from evals.studies._fusion_signals import FusionSignals, fusion_signals
from evals.studies._report import report_main
from evals.studies.sparse_fusion import (
    MAX_LOSS,
    REFERENCE,
    SETS,
    Measured,
    _gain,
    _ranks,
    _reference,
    _worst,
)
from toolret.recall._data import BenchCase, BenchSet, load_benchmark
from toolret.recall._halves import BLOCK, HALVES
from toolret.recall._memo import MemoEmbedder
from toolret.retrieval._short import length_share, message_words
from toolret.retrieval._sparse import described_elsewhere, described_words

__all__ = ["capability_phrases", "clause_set", "main"]

Matrix = NDArray[np.float64]
TODAY = "+ 1 × sparse (today's TOOLRET_SPARSE=1)"
RAMPS = ((4, 8), (4, 12), (6, 10), (6, 12), (6, 16), (8, 12), (8, 16), (10, 16), (12, 20))
NO_LEXICAL = "reference, find_tools phrases by dense alone (no BM25)"
AGREE = "+ 1 × sparse where its best tool is in dense's 10 best (memory only)"
K = 12
LIMIT = 5
CLAUSE = re.compile(r"(?<=[.!?;。！？；؟])\s*|\n+|,?\s+(?:and|then)\s+|[,،，、]\s*")
"""Sentences, commas in Latin, Arabic and CJK scripts, and English "and"/"then"."""

Rule = Callable[[FusionSignals, Sequence[str]], NDArray[np.float64]]
"""A candidate: each message's share of the sparse weight (before the gate)."""


def _ramp(a: float, b: float) -> Rule:
    return lambda x, texts: np.array([length_share(t, a, b) for t in texts])


def _agree(x: FusionSignals, texts: Sequence[str]) -> NDArray[np.float64]:
    dense = np.where(x.candidates[None, :], x.dense, -np.inf)
    sparse = np.where(x.candidates[None, :], x.sparse, -np.inf)
    top = np.argsort(-dense, axis=1)[:, :10]
    best = sparse.argmax(axis=1)
    return np.array([float(b in row) for b, row in zip(best, top, strict=True)])


RULES: dict[str, Rule] = {TODAY: lambda x, texts: np.ones(len(texts))}
RULES.update({f"ramp {a}→{b} words": _ramp(a, b) for a, b in RAMPS})
RULES[AGREE] = _agree


def _choices(
    x: FusionSignals, bench: BenchSet, examples: bool
) -> dict[str, tuple[Matrix, NDArray[np.float64]]]:
    """Each candidate's scores and the sparse weight it gives each message."""
    catalog = bench.catalog(examples=examples)
    texts = [case.query for case in bench.cases]
    gate = np.array([described_elsewhere(catalog, t) for t in texts], dtype=np.float64)
    gate *= described_words(catalog) >= 5
    reference = _reference(x)
    out = {REFERENCE: (reference, np.zeros(len(texts)))}
    for name, rule in RULES.items():
        weight = gate * rule(x, texts)
        out[name] = (reference + weight[:, None] * x.sparse, weight)
    return out


def _halves(x: FusionSignals, whole: bool) -> dict[str, NDArray[np.bool_]]:
    if whole:
        return {h: np.ones(len(x.languages), dtype=bool) for h in HALVES}
    return {h: (x.scenarios // BLOCK) % 2 == i for i, h in enumerate(HALVES)}


def _measure(x: FusionSignals, bench: BenchSet, examples: bool, *, whole: bool) -> Measured:
    ks = (1, 3, 5) if bench.name.startswith("xsid") else (3, 5, 12)
    languages = tuple(dict.fromkeys(x.languages))
    language = np.array(x.languages)
    recall: dict[tuple[str, str, str], tuple[float, ...]] = {}
    paid = {}
    for choice, (scores, weight) in _choices(x, bench, examples).items():
        ranks = _ranks(x, scores)
        paid[choice] = float((weight > 0).mean())
        for half, mask in _halves(x, whole).items():
            for lang in languages:
                rows = np.flatnonzero(mask & (language == lang))
                recall[(choice, half, lang)] = tuple(
                    100 * float(np.mean([np.mean([r <= k for r in ranks[i]]) for i in rows]))
                    for k in ks
                )
    name = f"{bench.name}{' with examples' if examples else ''}"
    return Measured(name, ks, languages, recall, paid)


def capability_phrases(text: str) -> list[str]:
    """The request's clauses of at least three words, or the request when it has one."""
    parts = [p.strip(" ,.;") for p in CLAUSE.split(text) if p]
    parts = [p for p in parts if message_words(p) >= 3]
    return parts if len(parts) > 1 else [text]


@dataclass
class Path2:
    """The two-phase path on one set: per candidate, half and language, needed-tool recall and
    complete tasks after select and after find_tools."""

    name: str
    languages: tuple[str, ...]
    figures: dict[tuple[str, str, str], tuple[float, float, float, float]]
    phrases: float
    """Mean capability phrases a request."""
    phrase_words: float
    """Median words a phrase."""


def clause_set(bench: BenchSet) -> tuple[BenchSet, NDArray[np.intp]]:
    """``bench`` with each request's capability phrases as cases, and each phrase's request."""
    owners, cases = [], []
    for i, case in enumerate(bench.cases):
        for phrase in capability_phrases(case.query):
            owners.append(i)
            cases.append(BenchCase(phrase, case.expected, case.language))
    clauses = dataclasses.replace(bench, name=f"{bench.name}-clauses", cases=tuple(cases))
    return clauses, np.array(owners, dtype=np.intp)


async def _path(memo: MemoEmbedder, bench: BenchSet) -> Path2:
    requests = await fusion_signals(memo, bench, False)
    clauses, owner = clause_set(bench)
    cases = clauses.cases
    phrases = await fusion_signals(memo, clauses, False)
    select = _choices(requests, bench, False)
    find = _choices(phrases, clauses, False)
    language = np.array(requests.languages)
    figures = {}
    for choice in select:
        picked = _two_phase(requests, phrases, owner, select[choice][0], find[choice][0])
        for half, mask in _halves(requests, False).items():
            for lang in dict.fromkeys(requests.languages):
                rows = np.flatnonzero(mask & (language == lang))
                figures[(choice, half, lang)] = tuple(
                    100 * float(np.mean([v[i] for i in rows])) for v in picked
                )
    picked = _two_phase(requests, phrases, owner, select[REFERENCE][0], phrases.dense)
    for half, mask in _halves(requests, False).items():
        for lang in dict.fromkeys(requests.languages):
            rows = np.flatnonzero(mask & (language == lang))
            figures[(NO_LEXICAL, half, lang)] = tuple(
                100 * float(np.mean([v[i] for i in rows])) for v in picked
            )
    words = [message_words(c.query) for c in cases]
    return Path2(
        bench.name,
        tuple(dict.fromkeys(requests.languages)),
        figures,
        len(cases) / len(bench.cases),
        float(np.median(words)),
    )


def _two_phase(
    requests: FusionSignals, phrases: FusionSignals, owner: NDArray[np.intp], s: Matrix, f: Matrix
) -> tuple[list[float], list[float], list[float], list[float]]:
    candidates = requests.candidates
    bound_select, bound_path, whole_select, whole_path = [], [], [], []
    for i, expected in enumerate(requests.expected):
        row = np.where(candidates, s[i], -np.inf)
        taken = set(np.argsort(-row, kind="stable")[:K].tolist())
        need = set(expected)
        bound_select.append(len(need & taken) / len(need))
        whole_select.append(float(need <= taken))
        for j in np.flatnonzero(owner == i):
            order = np.argsort(-np.where(candidates, f[j], -np.inf), kind="stable")
            found = [t for t in order.tolist() if t not in taken and candidates[t]][:LIMIT]
            taken.update(found)
        bound_path.append(len(need & taken) / len(need))
        whole_path.append(float(need <= taken))
    return bound_select, bound_path, whole_select, whole_path


async def study(benchmarks: Path, memo: MemoEmbedder) -> str:
    sets: list[tuple[BenchSet, bool]] = [(load_benchmark(benchmarks / n), False) for n in SETS]
    sets += [(mixed_fleet(benchmarks), False), (roster_set(TUNE), True)]
    measured = []
    for bench, whole in sets:
        for flag in bench.example_flags:
            x = await fusion_signals(memo, bench, flag)
            measured.append(_measure(x, bench, flag, whole=whole))
            print(f"[short_fusion] {bench.name} examples={flag}", file=sys.stderr, flush=True)
    held = roster_set(HELD)
    reported = [
        _measure(await fusion_signals(memo, held, flag), held, flag, whole=True)
        for flag in held.example_flags
    ]
    paths = [
        await _path(memo, load_benchmark(benchmarks / "toollens-dev-ml")),
        await _path(memo, mixed_fleet(benchmarks)),
    ]
    return _report(measured, reported, paths)


def _report(
    measured: Sequence[Measured], reported: Sequence[Measured], paths: Sequence[Path2]
) -> str:
    choices = list(measured[0].paid)
    lines = [
        "## The rule on every tuning set: A in-sample, B confirming",
        "",
        "| choice | A (in-sample): worst loss | A: mean R@5 gain | A: path's worst loss "
        "| B (confirming): worst loss | B: mean R@5 gain | B: path's worst loss "
        "| messages given any sparse weight |",
        "|---|---|---:|---|---|---:|---|---|",
    ]
    passing = []
    for choice in choices[1:]:
        a, b = _worst(measured, choice, "A"), _worst(measured, choice, "B")
        pa, pb = _path_worst(paths, choice, "A"), _path_worst(paths, choice, "B")
        paid = ", ".join(f"{m.name} {100 * m.paid[choice]:.0f}%" for m in measured)
        lines.append(
            f"| {choice} | {a[0]:+.1f} {a[1]} | {_gain(measured, choice, 'A'):+.2f} | "
            f"{pa[0]:+.1f} {pa[1]} | {b[0]:+.1f} {b[1]} | {_gain(measured, choice, 'B'):+.2f} | "
            f"{pb[0]:+.1f} {pb[1]} | {paid} |"
        )
        if min(a[0], pa[0]) >= -MAX_LOSS and "memory only" not in choice and choice != TODAY:
            passing.append(choice)
    chosen = max(passing, key=lambda c: _gain(measured, c, "A")) if passing else None
    confirmed = chosen is not None and (
        min(_worst(measured, chosen, "B")[0], _path_worst(paths, chosen, "B")[0]) >= -MAX_LOSS
    )
    lines += [
        "",
        "Chosen on A (a ramp passing the rule there on every set and on the path, best mean R@5 "
        f"gain): **{chosen or 'none'}**; on B it "
        f"{'passes' if confirmed else 'FAILS'} the rule.",
        "",
    ]
    shown = [REFERENCE, TODAY] + ([chosen] if chosen else [])
    lines += _detail(measured, shown)
    lines += ["## The roster's held-back half (reported after the choice, never tuned on)", ""]
    lines += _detail(reported, shown, halves=("A",))
    for path in paths:
        lines += _path_report(path, [*choices, NO_LEXICAL])
    return "\n".join(lines) + "\n"


def _detail(
    measured: Sequence[Measured], shown: Sequence[str], halves: Sequence[str] = HALVES
) -> list[str]:
    lines = []
    for m in measured:
        ks = "/".join(f"R@{k}" for k in m.ks)
        lines += [f"{m.name} ({ks}):", "", "| choice | half | " + " | ".join(m.languages) + " |"]
        lines.append("|---|---|" + "---|" * len(m.languages))
        for choice in shown:
            for half in halves:
                cells = [
                    "/".join(f"{v:.1f}" for v in m.recall[(choice, half, lang)])
                    for lang in m.languages
                ]
                label = half if len(halves) > 1 else "whole"
                lines.append(f"| {choice} | {label} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _path_worst(paths: Sequence[Path2], choice: str, half: str) -> tuple[float, str]:
    """The worst loss of needed tools bound or tasks complete after find_tools against the
    reference, over every path and language."""
    worst, where = 0.0, ""
    for path in paths:
        for lang in path.languages:
            got, ref = path.figures[(choice, half, lang)], path.figures[(REFERENCE, half, lang)]
            for label, i in (("needed bound", 1), ("tasks complete", 3)):
                if got[i] - ref[i] < worst:
                    worst, where = got[i] - ref[i], f"{path.name} path {lang} {label}"
    return worst, where


def _path_report(path: Path2, choices: Sequence[str]) -> list[str]:
    lines = [
        f"## Two phases on {path.name}: select at k 12, then find_tools (5 a capability)",
        "",
        f"Capability phrases: the request's clauses, {path.phrases:.2f} a request, median "
        f"{path.phrase_words:g} words. Each cell: needed tools bound after select → after "
        "find_tools / tasks complete after select → after find_tools; (share of English's, "
        "after find_tools).",
        "",
        "| choice | half | " + " | ".join(path.languages) + " |",
        "|---|---|" + "---|" * len(path.languages),
    ]
    for choice in choices:
        for half in HALVES:
            english = path.figures[(choice, half, "en")]
            cells = []
            for lang in path.languages:
                bs, bp, ws, wp = path.figures[(choice, half, lang)]
                cells.append(
                    f"{bs:.1f}→{bp:.1f} / {ws:.1f}→{wp:.1f} "
                    f"({bp / english[1]:.2f}, {wp / english[3]:.2f})"
                )
            lines.append(f"| {choice} | {half} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def main(argv: Sequence[str] | None = None) -> int:
    return report_main(__doc__ or "", study, Path("evals/out/short_fusion.md"), argv)


if __name__ == "__main__":
    raise SystemExit(main())
