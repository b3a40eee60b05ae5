"""The studies for catalogs users bring: documents, servers, clauses.

- ``documents``: what a tool's description document holds when someone else wrote the tool: its
  name (everywhere, or only where the description is thin, or as a vector of its own), its
  server's name, its parameters from ``input_schema``; dense and hybrid.
- ``servers``: ranking servers as well as tools. A server's vector (its name; its name and its
  tools' names; its name and its tools' documents) added to its tools' scores, or the best of
  its tools' scores added to each, at several weights; or two stages, the tools of the best
  servers first.
- ``clauses``: a message that needs several tools, split into clauses (sentences; also at
  "and"/"then"; also at commas), each ranked, merged under the same ``k`` (the best score of a
  tool over the message and its clauses, the sum, or the lists interleaved).

They run on the tuning sets and, for ``documents`` and ``servers``, on each first-party set's
fleet view (``toolret.recall.studies._scoring.as_fleet``). The verdict is a rule fixed before
measuring (``keep``): against the choice in use, a choice passes only if no set (the fleets
included) loses more than ``MAX_LOSS`` points of R@5 or R@12 and the fleet folders (sets read
from ``servers.json``) gain at least ``MIN_GAIN`` points of R@12. Passing is necessary, not
sufficient: what a choice costs, and whether its gain stands out from the noise of picking the
best of many candidates, decide the rest (docs/decisions.md). A language with fewer than
``POOL_BELOW`` cases is judged together with its set's other languages: one case of 27 is 3.7
points.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from toolret._catalog import MIN_DESCRIPTION_LENGTH
from toolret._tool import Tool, parameter_text, readable_identifier, render
from toolret.recall._data import BenchSet
from toolret.recall._memo import MemoEmbedder
from toolret.recall._results import RankMetrics, metrics_of
from toolret.recall.studies._result import StudyResult, StudyRow, Variant
from toolret.recall.studies._scoring import Scored, Scorer, as_fleet, is_fleet
from toolret.retrieval._memory import DenseIndex

__all__ = [
    "FLEET_STUDIES",
    "MAX_LOSS",
    "MIN_GAIN",
    "judged_groups",
    "keep",
    "pooled",
    "rule_losses",
    "run_fleet_study",
    "where",
    "worst_shortfall",
]

FLEET_STUDIES = ("documents", "servers", "clauses")
MAX_LOSS = 1.0
MIN_GAIN = 1.0
POOL_BELOW = 100

Scores = dict[str, float]
Rows = dict[tuple[str, str, bool], list[Scores]]
"""Per (set, language, examples): each case's scores, in the set's case order."""


def _thin(tool: Tool) -> bool:
    return len(tool.description.strip()) < MIN_DESCRIPTION_LENGTH


def _server_words(tool: Tool) -> str:
    from toolret.adapters._mcp import mcp_origin

    origin = mcp_origin(tool)
    return readable_identifier(origin[0]) if origin else ""


def _lines(*parts: str) -> str:
    return "\n".join(part for part in parts if part)


def documents(template: str) -> dict[str, Callable[[Tool], str]]:
    """The description documents compared, the one in use (``template``) first."""

    def written(by: str) -> Callable[[Tool], str]:
        return lambda tool: render(by, tool)

    used, named, before = written(template), written("{name}: {description}"), written(BEFORE)

    def named_where_thin(tool: Tool) -> str:
        return named(tool) if _thin(tool) else used(tool)

    def parameters_where_thin(tool: Tool) -> str:
        return used(tool) if _thin(tool) else before(tool)

    def server_line(tool: Tool) -> str:
        return _lines(_server_words(tool), used(tool))

    def server_named(tool: Tool) -> str:
        server = _server_words(tool)
        if not server:
            return used(tool)
        return _lines(f"{server}: {tool.description.strip()}", parameter_text(tool))

    return {
        "in use": used,
        "keywords⏎description (no parameters)": before,
        "name: description": named,
        "name: description⏎parameters": written("{name}: {description}\n{parameters}"),
        "name: description where thin": named_where_thin,
        "parameters only where thin": parameters_where_thin,
        "server⏎in use": server_line,
        "server: description⏎parameters": server_named,
    }


BEFORE = "{keywords}\n{description}"
"""The bundled model's template before parameters were measured."""
NAME_VECTOR_WEIGHT = 0.3


async def _documents(scorer: Scorer, scored: Scored, template: str) -> dict[str, Rows]:
    out: dict[str, Rows] = {}
    variants = documents(template)
    for label, text in variants.items():
        _both(out, label, scorer, scored, _scores_of(await scorer.index(scored, text)))
    index = await scorer.index(scored, variants["in use"])
    names = await scorer.tool_vectors(scored, lambda tool: readable_identifier(tool.name))
    label = f"in use + {NAME_VECTOR_WEIGHT:g} × the name's own vector"

    def with_name(query: str, vector: np.ndarray) -> Scores:
        dense = index.score_array(vector) + NAME_VECTOR_WEIGHT * (names @ vector)
        return dict(zip(index.names, dense.tolist(), strict=True))

    _both(out, label, scorer, scored, with_name)
    return out


