"""The shipped benchmark runner (``toolret.recall``) with the roster's two halves added as sets.

``python -m evals.benchmark DIR [DIR ...]`` is ``toolret eval --bench DIR ...`` plus the
roster's tuning half (in-sample) and held-back half (reported only), from a checkout.
"""

from __future__ import annotations

import dataclasses

from evals.data.cases import CASES, HELD, TUNE, Split
from toolret.demo._example_requests import EXAMPLES
from toolret.demo.roster import CORE, TOOLS
from toolret.recall._data import BenchCase, BenchSet

__all__ = ["roster_halves", "roster_set"]


def roster_set(split: Split) -> BenchSet:
    """One half of the roster's cases as a benchmark (non-core tools only in ``expected``)."""
    cases = tuple(
        BenchCase(case.prompt, tuple(n for n in case.tools if n not in CORE), case.language)
        for case in CASES
        if case.split == split
    )
    plain = tuple(dataclasses.replace(tool, examples=()) for tool in TOOLS)
    examples = {name: dict(by_language) for name, by_language in EXAMPLES.items()}
    name = "roster-held-back" if split == HELD else "roster-tuning"
    return BenchSet(name, plain, cases, examples, core=CORE, tuning=split != HELD)


def roster_halves() -> list[BenchSet]:
    """The tuning half, then the held-back half."""
    return [roster_set(TUNE), roster_set(HELD)]
