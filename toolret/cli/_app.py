"""The ``toolret`` application: every command group registered on one typer app, and ``main``."""

from __future__ import annotations

import os
import sys

import typer

from toolret.cli._console import console
from toolret.cli._db import db_app
from toolret.cli._demo import demo
from toolret.cli._errors import CommandGroup
from toolret.cli._examples import examples_app
from toolret.cli._feedback import feedback_app
from toolret.cli._gateway import gateway
from toolret.cli._lint import LINT_EPILOG, lint
from toolret.cli._recall import eval_, recall
from toolret.cli._reindex import reindex
from toolret.cli._search import search
from toolret.cli._serve import serve
from toolret.cli._status import status

__all__ = ["app", "main"]

app = typer.Typer(
    cls=CommandGroup,
    help="Semantic tool retrieval for LLM agents: the core tools plus the few a message needs.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)
app.command()(search)
app.command()(demo)
app.command()(recall)
app.command("eval", hidden=True)(eval_)
app.command(epilog=LINT_EPILOG)(lint)
app.add_typer(feedback_app, name="feedback")
app.add_typer(examples_app, name="examples")
app.add_typer(db_app, name="db")
app.command()(status)
app.command()(reindex)
app.command()(serve)
app.command()(gateway)
app.command()(console)


def main() -> None:
    """Entry point of the ``toolret`` script.

    Like ``python -m`` and ``arq``, it puts the working directory on the import path, so
    ``--catalog myapp.tools:catalog`` works from a checkout without installing ``myapp``.
    """
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    app()
