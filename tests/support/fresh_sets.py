"""The fresh held-back sets as data for their parametrized tests (``tests/test_eval_fresh.py``
for all three, ``tests/test_eval_fresh_wiring.py`` for the second and third), and the text
checks those tests apply to their prompts: the metadata tests' near-duplicate rule against
earlier texts and within a set, and the length rule. Plain text: nothing here ranks, embeds or
scores a case."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from types import ModuleType

from evals.data import fresh, fresh2, fresh3
from evals.data.cases import CASES, FRESH, FRESH2, FRESH3, HELD, TUNE, Case, Split
from evals.data.fresh_ar import ROWS as FIRST_AR
from evals.data.fresh_en import ROWS as FIRST_EN
from evals.data.fresh_tr import ROWS as FIRST_TR
from tests.test_eval_metadata import normalize, similar

__all__ = [
    "ARABIC_SCRIPT",
    "FRESH_SETS",
    "LATER_SETS",
    "FreshSet",
    "close_pairs",
    "length_faults",
    "overlaps",
]

ARABIC_SCRIPT = ("\u0600", "\u06ff")
"""The Arabic block, whose letters Arabic and Persian are both written in."""
ARABIC_ONLY = "يكة"
"""Arabic yeh, kaf and teh marbuta: Persian writes ی, ک and ه (or ت) instead."""
PERSIAN_ONLY = "یکگپچژ"
"""Persian yeh and kaf, and the four letters Arabic does not use."""


@dataclass(frozen=True)
class FreshSet:
    """One fresh held-back set and what its tests hold it to: who it is (split, label,
    languages, the report's heading and case counts), what it must stay apart from (the splits
    and scenarios before it, the earlier prompts it must not restate), and its script rules (which
    languages are in the Arabic script, which letters a language must not use or must show)."""

    name: str
    module: ModuleType
    split: Split
    label: str
    languages: tuple[str, ...]
    rows: Mapping[str, tuple[tuple[str, ...], ...]]
    scenarios: tuple[str, ...]
    cases: tuple[Case, ...]
    cases_in: Callable[[str], tuple[Case, ...]]
    two_tool_scenarios: int
    """Scenarios that need two non-core tools at once."""
    before: tuple[Split, ...]
    """The splits written before it, which it must differ from."""
    earlier_scenarios: tuple[str, ...]
    """The earlier fresh sets' scenarios (the roster's halves are checked from ``CASES``)."""
    earlier: Mapping[str, tuple[Case, ...]]
    """Earlier prompts it must neither repeat nor nearly equal, by name."""
    arabic_script: tuple[str, ...]
    """Languages written in the Arabic script (``ARABIC_SCRIPT``)."""
    not_copied: tuple[tuple[str, str], ...]
    """(language, language it must not copy untranslated) pairs."""
    never_letters: Mapping[str, str]
    """Letters no prompt of a language may use (the other language's keyboard)."""
    marked: Mapping[str, str]
    """Letters of which more than a quarter of a language's prompts show one."""
    heading_cases: str
    """The case counts the recall report heads the set with."""


FRESH_SETS = (
    FreshSet(
        name="fresh",
        module=fresh,
        split=FRESH,
        label="held-back, fresh (written 2026-12-06)",
        languages=("en", "ar", "tr"),
        rows={"en": FIRST_EN, "ar": FIRST_AR, "tr": FIRST_TR},
        scenarios=fresh.SCENARIOS,
        cases=fresh.FRESH_CASES,
        cases_in=fresh.fresh_cases_in,
        two_tool_scenarios=5,
        before=(TUNE, HELD),
        earlier_scenarios=(),
        earlier={"either half": CASES},
        arabic_script=("ar",),
        not_copied=(("ar", "en"), ("tr", "en")),
        never_letters={},
        marked={},
        heading_cases="English 83, Arabic 83, Turkish 83",
    ),
    FreshSet(
        name="fresh2",
        module=fresh2,
        split=FRESH2,
        label="held-back, fresh (written 2026-12-06, session 47)",
        languages=("en", "ar", "tr"),
        rows=fresh2.ROWS,
        scenarios=fresh2.SCENARIOS,
        cases=fresh2.FRESH2_CASES,
        cases_in=fresh2.fresh2_cases_in,
        two_tool_scenarios=6,
        before=(TUNE, HELD, FRESH),
        earlier_scenarios=fresh.SCENARIOS,
        earlier={"either half": CASES, "first fresh": fresh.FRESH_CASES},
        arabic_script=("ar",),
        not_copied=(("ar", "en"), ("tr", "en")),
        never_letters={},
        marked={},
        heading_cases="English 84, Arabic 84, Turkish 84",
    ),
    FreshSet(
        name="fresh3",
        module=fresh3,
        split=FRESH3,
        label="held-back, fresh (written 2026-12-06, session 47, third)",
        languages=("en", "ar", "tr", "fa"),
        rows=fresh3.ROWS,
        scenarios=fresh3.SCENARIOS,
        cases=fresh3.FRESH3_CASES,
        cases_in=fresh3.fresh3_cases_in,
        two_tool_scenarios=6,
        before=(TUNE, HELD, FRESH, FRESH2),
        earlier_scenarios=(*fresh.SCENARIOS, *fresh2.SCENARIOS),
        earlier={
            "either half": CASES,
            "first fresh": fresh.FRESH_CASES,
            "second fresh": fresh2.FRESH2_CASES,
        },
        arabic_script=("ar", "fa"),
        not_copied=(("ar", "en"), ("tr", "en"), ("fa", "en"), ("fa", "ar")),
        never_letters={"fa": ARABIC_ONLY, "ar": PERSIAN_ONLY},
        marked={"fa": "گپچژ"},
        heading_cases="English 84, Arabic 84, Turkish 84, Persian 84",
    ),
)
"""The three fresh sets, in the order they were written."""
LATER_SETS = FRESH_SETS[1:]
"""The second and third, whose runner wiring is checked without running the runner (the first's
is checked by running it, ``tests/test_eval_fresh_report.py``)."""


def overlaps(cases: Sequence[Case], texts: Iterable[str]) -> list[tuple[str, str]]:
    """(text, prompt of ``cases``) pairs that nearly equal each other (``near_duplicate``)."""
    mine = [(normalize(case.prompt), case.prompt) for case in cases]
    return [
        (text, prompt)
        for text, other in ((text, normalize(text)) for text in texts)
        for folded, prompt in mine
        if similar(other, folded)
    ]


def close_pairs(cases: Sequence[Case]) -> list[tuple[str, str]]:
    """Pairs of prompts of ``cases`` that nearly equal each other."""
    folded = [(normalize(case.prompt), case.prompt) for case in cases]
    return [(a, b) for (x, a), (y, b) in combinations(folded, 2) if similar(x, y)]


def length_faults(prompts: Sequence[str]) -> list[str]:
    """What breaks the length rule: 3 to 25 words, more than 80% of them 6 to 18, at least three
    under 6 (the short requests users also type)."""
    lengths = sorted(len(prompt.split()) for prompt in prompts)
    faults = []
    if lengths[0] < 3 or lengths[-1] > 25:
        faults.append(f"outside 3-25 words: {lengths}")
    if sum(6 <= n <= 18 for n in lengths) <= 0.8 * len(lengths):
        faults.append(f"80% or fewer of 6-18 words: {lengths}")
    if sum(n < 6 for n in lengths) < 3:
        faults.append(f"fewer than three under 6 words: {lengths}")
    return faults
