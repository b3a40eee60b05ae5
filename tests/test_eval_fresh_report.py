"""The recall runner reports the roster's fresh held-back set beside its halves.

``python -m evals.recall`` (``make eval``, ``toolret recall`` from a checkout) measures the fresh
set (``evals.data.fresh``) as a third roster set, in every row it measures the held-back half in,
labelled as written; ``--no-held-back`` leaves it out with the held-back half, and the CI gate
never reads it. The figures are not asserted: only what the report holds.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from evals.data.cases import CASES, FRESH, HELD, LANGUAGES
from evals.data.fresh import FRESH_CASES, LABEL
from evals.recall.gate import gate_report, in_memory_selections
from evals.recall.roster_sets import roster_set, roster_sets
from toolret.embedders._e5 import BundledE5Embedder
from toolret.recall._memo import MemoEmbedder
from toolret.recall._report import console_recall_report
from toolret.recall._runner import run_recall

pytestmark = pytest.mark.slow

FRESH_HEADING = "roster-held-back-fresh (held-back, fresh (written 2026-12-06))"


def test_the_roster_sets_are_the_halves_then_the_fresh_set() -> None:
    assert [bench.name for bench in roster_sets()] == [
        "roster-tuning",
        "roster-held-back",
        "roster-held-back-fresh",
        "roster-held-back-fresh2",
        "roster-held-back-fresh3",
    ]
    assert [bench.name for bench in roster_sets(held_back=False)] == ["roster-tuning"]
    fresh = roster_set(FRESH)
    assert not fresh.tuning
    assert fresh.kind == LABEL
    assert roster_set(HELD).kind == "held-back"
    assert fresh.languages == LANGUAGES
    assert len(fresh.cases) == len(FRESH_CASES)
    assert fresh.example_flags == (True, False)


def test_the_runner_reports_the_fresh_set_in_every_row_it_reports_the_halves_in(
    tmp_path: Path,
) -> None:
    held, fresh = roster_set(HELD), roster_set(FRESH)
    result = run_recall(
        [],
        tmp_path,
        embedders=[MemoEmbedder(BundledE5Embedder())],
        retrievers=("memory",),
        extra_sets=[held, fresh],
        plots=False,
        log=False,
    )

    def rows_of(name: str) -> set[tuple[str, str, str, bool]]:
        return {
            (row.retriever, row.language, row.mode, row.examples)
            for row in result.rows
            if row.bench == name
        }

    assert rows_of(fresh.name) == rows_of(held.name)
    assert len(rows_of(fresh.name)) == len(LANGUAGES) * 3 * 2
    assert all(not row.tuning for row in result.rows)
    per_row = {row.metrics.cases for row in result.rows if row.bench == fresh.name}
    assert per_row == {len(FRESH_CASES) // len(LANGUAGES)}
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"### {FRESH_HEADING} · 44 tools" in report
    assert "### roster-held-back (held-back) · 44 tools" in report
    assert f"· {FRESH_HEADING}" in console_recall_report(result)


def test_the_gate_reads_the_halves_only() -> None:
    """The gate judges ``CASES`` (its functions' default), which holds no fresh case: the fresh
    set cannot make it fail."""
    for judged in (gate_report, in_memory_selections):
        assert inspect.signature(judged).parameters["cases"].default is CASES
    assert {case.prompt for case in CASES}.isdisjoint(case.prompt for case in FRESH_CASES)
