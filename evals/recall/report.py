"""The eval's report: a markdown table for people and for stdout, and PNG plots.

``write_report`` writes ``report.md`` and, unless asked not to, ``recall_at_k_<model>.png``
(recall@k curves per language and mode, with and without examples) and
``scores_<model>.png`` (weakest true-match score against strongest off-topic score).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from evals.data.cases import CASES, OFF_TOPIC
from evals.recall.results import CURVE_KS, EvalResult, Row, ScoreSplit
from toolret.recall._report import slug

__all__ = ["console_report", "markdown_report", "recall_table", "write_report"]

LANGUAGE_NAMES = {"en": "English", "ar": "Arabic", "tr": "Turkish"}
HALF_NAMES = {"tune": "tuning (in-sample)", "held": "held-back"}


def recall_table(result: EvalResult, embedder: str) -> str:
    """One markdown table: half x language x mode x examples, recall at 1/5/k, narrowing, bound.

    The held-back half comes first: it is the honest figure. The tuning half is in-sample.
    """
    k = result.k
    lines = [
        f"| cases | language | mode | examples | n | R@1 | R@5 | R@{k} | narrowed | no signal "
        "| bound / roster |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = sorted(
        (row for row in result.rows if row.embedder == embedder),
        key=lambda r: (r.split != "held", _order(r.language), _order(r.mode), not r.examples),
    )
    for row in rows:
        lines.append(
            f"| {HALF_NAMES.get(row.split, row.split)} | {row.language} | {row.mode} "
            f"| {'yes' if row.examples else 'no'} | {row.cases} "
            f"| {_pct(row.recall[1])} | {_pct(row.recall[5])} | {_pct(row.recall[k])} "
            f"| {_pct(row.narrowed)} | {_pct(row.no_signal)} | {row.bound:.1f} / {row.roster} |"
        )
    return "\n".join(lines)


def score_table(splits: Iterable[ScoreSplit]) -> str:
    """The off-topic analysis: where a similarity floor would have to sit, and what it costs."""
    lines = [
        "| model | examples | weakest true match | strongest off-topic | true matches at or "
        "below it | off-topic at or above weakest true |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for split in splits:
        lines.append(
            f"| {split.embedder} | {'yes' if split.examples else 'no'} "
            f"| {split.weakest_true:.3f} | {split.strongest_off_topic:.3f} "
            f"| {split.true_below_strongest_off_topic} / {len(split.true_scores)} "
            f"| {split.off_topic_above_weakest_true} / {len(split.off_topic_scores)} |"
        )
    return "\n".join(lines)


def role_table(result: EvalResult) -> str:
    """Dense recall with examples embedded as queries against as documents."""
    k = result.k
    lines = [
        f"| model | examples as | language | R@1 | R@5 | R@{k} | MRR |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for row in sorted(result.roles, key=lambda r: (r.embedder, _order(r.language), r.role)):
        lines.append(
            f"| {row.embedder} | {row.role} | {row.language} | {_pct(row.recall[1])} "
            f"| {_pct(row.recall[5])} | {_pct(row.recall[k])} | {row.mrr:.3f} |"
        )
    return "\n".join(lines)


def role_verdicts(result: EvalResult) -> list[str]:
    """Per embedder: which role ranks better, by mean R@k (what ``select()`` binds), then MRR."""
    verdicts = []
    k = result.k
    for embedder in dict.fromkeys(row.embedder for row in result.roles):
        means = {}
        for role in ("query", "document"):
            rows = [r for r in result.roles if r.embedder == embedder and r.role == role]
            means[role] = (
                _mean(r.recall[k] for r in rows),
                _mean(r.mrr for r in rows),
                _mean(r.recall[1] for r in rows),
            )
        best = max(means, key=lambda role: means[role])
        other = "document" if best == "query" else "query"
        (bk, bm, b1), (ok, om, o1) = means[best], means[other]
        in_use = result.chosen_roles.get(embedder, "?")
        verdicts.append(
            f"{embedder}: examples as **{best}**: mean R@{k} {_pct(bk)} vs {_pct(ok)}, "
            f"MRR {bm:.3f} vs {om:.3f}, R@1 {_pct(b1)} vs {_pct(o1)} "
            f"(the embedder's example_role is `{in_use}`)."
        )
    return verdicts


def failure_lines(rows: Iterable[Row]) -> list[str]:
    """Each configuration's ``"prompt" → missing_tool`` lines."""
    lines = []
    for row in rows:
        if row.failures:
            lines.append(
                f"{row.embedder} {row.language} {row.mode} "
                f"{'with' if row.examples else 'without'} examples, "
                f"{HALF_NAMES.get(row.split, row.split)}: "
                f"{len(row.failures)} of {row.cases} cases missed a tool"
            )
            lines += [f"  {failure}" for failure in row.failures]
    return lines


