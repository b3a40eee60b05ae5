"""The eval gate's lines in pytest's terminal summary: misses are shown, not asserted one by one."""

from __future__ import annotations

import pytest

from evals.recall.gate import SHIPPED_MODE

__all__ = ["GATE_LINES", "pytest_terminal_summary", "record_gate"]

GATE_LINES = pytest.StashKey[list[str]]()


def record_gate(config: pytest.Config, lines: list[str]) -> None:
    """Keep a gate report's lines for the end of the run."""
    config.stash.setdefault(GATE_LINES, []).extend(lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = terminalreporter.config.stash.get(GATE_LINES, [])
    if lines:
        terminalreporter.section(f"the CI gate (bundled model, {SHIPPED_MODE}, with examples)")
        for line in lines:
            terminalreporter.write_line(line)
