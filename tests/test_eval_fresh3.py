"""The third fresh held-back set (``evals.data.fresh3``): plain data, no model.

Like the first two (``tests/test_eval_fresh.py``, ``tests/test_eval_fresh2.py``), it is worth
something only while it is new: every scenario in all four languages (the roster's three and
Persian) with the same tools, every non-core tool covered twice, no prompt that repeats or nearly
repeats a case of either half, a case of the first or second fresh set, an example, a piece of a
description or another of its own prompts, and none of it where the gate or a study could see
it. Nothing here ranks, embeds or scores a case.
"""

from __future__ import annotations

from collections import Counter

import pytest

from evals.data.cases import CASES, FRESH, FRESH2, FRESH3, HELD, TUNE
from evals.data.fresh import FRESH_CASES, SCENARIOS as FIRST_SCENARIOS, build
from evals.data.fresh2 import FRESH2_CASES, SCENARIOS as SECOND_SCENARIOS
from evals.data.fresh3 import FRESH3_CASES, LABEL, LANGUAGES, ROWS, SCENARIOS, fresh3_cases_in
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
ARABIC_ONLY = "يكة"
"""Arabic yeh, kaf and teh marbuta: Persian writes ی, ک and ه (or ت) instead."""
PERSIAN_ONLY = "یکگپچژ"
"""Persian yeh and kaf, and the four letters Arabic does not use."""


def test_the_third_fresh_set_is_held_back_and_apart_from_every_other_set() -> None:
    assert LABEL == "held-back, fresh (written 2026-12-06, session 47, third)"
    assert LANGUAGES == ("en", "ar", "tr", "fa")
    assert {case.split for case in FRESH3_CASES} == {FRESH3}
    assert FRESH3 not in (TUNE, HELD, FRESH, FRESH2)
    assert {case.split for case in CASES} == {TUNE, HELD}
    assert {case.scenario for case in CASES}.isdisjoint(SCENARIOS)
    assert set(FIRST_SCENARIOS).isdisjoint(SCENARIOS)
    assert set(SECOND_SCENARIOS).isdisjoint(SCENARIOS)


def test_every_scenario_is_written_once_in_every_language_needing_the_same_tools() -> None:
    assert len(SCENARIOS) == len(set(SCENARIOS)) == len(ROWS["en"])
    assert len(FRESH3_CASES) == len(LANGUAGES) * len(SCENARIOS)
    assert [case.language for case in FRESH3_CASES] == [
        language for language in LANGUAGES for _ in SCENARIOS
    ]
    by_scenario: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for case in FRESH3_CASES:
        by_scenario.setdefault(case.scenario, []).append((case.language, case.tools))
    assert sorted(by_scenario) == sorted(SCENARIOS)
    for scenario, written in by_scenario.items():
        assert sorted(language for language, _ in written) == sorted(LANGUAGES), scenario
        assert len({tools for _, tools in written}) == 1, scenario


def test_a_scenario_missing_its_persian_row_is_refused_under_the_sets_own_name() -> None:
    rows = {
        "en": (("s", "Add a lead", "create_record"),),
        "ar": (("s", "أضف", "create_record"),),
        "tr": (("s", "Ekle", "create_record"),),
    }
    with pytest.raises(ValueError, match="fresh3_fa: not every scenario once, as in fresh3_en"):
        build(rows, FRESH3, "fresh3", LANGUAGES)


def test_every_case_names_roster_tools_and_needs_a_non_core_one() -> None:
    assert [c.prompt for c in FRESH3_CASES if not set(c.tools) <= NAMES] == []
    assert [c.prompt for c in FRESH3_CASES if not set(c.tools) - set(CORE)] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_non_core_tool_has_two_scenarios_in_every_language(language: str) -> None:
    counts = Counter(name for case in fresh3_cases_in(language) for name in case.tools)
    assert len(NON_CORE) == len(TOOLS) - len(CORE) == 39
    assert {name: counts[name] for name in NON_CORE if counts[name] < LOOK_ALIKE_SCENARIOS} == {}
    pairs = [case for case in fresh3_cases_in(language) if len(set(case.tools) - set(CORE)) == 2]
    assert len(pairs) == TWO_TOOL_SCENARIOS


