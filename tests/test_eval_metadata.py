"""Metadata checks on the eval roster, cases and examples: plain data, no model.

A tool with no case is a tool whose recall nobody watches; an example that repeats a case makes
the eval measure nothing. Both fail here, before any embedding.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from itertools import product

import pytest

from evals.data.cases import CASES, HELD, LANGUAGES, OFF_TOPIC, TUNE, Case, cases_in
from toolret._catalog import MIN_DESCRIPTION_LENGTH
from toolret.demo._example_requests import EXAMPLES
from toolret.demo.roster import (
    CORE,
    DOMAINS,
    EVAL_MIN_DESCRIPTION_LENGTH,
    TOOLS,
    build_catalog,
    catalog,
    catalog_without_examples,
)

NAMES = {tool.name for tool in TOOLS}
NON_CORE = sorted(NAMES - set(CORE))
EXAMPLE_LANGUAGES = ("en", "ar", "tr")
EXAMPLES_PER_LANGUAGE = 3
CASE_MINIMUMS = {"en": 39, "ar": 39, "tr": 20}

JACCARD_LIMIT = 0.4
"""Token-set Jaccard at or above this (after normalization) counts as a near-duplicate."""
RATIO_LIMIT = 0.75
"""difflib ratio at or above this (after normalization) counts as a near-duplicate."""

_ARABIC_FOLD = str.maketrans(
    {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ة": "ه", "ـ": None}
    | {chr(0x0660 + d): str(d) for d in range(10)}
)


def normalize(text: str) -> str:
    """NFKC, casefold, no diacritics or tatweel, Arabic letter variants folded, no punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_ARABIC_FOLD)
    text = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def jaccard(a: str, b: str) -> float:
    left, right = set(a.split()), set(b.split())
    return len(left & right) / len(left | right) if left | right else 1.0


def near_duplicate(a: str, b: str) -> bool:
    return similar(normalize(a), normalize(b))


def similar(x: str, y: str) -> bool:
    """``near_duplicate`` of two texts already normalized."""
    if x == y or jaccard(x, y) >= JACCARD_LIMIT:
        return True
    matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
    return all(
        bound() >= RATIO_LIMIT  # each an upper bound of the next: the cheap ones first
        for bound in (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio)
    )


def description_pieces(description: str) -> set[str]:
    """A description's sentences, and the comma-separated clauses of three words or more in each:
    the units a description could restate a case in ("...: reassign all of one salesperson's
    leads, set every overdue invoice to late, ...")."""
    sentences = [s for s in re.split(r'(?<=[.;:!?])\s+|[()"]', description) if s.strip()]
    clauses = {c for s in sentences for c in re.split(r",\s+", s) if len(c.split()) >= 3}
    return {*sentences, *clauses}


def restated_by(description: str, case: Case) -> str | None:
    """The piece of ``description`` that nearly equals ``case``'s prompt, if any."""
    return next(
        (piece for piece in description_pieces(description) if near_duplicate(piece, case.prompt)),
        None,
    )


def all_examples() -> list[tuple[str, str, str]]:
    return [
        (tool, language, text)
        for tool, by_language in EXAMPLES.items()
        for language, texts in by_language.items()
        for text in texts
    ]


# ---------------------------------------------------------------- the roster


def test_roster_is_44_tools_with_5_core() -> None:
    assert len(TOOLS) == 44
    assert len(catalog) == 44
    assert sorted(tool.name for tool in catalog.core) == sorted(CORE)
    assert len(catalog.core) == 5


def test_tool_names_are_snake_case() -> None:
    bad = [name for name in NAMES if not re.fullmatch(r"[a-z]+(_[a-z]+)*", name)]
    assert bad == []


def test_every_tool_has_keywords_a_category_and_a_known_domain() -> None:
    for tool in TOOLS:
        assert tool.keywords, tool.name
        assert tool.category in {"read", "write", "destructive"}, tool.name
        assert tool.domain in DOMAINS, tool.name
    assert {tool.domain for tool in TOOLS} == set(DOMAINS)


def test_roster_mixes_reads_writes_and_destructive_operations() -> None:
    tiers = Counter(tool.category for tool in TOOLS)
    assert tiers["read"] >= 10
    assert tiers["write"] >= 10
    assert tiers["destructive"] >= 4


