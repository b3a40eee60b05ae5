"""The time-budget contract selections are held to in tests: the budget, plus 10%, plus 50 ms.

The 10% and 50 ms are the event loop's lateness in delivering the timeout on a loaded machine,
and the full roster's assembly after it; a 3x overrun of a small budget fails. How far past
the budget faults really run is measured by ``python -m evals.bench_faults``.
"""

from __future__ import annotations

__all__ = ["OVERRUN_GRACE", "OVERRUN_SHARE", "assert_within_budget", "budget_limit"]

OVERRUN_SHARE = 0.10
"""Of the budget, how much later than it a selection may return."""
OVERRUN_GRACE = 0.05
"""Seconds a selection may return after the budget, on top of ``OVERRUN_SHARE``."""


def budget_limit(budget: float) -> float:
    """The latest a selection under ``budget`` seconds may return, in seconds."""
    return budget * (1 + OVERRUN_SHARE) + OVERRUN_GRACE


def assert_within_budget(wall: float, budget: float) -> None:
    """``wall`` seconds (a call's wall time, or its ``elapsed_ms`` / 1000) keep the contract."""
    limit = budget_limit(budget)
    assert wall <= limit, f"{wall:.3f} s against a {budget:g} s budget (limit {limit:.3f} s)"
