"""The text checks the fresh held-back sets' tests apply to their prompts
(``tests/test_eval_fresh2.py``, ``tests/test_eval_fresh3.py``): the metadata tests'
near-duplicate rule against earlier texts and within a set, and the length rule. Plain text:
nothing here ranks, embeds or scores a case."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from evals.data.cases import Case
from tests.test_eval_metadata import normalize, similar

__all__ = ["close_pairs", "length_faults", "overlaps"]


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
