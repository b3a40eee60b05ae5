"""The recall report: markdown tables per set and study, and recall@k plots.

``write_recall_report`` writes ``report.md`` and, unless asked not to, one
``recall_<set>_<model>.png`` per set (recall@1..20 per language and mode, with and without
examples, in-memory retriever).
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from toolret._extras import require
from toolret.errors import ConfigurationError
from toolret.recall._data import BenchSet
from toolret.recall._results import CURVE_KS, RANK_KS, BenchResult, BenchRow, RankMetrics
from toolret.recall.studies import StudyResult

__all__ = [
    "console_recall_report",
    "markdown_recall_report",
    "recall_table",
    "slug",
    "study_table",
]

MODE_ORDER = ("dense", "bm25", "hybrid")
FAR = 20
"""The widest cut-off reported: what a selection of 20 would bind."""
LANGUAGE_NAMES = {"en": "English", "ar": "Arabic", "tr": "Turkish", "fa": "Persian"}


def recall_table(result: BenchResult, bench: BenchSet, embedder: str) -> str:
    """One set's table: retriever x language x mode x examples."""
    k = result.k
    cuts = " | ".join(f"R@{cut}" for cut in RANK_KS)
    lines = [
        f"| retriever | language | mode | examples | n | {cuts} | R@{k} | R@{FAR} "
        f"| all@5·{k}·{FAR} | MRR | no signal | narrowed | bound / roster |",
        "|---|---|---|---|---:|" + "---:|" * (len(RANK_KS) + 6) + "---:|",
    ]
    rows = sorted(
        (row for row in result.rows if row.bench == bench.name and row.embedder == embedder),
        key=lambda r: (
            r.retriever != "memory",
            bench.languages.index(r.language),
            MODE_ORDER.index(r.mode),
            not r.examples,
        ),
    )
    for row in rows:
        recalls = " | ".join(_pct(row.metrics.recall(cut)) for cut in RANK_KS)
        complete = "·".join(
            f"{100 * value:.0f}"
            for value in (row.metrics.all_bound(5), row.complete_at_k, row.metrics.all_bound(FAR))
        )
        lines.append(
            f"| {row.retriever} | {row.language} | {row.mode} | {'yes' if row.examples else 'no'} "
            f"| {row.metrics.cases} | {recalls} | {_pct(row.recall_at_k)} "
            f"| {_pct(row.metrics.recall(FAR))} | {complete} "
            f"| {row.metrics.mrr:.3f} | {_pct(row.metrics.no_signal)} | {_pct(row.narrowed)} "
            f"| {row.bound:.1f} / {row.roster} |"
        )
    return "\n".join(lines)


def agreement_table(result: BenchResult, embedder: str) -> str:
    """Whether the client's selections equal the in-memory retriever's."""
    lines = [
        "| set | mode | examples | cases | same selection | largest score gap |",
        "|---|---|---|---:|---:|---:|",
    ]
    for agreement in (a for a in result.agreements if a.embedder == embedder):
        lines.append(
            f"| {agreement.bench} | {agreement.mode} | {'yes' if agreement.examples else 'no'} "
            f"| {agreement.cases} | {agreement.same} | {agreement.largest_score_gap:.1e} |"
        )
    return "\n".join(lines)


def study_table(study: StudyResult) -> str:
    """One row per choice (and example configuration); a cell per (set, language):
    ``R@1·R@3·R@5·R@12·R@20 · all@12 · MRR``; the last column is the mean MRR."""
    columns = list(dict.fromkeys((row.bench, row.language) for row in study.rows))
    header = " | ".join(f"{bench} {language}" for bench, language in columns)
    lines = [
        f"| choice | examples | {header} | mean MRR |",
        "|---|---|" + "---:|" * len(columns) + "---:|",
    ]
    winner = study.winner
    for choice in study.choices:
        rows = [row for row in study.rows if row.variant.choice == choice]
        for flag in dict.fromkeys(row.variant.examples for row in rows):
            cells = []
            for bench, language in columns:
                found = [
                    row.metrics
                    for row in rows
                    if (row.bench, row.language, row.variant.examples) == (bench, language, flag)
                ]
                cells.append(_cell(found[0]) if found else "")
            label = choice
            if study.verdict and choice in study.passed:
                label = f"**{label}** (passes)"
            elif not study.verdict and choice == winner:
                label = f"**{label}** (best)"
            if choice == study.current:
                label += " (in use)"
            lines.append(
                f"| {label} | {'yes' if flag else 'no'} | {' | '.join(cells)} "
                f"| {study.criterion(choice):.3f} |"
            )
    return "\n".join(lines)


def study_verdict(study: StudyResult) -> str:
    if study.verdict:
        return study.verdict
    winner, current = study.winner, study.current
    verdict = (
        f"Best by mean MRR: **{winner}** ({study.criterion(winner):.3f})"
        if winner == current
        else f"Best by mean MRR: **{winner}** ({study.criterion(winner):.3f}); "
        f"in use: {current}"
        + (f" ({study.criterion(current):.3f})" if current in study.choices else "")
    )
    return verdict + "."


