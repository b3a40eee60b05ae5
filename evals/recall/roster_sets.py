"""The roster's cases as benchmark sets: the tuning half (in-sample), the held-back half and the
three fresh held-back sets (all four reported only), in the shape the recall runner
(``toolret.recall``) measures every set in."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Sequence

from evals.data import fresh, fresh2, fresh3
from evals.data.cases import CASES, FRESH, FRESH2, FRESH3, HELD, TUNE, Case, Split
from evals.recall.gate import run_gate
from toolret.demo._example_requests import EXAMPLES
from toolret.demo.roster import CORE, TOOLS
from toolret.recall._data import BenchCase, BenchSet
from toolret.recall._runner import main as run_recall

__all__ = ["NAMES", "measure", "roster_halves", "roster_set", "roster_sets"]

NAMES: dict[Split, str] = {
    TUNE: "roster-tuning",
    HELD: "roster-held-back",
    FRESH: "roster-held-back-fresh",
    FRESH2: "roster-held-back-fresh2",
    FRESH3: "roster-held-back-fresh3",
}
"""Each split's set name in the report."""

_WRITTEN: dict[Split, tuple[tuple[Case, ...], str]] = {
    FRESH: (fresh.FRESH_CASES, fresh.LABEL),
    FRESH2: (fresh2.FRESH2_CASES, fresh2.LABEL),
    FRESH3: (fresh3.FRESH3_CASES, fresh3.LABEL),
}
"""The fresh sets' cases (kept out of ``CASES``) and their labels in the report."""


def roster_set(split: Split) -> BenchSet:
    """One split of the roster's cases as a benchmark (non-core tools only in ``expected``):
    the tuning half, the held-back half, or a fresh held-back set (``evals.data.fresh``,
    ``evals.data.fresh2``, ``evals.data.fresh3``). A set's languages are its cases'; the third
    fresh set adds Persian, whose rows with examples get the tools' English, Arabic and Turkish
    examples (the roster has none in Persian)."""
    written, label = _WRITTEN.get(split, (CASES, ""))
    cases = tuple(
        BenchCase(case.prompt, tuple(n for n in case.tools if n not in CORE), case.language)
        for case in written
        if case.split == split
    )
    plain = tuple(dataclasses.replace(tool, examples=()) for tool in TOOLS)
    examples = {name: dict(by_language) for name, by_language in EXAMPLES.items()}
    return BenchSet(
        NAMES[split], plain, cases, examples, core=CORE, tuning=split == TUNE, label=label
    )


def roster_halves() -> list[BenchSet]:
    """The tuning half, then the held-back half."""
    return [roster_set(TUNE), roster_set(HELD)]


def roster_sets(*, held_back: bool = True) -> list[BenchSet]:
    """What ``python -m evals.recall`` measures: the tuning half, then (``held_back``) the
    held-back half and the three fresh held-back sets beside it."""
    if not held_back:
        return [roster_set(TUNE)]
    return [*roster_halves(), roster_set(FRESH), roster_set(FRESH2), roster_set(FRESH3)]


def measure(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.recall [DIR ...]`` (``toolret recall`` with no folder): the recall
    runner on the roster's sets and any folders given, then the gate; the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    held_back = "--no-held-back" not in args
    if not held_back:
        args.remove("--no-held-back")
    status = run_recall(args, extra_sets=roster_sets(held_back=held_back))
    if held_back and status != 2:
        gate = asyncio.run(run_gate())
        print("\n" + "\n".join(gate.lines()))
        status = max(status, 0 if gate.passed else 1)
    return status
