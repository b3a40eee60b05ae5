"""The three fresh held-back sets (``evals.data.fresh``, ``fresh2``, ``fresh3``): plain data, no
model, each rule checked once per set (``tests/support/fresh_sets.py`` holds what differs between
them: languages, the earlier texts, the script rules).

A fresh set is worth something only while it is new: every scenario in all its languages (the
roster's three, and Persian in the third) with the same tools, every non-core tool covered
twice, no prompt that repeats or nearly repeats a case of either half, of an earlier fresh set,
an example, a piece of a description or another of its own prompts, and none of it where the
gate or a study could see it. Nothing here ranks, embeds or scores a case.
"""

from __future__ import annotations

from collections import Counter

import pytest

from evals.data.cases import CASES, HELD, LANGUAGES, TUNE
from evals.data.fresh import build
from tests.support.fresh_sets import (
    ARABIC_SCRIPT,
    FRESH_SETS,
    FreshSet,
    close_pairs,
    length_faults,
    overlaps,
)
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
SAMPLE_ROW = {"en": "Add a lead", "ar": "أضف", "tr": "Ekle", "fa": "افزودن"}
"""A one-scenario prompt per language, for the refusal check."""

by_set = pytest.mark.parametrize("fresh", FRESH_SETS, ids=lambda fresh: fresh.name)
by_language = pytest.mark.parametrize(
    ("fresh", "language"),
    [(fresh, language) for fresh in FRESH_SETS for language in fresh.languages],
    ids=lambda value: value.name if isinstance(value, FreshSet) else value,
)


@by_set
def test_the_set_is_held_back_and_apart_from_every_other_set(fresh: FreshSet) -> None:
    assert fresh.module.__name__ == f"evals.data.{fresh.name}"
    assert fresh.label == fresh.module.LABEL
    assert getattr(fresh.module, "LANGUAGES", LANGUAGES) == fresh.languages
    assert {case.split for case in fresh.cases} == {fresh.split}
    assert fresh.split not in fresh.before
    assert {case.split for case in CASES} == {TUNE, HELD}
    assert {case.scenario for case in CASES}.isdisjoint(fresh.scenarios)
    assert set(fresh.earlier_scenarios).isdisjoint(fresh.scenarios)


@by_set
def test_every_scenario_is_written_once_in_every_language_needing_the_same_tools(
    fresh: FreshSet,
) -> None:
    assert len(fresh.scenarios) == len(set(fresh.scenarios)) == len(fresh.rows["en"])
    assert len(fresh.cases) == len(fresh.languages) * len(fresh.scenarios)
    assert [case.language for case in fresh.cases] == [
        language for language in fresh.languages for _ in fresh.scenarios
    ]
    by_scenario: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for case in fresh.cases:
        by_scenario.setdefault(case.scenario, []).append((case.language, case.tools))
    assert sorted(by_scenario) == sorted(fresh.scenarios)
    for scenario, written in by_scenario.items():
        assert sorted(language for language, _ in written) == sorted(fresh.languages), scenario
        assert len({tools for _, tools in written}) == 1, scenario


@by_set
def test_a_scenario_missing_its_last_language_is_refused_under_the_sets_own_name(
    fresh: FreshSet,
) -> None:
    *written, missing = fresh.languages
    rows = {language: (("s", SAMPLE_ROW[language], "create_record"),) for language in written}
    name = fresh.name
    with pytest.raises(
        ValueError, match=f"{name}_{missing}: not every scenario once, as in {name}_en"
    ):
        build(rows, fresh.split, name, fresh.languages)


def test_a_scenario_whose_languages_need_other_tools_is_refused() -> None:
    rows = {
        "en": (("s", "Add a lead", "create_record"),),
        "ar": (("s", "أضف", "create_record"),),
        "tr": (("s", "Aday ekle", "update_record"),),
    }
    with pytest.raises(ValueError, match="s \\(tr\\) needs"):
        build(rows)


@by_set
def test_every_case_names_roster_tools_and_needs_a_non_core_one(fresh: FreshSet) -> None:
    assert [c.prompt for c in fresh.cases if not set(c.tools) <= NAMES] == []
    assert [c.prompt for c in fresh.cases if not set(c.tools) - set(CORE)] == []


@by_language
def test_every_non_core_tool_has_two_scenarios_in_every_language(
    fresh: FreshSet, language: str
) -> None:
    counts = Counter(name for case in fresh.cases_in(language) for name in case.tools)
    assert len(NON_CORE) == len(TOOLS) - len(CORE) == 39
    assert {name: counts[name] for name in NON_CORE if counts[name] < LOOK_ALIKE_SCENARIOS} == {}
    pairs = [case for case in fresh.cases_in(language) if len(set(case.tools) - set(CORE)) == 2]
    assert len(pairs) == fresh.two_tool_scenarios


