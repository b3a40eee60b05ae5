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

from evals.data.cases import CASES, OFF_TOPIC, cases_in
from toolret.catalog import DEFAULT_DOMAIN_RANK, MIN_DESCRIPTION_LENGTH
from toolret.demo.examples import EXAMPLES
from toolret.demo.roster import (
    CORE,
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
    x, y = normalize(a), normalize(b)
    if x == y or jaccard(x, y) >= JACCARD_LIMIT:
        return True
    matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
    return matcher.real_quick_ratio() >= RATIO_LIMIT and matcher.ratio() >= RATIO_LIMIT


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
        assert tool.domain in DEFAULT_DOMAIN_RANK, tool.name
    assert {tool.domain for tool in TOOLS} == set(DEFAULT_DOMAIN_RANK)


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
