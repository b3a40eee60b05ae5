"""SIGTERM ends a test run as Ctrl-C does: with a summary, and with the fixtures torn down.

A run stopped by a time limit (``timeout``, a CI job's, a supervisor's) gets SIGTERM, whose
default action ends pytest on the spot: no summary, no name of the test that was running, and
the session's Postgres and Redis servers left behind. Raised as ``KeyboardInterrupt``, pytest
reports the interrupted test and the tests run so far, and runs every teardown.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

import pytest

__all__ = ["pytest_configure", "pytest_runtest_logstart", "pytest_unconfigure"]

_PREVIOUS = pytest.StashKey[object]()
_running = ["(no test yet)"]


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"{signal.Signals(signum).name} during {_running[0]}")


def pytest_runtest_logstart(nodeid: str) -> None:
    _running[0] = nodeid


def pytest_configure(config: pytest.Config) -> None:
    if threading.current_thread() is threading.main_thread():
        config.stash[_PREVIOUS] = signal.signal(signal.SIGTERM, _interrupt)


def pytest_unconfigure(config: pytest.Config) -> None:
    previous = config.stash.get(_PREVIOUS, None)
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]