def _scores_of(index: DenseIndex) -> Callable[[str, np.ndarray], Scores]:
    return lambda query, vector: index.scores(vector)


def _both(
    out: dict[str, Rows],
    label: str,
    scorer: Scorer,
    scored: Scored,
    dense: Callable[[str, np.ndarray], Scores],
) -> None:
    """Record ``label`` in dense and in hybrid mode."""
    for mode in ("dense", "hybrid"):
        rows = out.setdefault(f"{label} ({mode})", {})
        for language in scored.bench.languages:
            rows[(scored.bench.name, language, scored.examples)] = [
                scorer.hybrid(scored, d, case.query) if mode == "hybrid" else d
                for case in scored.bench.cases_in(language)
                for d in (dense(case.query, scored.vectors[case.query]),)
            ]


SERVER_TEXTS: dict[str, Callable[[str, list[Tool]], str]] = {
    "name": lambda server, tools: server,
    "name and tool names": lambda server, tools: (
        f"{server}: " + ", ".join(readable_identifier(t.name) for t in tools)
    ),
    "name and tool documents": lambda server, tools: _lines(
        server, *(f"{readable_identifier(t.name)}: {t.description.strip()}" for t in tools)
    ),
}
SERVER_WEIGHTS = (0.1, 0.25, 0.5, 1.0)
TOP_SERVERS = (5, 10, 20, 40)


async def _servers(scorer: Scorer, scored: Scored, template: str) -> dict[str, Rows]:
    index = await scorer.index(scored, lambda tool: render(template, tool))
    cases = {lang: scored.bench.cases_in(lang) for lang in scored.bench.languages}
    tools = np.array([index.score_array(scored.vectors[c.query]) for c in scored.bench.cases])
    order = [c.query for c in scored.bench.cases]
    by_server: dict[str, np.ndarray] = {}
    owner = np.zeros(len(index.names), dtype=np.intp)
    for kind, text in SERVER_TEXTS.items():
        vectors, owner = await scorer.server_vectors(scored, text)
        queries = np.stack([scored.vectors[q] for q in order])
        by_server[kind] = queries @ vectors.T
    best = np.full((len(order), int(owner.max()) + 1), -np.inf)
    for server in range(best.shape[1]):
        best[:, server] = tools[:, owner == server].max(axis=1)
    by_server["best of its tools"] = best

    out: dict[str, Rows] = {}

    def record(label: str, dense: np.ndarray, scale: float) -> None:
        rows = out.setdefault(label, {})
        for language, chosen in cases.items():
            rows[(scored.bench.name, language, scored.examples)] = [
                scorer.hybrid(
                    scored,
                    dict(zip(index.names, dense[order.index(c.query)].tolist(), strict=True)),
                    c.query,
                    scale=scale,
                )
                for c in chosen
            ]

    record("flat (in use)", tools, 1.0)
    for kind, level in by_server.items():
        for beta in SERVER_WEIGHTS:
            fused = tools + beta * level[:, owner]
            record(f"tool + {beta:g} × server ({kind})", fused, 1 + beta)
        if kind in ("name and tool names", "best of its tools"):
            place = np.argsort(np.argsort(-level, axis=1, kind="stable"), axis=1)
            for top in TOP_SERVERS:
                first = tools + 10.0 * (place[:, owner] < top)
                record(f"two stages: tools of the top {top} servers ({kind})", first, 0.0)
    return out


SPLITTERS = {
    "sentences": re.compile(r"(?<=[.!?;])\s+|\n+"),
    "sentences, and/then": re.compile(r"(?<=[.!?;])\s+|\n+|,?\s+and\s+|,?\s+then\s+"),
    "sentences, and/then, commas": re.compile(r"(?<=[.!?;])\s+|\n+|,?\s+and\s+|,?\s+then\s+|,\s+"),
}


def clauses(text: str, splitter: re.Pattern[str], min_words: int) -> list[str]:
    """The message's clauses of at least ``min_words`` words; none when it has only one."""
    parts = [part.strip(" ,.;") for part in splitter.split(text)]
    parts = [part for part in parts if len(part.split()) >= min_words]
    return parts if len(parts) > 1 else []