def test_every_description_meets_the_minimum_length() -> None:
    assert EVAL_MIN_DESCRIPTION_LENGTH >= MIN_DESCRIPTION_LENGTH
    short = {
        tool.name: len(tool.description)
        for tool in TOOLS
        if len(tool.description) < EVAL_MIN_DESCRIPTION_LENGTH
    }
    assert short == {}


def test_descriptions_only_point_to_tools_that_exist() -> None:
    for tool in TOOLS:
        mentioned = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", tool.description))
        assert mentioned <= NAMES, (tool.name, mentioned - NAMES)


# ---------------------------------------------------------------- the cases


def test_each_language_has_enough_cases() -> None:
    counts = Counter(case.language for case in CASES)
    for language, minimum in CASE_MINIMUMS.items():
        assert counts[language] >= minimum, (language, counts[language])


def test_every_case_names_tools_that_exist() -> None:
    unknown = [(case.prompt, name) for case in CASES for name in case.tools if name not in NAMES]
    assert unknown == []


def test_every_case_needs_a_non_core_tool() -> None:
    only_core = [case.prompt for case in CASES if not set(case.tools) - set(CORE)]
    assert only_core == []


def test_cases_are_unique() -> None:
    repeated = [text for text, n in Counter(normalize(c.prompt) for c in CASES).items() if n > 1]
    assert repeated == []


@pytest.mark.parametrize("language", sorted({case.language for case in CASES}))
def test_every_non_core_tool_has_a_case_in_every_language_that_has_cases(language: str) -> None:
    covered = {name for case in cases_in(language) for name in case.tools}
    assert sorted(set(NON_CORE) - covered) == []


HELD_SHARE = (0.4, 0.6)
"""Each language's share of held-back cases: about half."""

TUNING_SCENARIOS_AT_RESPLIT = frozenset(
    {
        "record-status-or-stage",
        "contact-detail-changed",
        "reassign-a-leavers-records",
        "purge-test-contacts",
        "count-deals-or-leads-in-a-period",
        "merge-duplicate-record",
        "who-changed-a-price",
        "track-a-new-kind-of-record",
        "rename-an-object",
        "field-has-the-wrong-type",
        "add-a-dropdown-option",
        "relate-two-objects",
        "link-two-records",
        "what-a-view-filters",
        "kanban-of-deals-by-stage",
        "my-tasks",
        "remind-me-to-call",
        "mark-a-task-done",
        "ready-made-templates",
        "install-a-template",
        "who-is-on-a-team",
        "undo-a-wrong-change",
        "raise-prices-by-percent",
        "purge-old-lost-leads",
        "export-tenants-for-accountant",
        "average-rent",
    }
)
"""The tuning half's scenarios when the split was made by scenario: tuning may have looked at
them, so none may ever be held back again."""


def test_a_scenario_never_straddles_the_split() -> None:
    """A request and its translations sit in one half: tuning on one would lift the other."""
    halves: dict[str, set[str]] = {}
    for case in CASES:
        halves.setdefault(case.scenario, set()).add(case.split)
    assert "" not in halves
    assert {scenario: split for scenario, split in halves.items() if len(split) > 1} == {}


def test_the_held_back_undo_has_its_translations_beside_it() -> None:
    """The leak that showed the old split rotating translations across halves."""
    undo = [case for case in CASES if case.prompt == "Undo that, you changed the wrong record"]
    siblings = [case for case in CASES if case.scenario == undo[0].scenario]
    assert {case.language for case in siblings} == set(LANGUAGES)
    assert {case.split for case in siblings} == {undo[0].split}


def test_the_tuning_half_never_gives_a_scenario_back() -> None:
    tuning = {case.scenario for case in CASES if case.split == TUNE}
    assert sorted(TUNING_SCENARIOS_AT_RESPLIT - tuning) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_is_about_half_held_back(language: str) -> None:
    cases = cases_in(language)
    share = len(cases_in(language, HELD)) / len(cases)
    assert HELD_SHARE[0] <= share <= HELD_SHARE[1], (language, share)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_non_core_tool_has_a_held_back_case_in_every_language(language: str) -> None:
    """The gate watches every tool, in every language, on cases nobody tuned on."""
    covered = {name for case in cases_in(language, HELD) for name in case.tools}
    assert sorted(set(NON_CORE) - covered) == []