def markdown_recall_report(result: BenchResult, plots: Iterable[Path] = ()) -> str:
    """The whole report as markdown."""
    parts = [
        "# Benchmarks",
        "",
        f"{dt.date.today().isoformat()} · k = {result.k} · {result.elapsed:.0f} s",
        "",
        f"R@1, R@3, R@5, R@{FAR} and MRR are read off each message's full ranking; R@{result.k} "
        "off what `select()` bound. A message's recall at k is the share of the tools it needs "
        f"in the top k; *all@5·{result.k}·{FAR}*, the share of messages with every tool they "
        "need in the top 5, bound, and in the top 20; its reciprocal rank, the mean of 1/rank "
        "over them. *no signal*: every tool scored 0 (BM25 on a message that shares no "
        "informative word with the catalog). *bound*: core + retrieved tools per selection. "
        "The client (pgvector) rows are what an agent service gets.",
        "",
        "Sets marked *tuning* may have choices fitted to them (the public sets, and the roster's "
        "tuning half, in-sample). The roster's **held-back** half is reported only: nothing is "
        "chosen on it; nor on its three **fresh** held-back sets, written before anything was "
        "measured on them.",
    ]
    for name, reason in result.skipped.items():
        parts += ["", f"**{name} skipped:** {reason}"]
    for embedder in result.embedders:
        parts += ["", f"## {embedder}"]
        for bench in result.sets:
            languages = ", ".join(
                f"{LANGUAGE_NAMES.get(lang, lang)} {len(bench.cases_in(lang))}"
                for lang in bench.languages
            )
            parts += [
                "",
                f"### {bench.name} ({bench.kind}) · {len(bench.tools)} tools · cases: {languages}",
                "",
                recall_table(result, bench, embedder),
            ]
        if any(a.embedder == embedder for a in result.agreements):
            parts += [
                "",
                "### The client against the in-memory retriever",
                "",
                agreement_table(result, embedder),
            ]
    studies = [study for study in result.studies if isinstance(study, StudyResult)]
    if studies:
        parts += [
            "",
            "## Studies (tuning sets only)",
            "",
            f"Each cell: R@1·R@3·R@5·R@12·R@{FAR} · all@12 · MRR (recall in percent; all@12, the "
            "share of messages with every tool they need in the top 12). Criterion of the "
            "profile studies: mean MRR over every (set, language) (and both example "
            "configurations where there are two), each weighted equally; the fleet studies "
            "state their rule.",
        ]
        for study in studies:
            parts += [
                "",
                f"### {study.study} — {study.embedder}",
                "",
                study.question,
                "",
                study_table(study),
                "",
                study_verdict(study),
            ]
    for plot in plots:
        parts += ["", f"![{plot.stem}]({plot.name})"]
    return "\n".join(parts) + "\n"


def console_recall_report(result: BenchResult) -> str:
    """The tables, for stdout."""
    parts = []
    for embedder in result.embedders:
        for bench in result.sets:
            parts += [f"\n{embedder} · {bench.name} ({bench.kind})"]
            parts += [recall_table(result, bench, embedder)]
        if any(a.embedder == embedder for a in result.agreements):
            parts += ["\nclient vs in-memory", agreement_table(result, embedder)]
    for study in result.studies:
        if isinstance(study, StudyResult):
            parts += [f"\nstudy {study.study}: {study.question}", study_table(study)]
            parts.append(study_verdict(study))
    return "\n".join(parts)


def write_recall_report(result: BenchResult, out_dir: Path, *, plots: bool = True) -> Path:
    """Write report.md (and the plots, with the ``[eval]`` extra) into ``out_dir``; returns
    the report's path. Without matplotlib the plots are skipped, saying so on stderr."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if plots:
        try:
            require("eval", "matplotlib", purpose="the benchmark's plots")
        except ConfigurationError as error:
            print(f"[recall] plots skipped: {error}", file=sys.stderr)
            plots = False
    images = _plot(result, out_dir) if plots else []
    path = out_dir / "report.md"
    path.write_text(markdown_recall_report(result, images), encoding="utf-8")
    return path


def _plot(result: BenchResult, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"dense": "tab:blue", "bm25": "tab:orange", "hybrid": "tab:green"}
    images = []
    for embedder in result.embedders:
        for bench in result.sets:
            rows = [
                row
                for row in result.rows
                if row.bench == bench.name
                and row.embedder == embedder
                and row.retriever == "memory"
            ]
            languages = bench.languages
            fig, axes = plt.subplots(
                1, len(languages), figsize=(5 * len(languages), 4), sharey=True, squeeze=False
            )
            for ax, language in zip(axes[0], languages, strict=True):
                for row in _ordered(r for r in rows if r.language == language):
                    ax.plot(
                        CURVE_KS,
                        row.metrics.curve,
                        color=colors.get(row.mode, "gray"),
                        linestyle="-" if row.examples else "--",
                        marker="o" if row.examples else None,
                        markersize=3,
                        label=f"{row.mode}{'' if row.examples else ' (no examples)'}",
                    )
                ax.axvline(result.k, color="gray", linewidth=0.8, linestyle=":")
                ax.set_title(LANGUAGE_NAMES.get(language, language))
                ax.set_xlabel("k")
                ax.set_xticks([1, 3, 5, 10, 12, 15, 20])
                ax.set_ylim(0, 1.02)
                ax.grid(alpha=0.3)
            axes[0][0].set_ylabel("recall@k")
            axes[0][-1].legend(loc="lower right", fontsize=8)
            label = bench.kind
            fig.suptitle(f"recall@k, {bench.name} ({label}) — {embedder}")
            fig.tight_layout()
            path = out_dir / f"recall_{slug(bench.name)}_{slug(embedder)}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            images.append(path)
    return images


def _ordered(rows: Iterable[BenchRow]) -> list[BenchRow]:
    return sorted(rows, key=lambda r: (MODE_ORDER.index(r.mode), not r.examples))


def _cell(metrics: RankMetrics) -> str:
    recalls = "·".join(f"{100 * metrics.recall(cut):.1f}" for cut in (1, 3, 5, 12, FAR))
    return f"{recalls} · {100 * metrics.all_bound(12):.0f} · {metrics.mrr:.3f}"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def slug(name: str) -> str:
    """A model id or set name as a file-name part."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()
