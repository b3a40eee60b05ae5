"""Selections per minute over the last hour, by outcome, kept in process.

What the console's Health page charts: each selection counted under its outcome (``narrowed``,
``passthrough``, or the fall-open reason) in the minute it was made. One small dict update per
selection; nothing is stored, so a restarted process starts from zero.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable

from toolret.retrieval._selection import Mode, Selection

__all__ = ["MINUTES", "SelectionMinutes"]

MINUTES = 60
"""Minutes kept (the chart's hour)."""


class SelectionMinutes:
    """Per-minute counts of selections by outcome, for the last ``MINUTES`` minutes."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._minutes: deque[tuple[int, Counter[str]]] = deque(maxlen=MINUTES)

    def record(self, selection: Selection) -> None:
        """Count ``selection`` in the current minute."""
        minute = int(self._clock() // 60)
        if not self._minutes or self._minutes[-1][0] != minute:
            self._minutes.append((minute, Counter()))
        outcome = selection.mode.value
        if selection.mode is Mode.FULL and selection.reason is not None:
            outcome = selection.reason.value
        self._minutes[-1][1][outcome] += 1

    def last_hour(self) -> list[dict[str, int]]:
        """``MINUTES`` rows, oldest first, each the outcome counts of one minute (the current
        minute last); minutes without selections are empty."""
        now = int(self._clock() // 60)
        kept = {minute: counts for minute, counts in self._minutes}
        return [dict(kept.get(minute, {})) for minute in range(now - MINUTES + 1, now + 1)]