async def _clauses(scorer: Scorer, scored: Scored, template: str) -> dict[str, Rows]:
    index = await scorer.index(scored, lambda tool: render(template, tool))
    out: dict[str, Rows] = {}
    whole = {
        c.query: scorer.hybrid(scored, index.scores(scored.vectors[c.query]), c.query)
        for c in scored.bench.cases
    }
    _record(out, "one query (in use)", scored, whole)
    for name, splitter in SPLITTERS.items():
        for min_words in (2, 3):
            parts = {c.query: clauses(c.query, splitter, min_words) for c in scored.bench.cases}
            flat = list(dict.fromkeys(p for ps in parts.values() for p in ps))
            vectors = dict(zip(flat, await scorer.embed(flat, "query"), strict=True))
            each = {p: scorer.hybrid(scored, index.scores(vectors[p]), p) for p in flat}
            for merge in ("max", "sum", "interleave"):
                merged = {
                    text: _merge(merge, first, [each[p] for p in parts[text]])
                    if parts[text]
                    else first
                    for text, first in whole.items()
                }
                _record(out, f"per clause: {name}, ≥ {min_words} words, {merge}", scored, merged)
    return out


def _merge(how: str, whole: Scores, parts: Sequence[Scores]) -> Scores:
    if how == "max":
        return {n: max(s, *(p[n] for p in parts)) for n, s in whole.items()}
    if how == "sum":
        return {n: s + sum(p[n] for p in parts) for n, s in whole.items()}
    lists = [sorted(r, key=lambda n, r=r: -r[n]) for r in (whole, *parts)]  # type: ignore[misc]
    merged: Scores = {}
    while len(merged) < len(whole):
        for ranked in lists:
            picked = next((n for n in ranked if n not in merged), None)
            if picked is not None:
                merged[picked] = float(len(whole) - len(merged))
    return merged


def _record(out: dict[str, Rows], label: str, scored: Scored, scores: dict[str, Scores]) -> None:
    rows = out.setdefault(label, {})
    for language in scored.bench.languages:
        cases = scored.bench.cases_in(language)
        rows[(scored.bench.name, language, scored.examples)] = [scores[c.query] for c in cases]


QUESTIONS = {
    "documents": "Which description document for tools someone else wrote? Dense and hybrid, "
    "on the tuning sets and the first-party sets' fleet views.",
    "servers": "Rank servers too? Hybrid, in-use documents, on the fleets and fleet views.",
    "clauses": "Rank a message's clauses and merge them, against one query? Hybrid.",
}
RUNS = {"documents": _documents, "servers": _servers, "clauses": _clauses}


async def run_fleet_study(
    study: str, memo: MemoEmbedder, sets: Sequence[BenchSet], *, k: int
) -> StudyResult:
    """Measure every variant of ``study`` on ``sets`` (tuning sets only) and their views."""
    scorer = Scorer(memo)
    template = memo.profile.template
    benches = list(sets)
    if study != "clauses":
        benches += [as_fleet(bench) for bench in sets if not is_fleet(bench)]
    if study == "servers":
        benches = [bench for bench in benches if is_fleet(bench)]
    measured: dict[str, Rows] = {}
    catalogs = {}
    for bench in benches:
        for flag in bench.example_flags:
            scored = await scorer.prepare(bench, flag)
            catalogs[(bench.name, flag)] = (scored.catalog, bench)
            for label, rows in (await RUNS[study](scorer, scored, template)).items():
                measured.setdefault(label, {}).update(rows)
    rows_out = []
    for label, rows in measured.items():
        mode = "dense" if label.endswith("(dense)") else "hybrid"
        for (bench_name, language, flag), scores in rows.items():
            catalog, bench = catalogs[(bench_name, flag)]
            metrics = metrics_of(catalog, bench.cases_in(language), scores)
            variant = Variant(label, memo.example_role, memo.profile, mode, flag)  # type: ignore[arg-type]
            rows_out.append(StudyRow(variant, bench_name, language, metrics))
    current = next(label for label in measured if not label.endswith("(dense)"))
    result = StudyResult(study, memo.model_id, QUESTIONS[study], tuple(rows_out), current)
    verdict, passed = keep(result, {bench.name for bench in sets if is_fleet(bench)})
    return replace(result, verdict=verdict, passed=passed)


