"""Options several commands share; ``console`` is where results print (``toolret.cli._output``)."""

from __future__ import annotations

from typing import Annotated

import typer

from toolret._settings import RetrievalMode
from toolret.cli._output import console

__all__ = ["CatalogOption", "KOption", "ModeOption", "UrlOption", "console"]

CatalogOption = Annotated[
    str,
    typer.Option(
        "--catalog",
        "-c",
        help="The tools: 'package.module:attribute' naming a Catalog, or a JSON file of "
        "OpenAI/Anthropic tools or an MCP tools/list result.",
    ),
]
KOption = Annotated[
    int | None,
    typer.Option("--k", "-k", min=1, help="How many non-core tools to bind [TOOLRET_K]."),
]
ModeOption = Annotated[
    RetrievalMode | None,
    typer.Option(
        "--mode",
        "-m",
        help="hybrid (dense + BM25 where words match; the default), dense (embeddings) or bm25 "
        "(lexical).",
        case_sensitive=False,
    ),
]

UrlOption = Annotated[
    str | None,
    typer.Option("--url", help="postgresql:// URL [DATABASE_URL; else the embedded Postgres]."),
]