def markdown_report(result: EvalResult, plots: Iterable[Path] = ()) -> str:
    """The whole report as markdown."""
    counts = ", ".join(
        f"{LANGUAGE_NAMES.get(lang, lang)} {sum(c.language == lang for c in CASES)}"
        for lang in dict.fromkeys(c.language for c in CASES)
    )
    parts = [
        "# Retrieval eval",
        "",
        f"{dt.date.today().isoformat()} · roster {result.roster} tools (5 core) · k = {result.k}"
        f" · cases: {counts} · {len(OFF_TOPIC)} off-topic messages · {result.elapsed:.0f} s",
        "",
        f"Recall of a case is the share of the non-core tools it needs that were found; R@1 and "
        f"R@5 are read off the ranking, R@{result.k} off what `select()` actually bound (hybrid "
        "adds BM25 to the dense score only where the message shares informative words with the "
        "catalog). *narrowed* is the share of cases whose selection held fewer tools than the "
        "roster; *no signal* the share where every candidate scored zero, so the selection was "
        "the first tools in catalog order (BM25 on a message it cannot read: narrowed, but "
        "blindly); *bound* counts core + retrieved tools. BM25 indexes names, descriptions, "
        "keywords and examples, so examples give it words in the users' languages.",
        "",
        "The cases are split once into two halves (`evals/cases.py`). **Held-back** rows are "
        "the figures to quote: nothing is tuned on them. **Tuning (in-sample)** rows are what "
        "descriptions, examples and ranking choices were fitted to. The plots show the "
        "held-back half.",
    ]
    for name, reason in result.skipped.items():
        parts += ["", f"**{name} skipped:** {reason}"]
    for embedder in result.embedders:
        parts += ["", f"## {embedder}", "", recall_table(result, embedder)]
    if result.splits:
        parts += [
            "",
            "## Weakest true match vs strongest off-topic (dense)",
            "",
            "Per case, the score of its weakest needed tool; per off-topic message, the best "
            "score any tool got. A similarity floor that rejected every off-topic message would "
            "also drop the true matches counted here, which is why selection has no floor.",
            "",
            score_table(result.splits),
        ]
    if result.roles:
        parts += [
            "",
            "## Example role: examples embedded as queries or as documents (dense)",
            "",
            role_table(result),
            "",
            *(f"- {verdict}" for verdict in role_verdicts(result)),
        ]
    parts += ["", "## Failures", "", "```", *(failure_lines(result.rows) or ["none"]), "```"]
    for plot in plots:
        parts += ["", f"![{plot.stem}]({plot.name})"]
    return "\n".join(parts) + "\n"


def console_report(result: EvalResult) -> str:
    """The tables and the gated configuration's failures, for stdout."""
    parts = []
    for embedder in result.embedders:
        parts += [f"\n{embedder}", recall_table(result, embedder)]
    if result.splits:
        parts += ["\nweakest true match vs strongest off-topic (dense)", score_table(result.splits)]
    if result.roles:
        parts += ["\nexample role (dense)", role_table(result), *role_verdicts(result)]
    dense = [row for row in result.rows if row.mode == "dense"]
    others = [row for row in result.rows if row.mode != "dense" and row.failures]
    parts += ["\nfailures (dense)", *(failure_lines(dense) or ["none"])]
    if others:
        parts.append(
            "failures in other modes (listed in report.md): "
            + ", ".join(
                f"{r.language}/{r.mode}/{'ex' if r.examples else 'no-ex'}/{r.split} "
                f"{len(r.failures)}"
                for r in others
            )
        )
    gate = result.gate_passed
    if gate is not None:
        parts.append(
            "\nCI gate (bundled, hybrid, with examples; every case narrows, held-back R@5 and "
            f"R@{result.k} per language at or above evals.recall.gate.THRESHOLDS): "
            f"{'PASS' if gate else 'FAIL'}"
        )
    return "\n".join(parts)