def keep(result: StudyResult, gain_sets: set[str]) -> tuple[str, tuple[str, ...]]:
    """The verdict by the rule in the module docstring, as a sentence (which choices pass, and
    why each other one does not: its worst loss, or the fleets' gain), and the choices that
    pass."""
    groups = judged_groups(result)
    kept: list[str] = []
    gained: list[str] = []
    lost: list[str] = []
    for choice in result.choices:
        mode = _mode(result, choice)
        baseline = next(c for c in result.choices if _mode(result, c) == mode)
        if choice == baseline:
            continue
        gains, losses = [], []
        for key, metrics in groups[choice].items():
            before = groups[baseline].get(key)
            if before is None:
                continue
            name = f"{key[0]} {key[1]}{' with examples' if key[2] else ''}"
            if key[0] in gain_sets:
                gains.append(100 * (metrics.recall(12) - before.recall(12)))
            for cut in (5, 12):
                change = 100 * (metrics.recall(cut) - before.recall(cut))
                if change < -MAX_LOSS - 1e-9:  # exactly a point (3 cases of 300) is allowed
                    losses.append((change, f"{name} R@{cut} {change:+.1f}"))
        gain = float(np.mean(gains)) if gains else 0.0
        if losses:
            lost.append(f"{choice}: {min(losses)[1]}")
        elif gain < MIN_GAIN - 1e-9:
            lost.append(f"{choice}: fleets R@12 {gain:+.1f}")
        else:
            kept.append(choice)
            gained.append(f"{choice} (fleets R@12 {gain:+.1f})")
    rule = (
        f"passes if no set loses more than {MAX_LOSS:g} point of R@5 or R@12 against the "
        f"choice in use and the fleets gain at least {MIN_GAIN:g} of R@12"
    )
    verdict = (
        f"Rule: {rule}. Pass: {'; '.join(gained) or 'none'}. "
        f"Fail (worst loss, or the fleets' gain): {'; '.join(lost) or 'none'}."
    )
    return verdict, tuple(kept)


def _mode(result: StudyResult, choice: str) -> str:
    return next(row.variant.mode for row in result.rows if row.variant.choice == choice)


def judged_groups(result: StudyResult) -> dict[str, dict[tuple[str, str, bool], RankMetrics]]:
    """Per choice, the metrics the rule judges: per (set, language, examples), or per (set,
    examples) over all its languages when one of them has fewer than ``POOL_BELOW`` cases."""
    small = {row.bench for row in result.rows if row.metrics.cases < POOL_BELOW}
    out: dict[str, dict[tuple[str, str, bool], list[StudyRow]]] = {}
    for row in result.rows:
        language = "all" if row.bench in small else row.language
        key = (row.bench, language, row.variant.examples)
        out.setdefault(row.variant.choice, {}).setdefault(key, []).append(row)
    return {c: {k: pooled(rows) for k, rows in by.items()} for c, by in out.items()}


def pooled(rows: Sequence[StudyRow]) -> RankMetrics:
    """The case-weighted mean of several languages' metrics."""
    total = sum(row.metrics.cases for row in rows) or 1

    def mean(values: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
        weights = [row.metrics.cases / total for row in rows]
        return tuple(float(v) for v in np.average(np.array(values), axis=0, weights=weights))

    return RankMetrics(
        mean([row.metrics.curve for row in rows]),
        sum(row.metrics.mrr * row.metrics.cases for row in rows) / total,
        sum(row.metrics.no_signal * row.metrics.cases for row in rows) / total,
        total,
        mean([row.metrics.complete for row in rows]),
    )


Groups = dict[str, dict[tuple[str, str, bool], RankMetrics]]


def rule_losses(
    groups: Groups, choice: str, reference: str, lexical: str, fleets: set[str]
) -> list[tuple[float, str]]:
    """Why ``choice`` fails the fusion studies' rule, worst first by its number: each
    (set, language, examples) where it loses more than ``MAX_LOSS`` points of R@5 or R@12
    against ``reference``, and each fleet where its R@12 is below the ``lexical`` choice's (BM25
    alone). Empty when it passes."""
    losses = []
    for key, metrics in groups[choice].items():
        for cut in (5, 12):
            change = 100 * (metrics.recall(cut) - groups[reference][key].recall(cut))
            if change < -MAX_LOSS - 1e-9:
                losses.append((change, f"{where(key)} R@{cut} {change:+.1f}"))
        bm25 = groups[lexical][key].recall(12)
        if key[0] in fleets and metrics.recall(12) < bm25 - 1e-9:
            gap = 100 * (metrics.recall(12) - bm25)
            losses.append((gap - 100, f"{where(key)} R@12 {gap:+.1f} against BM25 alone"))
    return sorted(losses)


def worst_shortfall(groups: Groups, choice: str, signals: Sequence[str]) -> tuple[float, str]:
    """``choice``'s worst R@5 or R@12 against the best of ``signals`` alone on the same (set,
    language, examples), in points (negative: below it), and where."""
    return min(
        (
            100 * (metrics.recall(cut) - max(groups[s][key].recall(cut) for s in signals)),
            f"{where(key)} R@{cut}",
        )
        for key, metrics in groups[choice].items()
        for cut in (5, 12)
    )


def where(key: tuple[str, str, bool]) -> str:
    """A (set, language, examples) key as a report names it."""
    return f"{key[0]} {key[1]}{' with examples' if key[2] else ''}"
