"""The one error printer every command uses, and the command group that calls it.

Any ``ToolretError`` a command raises ends it with one line on stderr — ``error:`` and the
message, which says what to do — and exit status 1 (2 for a catalog or an option that cannot be
used), never a traceback: the errors are expected conditions (no database, an unmigrated
schema, a Redis that is down), not bugs.
"""

from __future__ import annotations

from typing import Any, NoReturn

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from toolret._catalog import Catalog
from toolret.errors import ToolretError

__all__ = ["CommandGroup", "error_console", "fail", "load_or_exit"]

error_console = Console(stderr=True, soft_wrap=True)


class CommandGroup(typer.core.TyperGroup):
    """The command group: turns a ``ToolretError`` from any command into one line and exit 1."""

    def invoke(self, ctx: Any) -> Any:  # Typer's vendored click.Context is private
        try:
            return super().invoke(ctx)
        except ToolretError as error:
            fail(error)


def fail(error: BaseException | str, code: int = 1) -> NoReturn:
    """Print ``error: <message>`` on one line to stderr and exit with ``code``."""
    message = " ".join(str(error).split()) or repr(error)
    error_console.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(code)


def load_or_exit(spec: str) -> Catalog:
    """The catalog ``spec`` names (``toolret.adapters._loading``), or one line and exit 2."""
    from toolret.adapters._loading import load_catalog

    try:
        return load_catalog(spec)
    except ToolretError as error:
        fail(error, 2)
