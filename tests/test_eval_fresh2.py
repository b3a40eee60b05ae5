"""The second fresh held-back set (``evals.data.fresh2``): plain data, no model.

Like the first (``tests/test_eval_fresh.py``), it is worth something only while it is new: every
scenario in all three languages with the same tools, every non-core tool covered twice, no prompt
that repeats or nearly repeats a case of either half, a case of the first fresh set, an example,
a piece of a description or another of its own prompts, and none of it where the gate or a study
could see it. Nothing here ranks, embeds or scores a case.
"""

from __future__ import annotations

from collections import Counter

import pytest

from evals.data.cases import CASES, FRESH, FRESH2, HELD, LANGUAGES, TUNE
from evals.data.fresh import FRESH_CASES, SCENARIOS as FIRST_SCENARIOS, build
from evals.data.fresh2 import FRESH2_CASES, LABEL, ROWS, SCENARIOS, fresh2_cases_in
from tests.support.fresh_sets import close_pairs, length_faults, overlaps
from tests.test_eval_metadata import (
    NAMES,
    NON_CORE,
    all_examples,
    description_pieces,
    normalize,
    similar,
)
from toolret.demo.roster import CORE, TOOLS

LOOK_ALIKE_SCENARIOS = 2
"""Scenarios of its own each non-core tool has (every one has a look-alike in the roster)."""
TWO_TOOL_SCENARIOS = 6
"""Scenarios that need two non-core tools at once."""


def test_the_second_fresh_set_is_held_back_and_apart_from_every_other_set() -> None:
    assert LABEL == "held-back, fresh (written 2026-12-06, session 47)"
    assert {case.split for case in FRESH2_CASES} == {FRESH2}
    assert FRESH2 not in (TUNE, HELD, FRESH)
    assert {case.split for case in CASES} == {TUNE, HELD}
    assert {case.scenario for case in CASES}.isdisjoint(SCENARIOS)
    assert set(FIRST_SCENARIOS).isdisjoint(SCENARIOS)


def test_every_scenario_is_written_once_in_every_language_needing_the_same_tools() -> None:
    assert len(SCENARIOS) == len(set(SCENARIOS)) == len(ROWS["en"])
    assert len(FRESH2_CASES) == len(LANGUAGES) * len(SCENARIOS)
    by_scenario: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for case in FRESH2_CASES:
        by_scenario.setdefault(case.scenario, []).append((case.language, case.tools))
    assert sorted(by_scenario) == sorted(SCENARIOS)
    for scenario, written in by_scenario.items():
        assert sorted(language for language, _ in written) == sorted(LANGUAGES), scenario
        assert len({tools for _, tools in written}) == 1, scenario


def test_a_scenario_missing_a_language_is_refused_under_the_sets_own_name() -> None:
    rows = {"en": (("s", "Add a lead", "create_record"),), "ar": (("s", "أضف", "create_record"),)}
    with pytest.raises(ValueError, match="fresh2_tr: not every scenario once, as in fresh2_en"):
        build(rows, FRESH2, "fresh2")


def test_every_case_names_roster_tools_and_needs_a_non_core_one() -> None:
    assert [c.prompt for c in FRESH2_CASES if not set(c.tools) <= NAMES] == []
    assert [c.prompt for c in FRESH2_CASES if not set(c.tools) - set(CORE)] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_non_core_tool_has_two_scenarios_in_every_language(language: str) -> None:
    counts = Counter(name for case in fresh2_cases_in(language) for name in case.tools)
    assert len(NON_CORE) == len(TOOLS) - len(CORE) == 39
    assert {name: counts[name] for name in NON_CORE if counts[name] < LOOK_ALIKE_SCENARIOS} == {}
    pairs = [case for case in fresh2_cases_in(language) if len(set(case.tools) - set(CORE)) == 2]
    assert len(pairs) == TWO_TOOL_SCENARIOS


def test_no_prompt_repeats_a_case_a_first_fresh_case_or_another_of_its_own() -> None:
    """Exact, and after folding case, diacritics, Arabic letter variants and punctuation."""
    earlier = [case.prompt for case in (*CASES, *FRESH_CASES)]
    mine = [normalize(case.prompt) for case in FRESH2_CASES]
    assert set(earlier).isdisjoint(case.prompt for case in FRESH2_CASES)
    assert [text for text in mine if text in {normalize(prompt) for prompt in earlier}] == []
    assert [text for text, n in Counter(mine).items() if n > 1] == []


def test_no_prompt_nearly_equals_a_case_of_either_half() -> None:
    assert overlaps(FRESH2_CASES, [case.prompt for case in CASES]) == []


def test_no_prompt_nearly_equals_a_case_of_the_first_fresh_set() -> None:
    assert overlaps(FRESH2_CASES, [case.prompt for case in FRESH_CASES]) == []


def test_no_description_or_example_restates_a_prompt() -> None:
    """The rule the held-back half keeps: a description or example that nearly equals a
    held-back case makes it measure nothing."""
    pieces = [piece for tool in TOOLS for piece in description_pieces(tool.description)]
    assert overlaps(FRESH2_CASES, [*pieces, *(example for _, _, example in all_examples())]) == []


def test_no_two_prompts_of_the_set_nearly_equal_each_other() -> None:
    assert close_pairs(FRESH2_CASES) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_lengths_run_from_3_to_25_words_most_6_to_18(language: str) -> None:
    assert length_faults([case.prompt for case in fresh2_cases_in(language)]) == []


def test_arabic_cases_are_written_in_arabic_and_none_copies_its_english() -> None:
    """Arabic letters, beside the odd unit code or name typed in Latin letters; and no Arabic
    or Turkish prompt is its English one left untranslated."""
    for case in fresh2_cases_in("ar"):
        letters = [ch for ch in case.prompt if ch.isalpha()]
        arabic = sum("\u0600" <= ch <= "\u06ff" for ch in letters)
        assert arabic / len(letters) > 0.5, case.prompt
    english = {case.scenario: normalize(case.prompt) for case in fresh2_cases_in("en")}
    for case in (*fresh2_cases_in("ar"), *fresh2_cases_in("tr")):
        assert not similar(normalize(case.prompt), english[case.scenario]), case.prompt