@by_set
def test_no_prompt_repeats_an_earlier_case_or_another_of_its_own(fresh: FreshSet) -> None:
    """Exact, and after folding case, diacritics, Arabic letter variants and punctuation."""
    earlier = [case.prompt for cases in fresh.earlier.values() for case in cases]
    mine = [normalize(case.prompt) for case in fresh.cases]
    assert set(earlier).isdisjoint(case.prompt for case in fresh.cases)
    assert [text for text in mine if text in {normalize(prompt) for prompt in earlier}] == []
    assert [text for text, n in Counter(mine).items() if n > 1] == []


@pytest.mark.parametrize(
    ("fresh", "earlier"),
    [(fresh, earlier) for fresh in FRESH_SETS for earlier in fresh.earlier],
    ids=lambda value: value.name if isinstance(value, FreshSet) else value.replace(" ", "-"),
)
def test_no_prompt_nearly_equals_an_earlier_case(fresh: FreshSet, earlier: str) -> None:
    """A case of either half, of the first fresh set (the later two), of the second (the
    third)."""
    assert overlaps(fresh.cases, [case.prompt for case in fresh.earlier[earlier]]) == []


@by_set
def test_no_description_or_example_restates_a_prompt(fresh: FreshSet) -> None:
    """The rule the held-back half keeps: a description or example that nearly equals a
    held-back case makes it measure nothing."""
    pieces = [piece for tool in TOOLS for piece in description_pieces(tool.description)]
    assert overlaps(fresh.cases, [*pieces, *(example for _, _, example in all_examples())]) == []


@by_set
def test_no_two_prompts_of_the_set_nearly_equal_each_other(fresh: FreshSet) -> None:
    assert close_pairs(fresh.cases) == []


@by_language
def test_lengths_run_from_3_to_25_words_most_6_to_18(fresh: FreshSet, language: str) -> None:
    assert length_faults([case.prompt for case in fresh.cases_in(language)]) == []


@pytest.mark.parametrize(
    ("fresh", "language"),
    [(fresh, language) for fresh in FRESH_SETS for language in fresh.arabic_script],
    ids=lambda value: value.name if isinstance(value, FreshSet) else value,
)
def test_arabic_script_cases_are_written_in_their_script(fresh: FreshSet, language: str) -> None:
    """Arabic-script letters, beside the odd unit code or name typed in Latin letters."""
    low, high = ARABIC_SCRIPT
    for case in fresh.cases_in(language):
        letters = [ch for ch in case.prompt if ch.isalpha()]
        assert sum(low <= ch <= high for ch in letters) / len(letters) > 0.5, case.prompt


@by_set
def test_each_language_keeps_its_own_letters(fresh: FreshSet) -> None:
    """Persian ی and ک, never Arabic ي and ك (nor ة); and no Persian-only letter in the
    Arabic: each is its language, not the other's keyboard (where the set has both)."""
    for language, never in fresh.never_letters.items():
        assert [c.prompt for c in fresh.cases_in(language) if set(c.prompt) & set(never)] == []
    for language, marks in fresh.marked.items():
        shown = [c for c in fresh.cases_in(language) if set(c.prompt) & set(marks)]
        assert len(shown) > len(fresh.scenarios) // 4, language


@by_set
def test_no_prompt_copies_its_scenario_in_another_language(fresh: FreshSet) -> None:
    """No Arabic, Turkish (or Persian) prompt is its English one left untranslated, and no
    Persian prompt is its Arabic one (the two share a script)."""
    folded = {
        language: {case.scenario: normalize(case.prompt) for case in fresh.cases_in(language)}
        for language in fresh.languages
    }
    for language, source in fresh.not_copied:
        for scenario, text in folded[language].items():
            assert not similar(text, folded[source][scenario]), (language, scenario)


def test_the_script_rules_are_the_third_sets_where_it_has_persian() -> None:
    """The per-set data keeps the Persian checks on the set that has Persian."""
    third = {fresh.name: fresh for fresh in FRESH_SETS}["fresh3"]
    assert third.arabic_script == ("ar", "fa")
    assert {("fa", "en"), ("fa", "ar")} <= set(third.not_copied)
    assert set(third.never_letters) == {"fa", "ar"}
    assert third.marked == {"fa": "گپچژ"}


def test_the_shared_length_rule_names_each_part_it_breaks() -> None:
    """The rule the fresh sets' tests share (``tests/support/fresh_sets.py``) fails a set."""
    assert [fault.split(":")[0] for fault in length_faults(["Undo"] * 3)] == [
        "outside 3-25 words",
        "80% or fewer of 6-18 words",
    ]
    assert [fault.split(":")[0] for fault in length_faults(["a b c d e f"] * 5)] == [
        "fewer than three under 6 words"
    ]
