"""The fresh held-back set (``evals.data.fresh``): plain data, no model.

A fresh set is worth something only while it is new: every scenario in all three languages,
every non-core tool covered twice, no prompt that repeats or nearly repeats a case of either
half, an example or a piece of a description, and none of it where the gate or a study could
see it.
"""

from __future__ import annotations

from collections import Counter

import pytest

from evals.data.cases import CASES, FRESH, HELD, LANGUAGES, TUNE
from evals.data.fresh import FRESH_CASES, LABEL, SCENARIOS, build, fresh_cases_in
from evals.data.fresh_en import ROWS as EN
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
"""Fresh scenarios of its own each non-core tool has (every one has a look-alike in the roster)."""


def words(text: str) -> int:
    return len(text.split())


def test_the_fresh_set_is_held_back_and_apart_from_the_halves() -> None:
    assert LABEL == "held-back, fresh (written 2026-12-06)"
    assert {case.split for case in FRESH_CASES} == {FRESH}
    assert FRESH not in (TUNE, HELD)
    assert {case.split for case in CASES} == {TUNE, HELD}
    assert {case.scenario for case in CASES}.isdisjoint(SCENARIOS)


def test_every_scenario_is_written_once_in_every_language_needing_the_same_tools() -> None:
    assert len(SCENARIOS) == len(set(SCENARIOS)) == len(EN)
    by_scenario: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for case in FRESH_CASES:
        by_scenario.setdefault(case.scenario, []).append((case.language, case.tools))
    assert sorted(by_scenario) == sorted(SCENARIOS)
    for scenario, written in by_scenario.items():
        assert sorted(language for language, _ in written) == sorted(LANGUAGES), scenario
        assert len({tools for _, tools in written}) == 1, scenario


def test_a_scenario_missing_a_language_or_needing_other_tools_is_refused() -> None:
    rows = {"en": (("s", "Add a lead", "create_record"),), "ar": (("s", "أضف", "create_record"),)}
    with pytest.raises(ValueError, match="fresh_tr: not every scenario once"):
        build(rows)
    rows["tr"] = (("s", "Aday ekle", "update_record"),)
    with pytest.raises(ValueError, match="s \\(tr\\) needs"):
        build(rows)


def test_every_case_names_roster_tools_and_needs_a_non_core_one() -> None:
    assert [c.prompt for c in FRESH_CASES if not set(c.tools) <= NAMES] == []
    assert [c.prompt for c in FRESH_CASES if not set(c.tools) - set(CORE)] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_non_core_tool_has_two_fresh_scenarios_in_every_language(language: str) -> None:
    counts = Counter(name for case in fresh_cases_in(language) for name in case.tools)
    assert len(NON_CORE) == len(TOOLS) - len(CORE) == 39
    assert {name: counts[name] for name in NON_CORE if counts[name] < LOOK_ALIKE_SCENARIOS} == {}


def test_no_fresh_prompt_repeats_a_case_or_another_fresh_prompt() -> None:
    """Exact, and after folding case, diacritics, Arabic letter variants and punctuation."""
    existing = {normalize(case.prompt) for case in CASES}
    fresh = [normalize(case.prompt) for case in FRESH_CASES]
    assert {case.prompt for case in CASES}.isdisjoint(case.prompt for case in FRESH_CASES)
    assert [text for text in fresh if text in existing] == []
    assert [text for text, n in Counter(fresh).items() if n > 1] == []


def test_no_fresh_prompt_nearly_equals_a_case_of_either_half() -> None:
    assert overlaps([case.prompt for case in CASES]) == []


def test_no_description_or_example_restates_a_fresh_prompt() -> None:
    """The rule the held-back half keeps: a description or example that nearly equals a
    held-back case makes it measure nothing."""
    pieces = [piece for tool in TOOLS for piece in description_pieces(tool.description)]
    assert overlaps([*pieces, *(example for _, _, example in all_examples())]) == []


def overlaps(texts: list[str]) -> list[tuple[str, str]]:
    """(text, fresh prompt) pairs that nearly equal each other (``near_duplicate``)."""
    fresh = [(normalize(case.prompt), case.prompt) for case in FRESH_CASES]
    return [
        (text, prompt)
        for text, other in ((text, normalize(text)) for text in texts)
        for folded, prompt in fresh
        if similar(other, folded)
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_lengths_run_from_3_to_25_words_most_6_to_18(language: str) -> None:
    lengths = [words(case.prompt) for case in fresh_cases_in(language)]
    assert min(lengths) >= 3, sorted(lengths)
    assert max(lengths) <= 25, sorted(lengths)
    assert sum(6 <= n <= 18 for n in lengths) > 0.6 * len(lengths)
    assert sum(n < 6 for n in lengths) >= 3


def test_arabic_fresh_cases_are_written_in_arabic() -> None:
    """Arabic letters, beside the odd e-mail address, unit code or name typed in Latin letters."""
    for case in fresh_cases_in("ar"):
        letters = [ch for ch in case.prompt if ch.isalpha()]
        arabic = sum("\u0600" <= ch <= "\u06ff" for ch in letters)
        assert arabic / len(letters) > 0.5, case.prompt
