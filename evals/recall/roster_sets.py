"""The roster's cases as two benchmark sets: the tuning half (in-sample) and the held-back half
(reported only), in the shape the recall runner (``toolret.recall``) measures every set in."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Sequence

from evals.data.cases import CASES, HELD, TUNE, Split
from evals.recall.gate import run_gate
from toolret.demo._example_requests import EXAMPLES
from toolret.demo.roster import CORE, TOOLS
from toolret.recall._data import BenchCase, BenchSet
from toolret.recall._runner import main as run_recall

__all__ = ["measure", "roster_halves", "roster_set"]


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


def measure(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.recall [DIR ...]`` (``toolret recall`` with no folder): the recall
    runner on the roster's halves and any folders given, then the gate; the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    halves = roster_halves()
    held_back = "--no-held-back" not in args
    if not held_back:
        args.remove("--no-held-back")
        halves = [half for half in halves if half.tuning]
    status = run_recall(args, extra_sets=halves)
    if held_back and status != 2:
        gate = asyncio.run(run_gate())
        print("\n" + "\n".join(gate.lines()))
        status = max(status, 0 if gate.passed else 1)
    return status