def test_arabic_cases_are_written_in_arabic() -> None:
    for case in cases_in("ar"):
        letters = [ch for ch in case.prompt if ch.isalpha()]
        arabic = sum("\u0600" <= ch <= "\u06ff" for ch in letters)
        assert arabic / len(letters) > 0.8, case.prompt


def test_off_topic_messages_span_several_languages() -> None:
    languages = Counter(message.language for message in OFF_TOPIC)
    assert len(languages) >= 3
    assert all(languages[language] >= 5 for language in EXAMPLE_LANGUAGES)


# ---------------------------------------------------------------- the examples


def test_core_tools_have_no_examples() -> None:
    assert set(EXAMPLES) & set(CORE) == set()
    assert all(not tool.examples for tool in catalog.core)


@pytest.mark.parametrize("name", NON_CORE)
def test_every_non_core_tool_has_examples_in_english_arabic_and_turkish(name: str) -> None:
    by_language = EXAMPLES.get(name, {})
    for language in EXAMPLE_LANGUAGES:
        assert len(by_language.get(language, ())) >= EXAMPLES_PER_LANGUAGE, (name, language)


def test_examples_name_tools_that_exist() -> None:
    assert set(EXAMPLES) <= NAMES


def test_catalog_carries_the_examples_and_the_baseline_does_not() -> None:
    for name in NON_CORE:
        expected = [text for texts in EXAMPLES[name].values() for text in texts]
        assert list(catalog[name].examples) == expected
        assert catalog_without_examples[name].examples == ()
    assert build_catalog(examples=False).corpus_hash("m") != catalog.corpus_hash("m")


def test_examples_are_unique() -> None:
    counts = Counter(normalize(text) for _, _, text in all_examples())
    assert [text for text, n in counts.items() if n > 1] == []


def test_no_example_equals_or_nearly_equals_a_case() -> None:
    overlaps = [
        (tool, example, case.prompt)
        for (tool, _, example), case in product(all_examples(), CASES)
        if near_duplicate(example, case.prompt)
    ]
    assert overlaps == []


def test_no_description_restates_a_held_back_case() -> None:
    """Descriptions are fitted to the tuning half only; one whose sentence or clause nearly
    equals a held-back case makes that case measure nothing."""
    held = [case for case in CASES if case.split == HELD]
    restated = [
        (tool.name, piece, case.prompt)
        for tool in TOOLS
        for case in held
        if (piece := restated_by(tool.description, case))
    ]
    assert restated == []


def test_no_example_restates_a_held_back_case() -> None:
    held = [case for case in CASES if case.split == HELD]
    restated = [
        (tool, example, case.prompt)
        for (tool, _, example), case in product(all_examples(), held)
        if near_duplicate(example, case.prompt)
    ]
    assert restated == []


def test_the_restatement_check_finds_what_the_old_split_held_back() -> None:
    """Before the split by scenario, this case was held back while create_view's description
    said nearly the same thing; it is tuning data now, and the check still sees the overlap."""
    kanban = next(case for case in CASES if case.prompt.startswith("Make me a kanban board"))
    assert kanban.split == TUNE
    assert restated_by(catalog["create_view"].description, kanban) == (
        "a kanban board grouped by a select field"
    )
    planted = f"Delete a saved view. {CASES[0].prompt}. Use it with care."
    assert restated_by(planted, CASES[0]) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Install the leasing template", "install the Leasing template!"),
        ("ثبّت قالب التأجير", "ثبت قالب التاجير"),
        ("Kiralama şablonunu kur", "kiralama sablonunu kur"),
        ("Delete the old 'Q1 pipeline' view", "Delete the old Q1 pipeline view please"),
    ],
)
def test_the_overlap_check_catches_trivial_rephrasings(a: str, b: str) -> None:
    assert near_duplicate(a, b)


def test_the_overlap_check_lets_different_requests_through() -> None:
    assert not near_duplicate("Install the leasing template", "What templates do you offer?")