def write_report(result: EvalResult, out_dir: Path, *, plots: bool = True) -> Path:
    """Write report.md (and the plots) into ``out_dir``; returns the report's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    images = _plot(result, out_dir) if plots else []
    path = out_dir / "report.md"
    path.write_text(markdown_report(result, images), encoding="utf-8")
    return path


def _plot(result: EvalResult, out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = []
    colors = {"dense": "tab:blue", "bm25": "tab:orange", "hybrid": "tab:green"}
    for embedder in result.embedders:
        rows = [row for row in result.rows if row.embedder == embedder and row.split == "held"]
        languages = list(dict.fromkeys(row.language for row in rows))
        fig, axes = plt.subplots(
            1, len(languages), figsize=(5 * len(languages), 4), sharey=True, squeeze=False
        )
        for ax, language in zip(axes[0], languages, strict=True):
            for row in (r for r in rows if r.language == language):
                ax.plot(
                    CURVE_KS,
                    row.curve,
                    color=colors.get(row.mode, "gray"),
                    linestyle="-" if row.examples else "--",
                    marker="o" if row.examples else None,
                    markersize=3,
                    label=f"{row.mode}{'' if row.examples else ' (no examples)'}",
                )
            ax.axvline(result.k, color="gray", linewidth=0.8, linestyle=":")
            ax.set_title(f"{LANGUAGE_NAMES.get(language, language)}")
            ax.set_xlabel("k")
            ax.set_xticks([1, 5, 10, 12, 15, 20])
            ax.set_ylim(0, 1.02)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("recall@k")
        axes[0][-1].legend(loc="lower right", fontsize=8)
        fig.suptitle(f"recall@k, held-back cases — {embedder}")
        fig.tight_layout()
        images.append(_save(fig, out_dir / f"recall_at_k_{slug(embedder)}.png"))
        plt.close(fig)

        splits = [split for split in result.splits if split.embedder == embedder]
        if not splits:
            continue
        fig, axes = plt.subplots(1, len(splits), figsize=(6 * len(splits), 4), squeeze=False)
        for ax, split in zip(axes[0], splits, strict=True):
            true = [score for _, score in split.true_scores]
            off = [score for _, score in split.off_topic_scores]
            low = min(*true, *off)
            high = max(*true, *off)
            bins = [low + (high - low) * i / 30 for i in range(31)]
            ax.hist(true, bins=bins, alpha=0.6, label="weakest true match per case")
            ax.hist(off, bins=bins, alpha=0.6, label="strongest match per off-topic message")
            ax.axvline(split.weakest_true, color="tab:blue", linestyle="--", linewidth=1)
            ax.axvline(split.strongest_off_topic, color="tab:orange", linestyle="--", linewidth=1)
            ax.set_title(f"{'with' if split.examples else 'without'} examples")
            ax.set_xlabel("cosine similarity")
            ax.legend(fontsize=8)
        fig.suptitle(f"true matches vs off-topic — {embedder}")
        fig.tight_layout()
        images.append(_save(fig, out_dir / f"scores_{slug(embedder)}.png"))
        plt.close(fig)
    return images


def _save(fig: object, path: Path) -> Path:
    fig.savefig(path, dpi=110)  # type: ignore[attr-defined]
    return path


def _order(value: str) -> int:
    known = ("en", "ar", "tr", "dense", "bm25", "hybrid")
    return known.index(value) if value in known else len(known)


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0