def test_no_prompt_repeats_an_earlier_case_or_another_of_its_own() -> None:
    """Exact, and after folding case, diacritics, Arabic letter variants and punctuation."""
    earlier = [case.prompt for case in (*CASES, *FRESH_CASES, *FRESH2_CASES)]
    mine = [normalize(case.prompt) for case in FRESH3_CASES]
    assert set(earlier).isdisjoint(case.prompt for case in FRESH3_CASES)
    assert [text for text in mine if text in {normalize(prompt) for prompt in earlier}] == []
    assert [text for text, n in Counter(mine).items() if n > 1] == []


def test_no_prompt_nearly_equals_a_case_of_either_half() -> None:
    assert overlaps(FRESH3_CASES, [case.prompt for case in CASES]) == []


def test_no_prompt_nearly_equals_a_case_of_the_first_fresh_set() -> None:
    assert overlaps(FRESH3_CASES, [case.prompt for case in FRESH_CASES]) == []


def test_no_prompt_nearly_equals_a_case_of_the_second_fresh_set() -> None:
    assert overlaps(FRESH3_CASES, [case.prompt for case in FRESH2_CASES]) == []


def test_no_description_or_example_restates_a_prompt() -> None:
    """The rule the held-back half keeps: a description or example that nearly equals a
    held-back case makes it measure nothing."""
    pieces = [piece for tool in TOOLS for piece in description_pieces(tool.description)]
    assert overlaps(FRESH3_CASES, [*pieces, *(example for _, _, example in all_examples())]) == []


def test_no_two_prompts_of_the_set_nearly_equal_each_other() -> None:
    assert close_pairs(FRESH3_CASES) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_lengths_run_from_3_to_25_words_most_6_to_18(language: str) -> None:
    assert length_faults([case.prompt for case in fresh3_cases_in(language)]) == []


@pytest.mark.parametrize("language", ["ar", "fa"])
def test_arabic_and_persian_cases_are_written_in_their_script(language: str) -> None:
    """Arabic-script letters, beside the odd unit code or name typed in Latin letters."""
    for case in fresh3_cases_in(language):
        letters = [ch for ch in case.prompt if ch.isalpha()]
        arabic = sum("\u0600" <= ch <= "\u06ff" for ch in letters)
        assert arabic / len(letters) > 0.5, case.prompt


def test_persian_is_written_with_persian_letters_and_arabic_with_arabic_ones() -> None:
    """Persian ی and ک, never Arabic ي and ك (nor ة); and no Persian-only letter in the
    Arabic: each is its language, not the other's keyboard."""
    assert [c.prompt for c in fresh3_cases_in("fa") if set(c.prompt) & set(ARABIC_ONLY)] == []
    assert [c.prompt for c in fresh3_cases_in("ar") if set(c.prompt) & set(PERSIAN_ONLY)] == []
    persian = [c for c in fresh3_cases_in("fa") if set(c.prompt) & set("گپچژ")]
    assert len(persian) > len(SCENARIOS) // 4


def test_no_prompt_copies_its_scenario_in_another_language() -> None:
    """No Arabic, Turkish or Persian prompt is its English one left untranslated, and no
    Persian prompt is its Arabic one (the two share a script)."""
    by_language = {
        language: {case.scenario: normalize(case.prompt) for case in fresh3_cases_in(language)}
        for language in LANGUAGES
    }
    for language in ("ar", "tr", "fa"):
        for scenario, folded in by_language[language].items():
            assert not similar(folded, by_language["en"][scenario]), (language, scenario)
    for scenario, folded in by_language["fa"].items():
        assert not similar(folded, by_language["ar"][scenario]), scenario


def test_the_shared_length_rule_names_each_part_it_breaks() -> None:
    """The rule the fresh sets' tests share (``tests/support/fresh_sets.py``) fails a set."""
    assert [fault.split(":")[0] for fault in length_faults(["Undo"] * 3)] == [
        "outside 3-25 words",
        "80% or fewer of 6-18 words",
    ]
    assert [fault.split(":")[0] for fault in length_faults(["a b c d e f"] * 5)] == [
        "fewer than three under 6 words"
    ]
