"""Where commands print: for a person at a terminal, and for a pipe, a log or CI.

At a terminal: rich tables and colours on stdout, and a spinner or a progress bar on stderr
while something takes seconds. Without one (``| cat``, ``> file``, CI): every table as plain
aligned text, one line per row, no column dropped or cut and no line wrapped — a log reader
needs the whole row — and, as no spinner can be seen there, one line on stderr saying what is
being done once it has taken two seconds (a command that ends sooner, or fails at once, prints
nothing more). stdout carries only results, so ``--json`` and ``$(toolret db url)`` stay clean.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

__all__ = ["console", "plain_table", "progress", "show_table", "status_console", "working"]

console = Console()
"""stdout: results."""
console.soft_wrap = not console.is_terminal  # a log keeps long lines whole
status_console = Console(stderr=True)
"""stderr: what is being done (a spinner, a progress bar, or one line when piped)."""

Advance = Callable[[int, int], None]
"""Called with (done, total) as work advances."""
NOTICE_AFTER = 2.0
"""Seconds of work before a command without a terminal says on stderr what it is doing."""


def show_table(table: Table, out: Console | None = None) -> None:
    """Print ``table``: as rich draws it at a terminal, as ``plain_table`` lines elsewhere."""
    out = out or console
    if out.is_terminal:
        out.print(table)
        return
    for line in plain_table(table):
        out.print(line, markup=False, highlight=False, soft_wrap=True)


def plain_table(table: Table) -> list[str]:
    """The title, a header line, one line per row and the caption, columns aligned by their
    widest cell (right-aligned columns to the right), two spaces apart; nothing cut."""
    columns = [
        [_plain(column.header), *(_plain(cell) for cell in column.cells)]
        for column in table.columns
    ]
    widths = [max(cell_len(cell) for cell in cells) for cells in columns]
    right = [column.justify == "right" for column in table.columns]
    lines = [_plain(table.title)] if table.title else []
    for row in zip(*columns, strict=True):
        cells = [
            _pad(cell, width, at_right)
            for cell, width, at_right in zip(row, widths, right, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    if table.caption:
        lines.append(_plain(table.caption))
    return lines


@contextmanager
def working(
    what: str, *, out: Console | None = None, after: float = NOTICE_AFTER
) -> Iterator[None]:
    """A spinner saying ``what`` on a terminal's stderr while the block runs; without a
    terminal, ``what`` as one line on stderr if the block is still running ``after`` seconds
    in."""
    out = out or status_console
    if out.is_terminal:
        with out.status(what):
            yield
        return
    with _notice(out, what, after):
        yield


@contextmanager
def progress(
    what: str, *, out: Console | None = None, after: float = NOTICE_AFTER
) -> Iterator[Advance]:
    """A transient progress bar for ``what`` on a terminal's stderr; without a terminal, one
    line on stderr if the work takes more than ``after`` seconds. Yields the function to call
    with (done, total)."""
    out = out or status_console
    if not out.is_terminal:
        with _notice(out, what, after):
            yield _ignore
        return
    with Progress(console=out, transient=True) as bar:
        task = bar.add_task(what, total=None, visible=False)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, visible=total > 0)

        yield advance


def _ignore(done: int, total: int) -> None:
    """Progress nobody can see."""


@contextmanager
def _notice(out: Console, what: str, after: float) -> Iterator[None]:
    """``what`` on ``out`` once the block has run ``after`` seconds (at once if 0)."""

    def say() -> None:
        out.print(what, markup=False, highlight=False, soft_wrap=True)

    if after <= 0:
        say()
        yield
        return
    timer = threading.Timer(after, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _plain(value: Any) -> str:
    if isinstance(value, Text):
        text = value.plain
    elif isinstance(value, str):
        text = Text.from_markup(value).plain
    else:
        text = str(value)
    return " ".join(text.split("\n"))


def _pad(cell: str, width: int, at_right: bool) -> str:
    space = " " * (width - cell_len(cell))
    return space + cell if at_right else cell + space
