"""``toolret examples suggest``: candidate example requests from Gemini, into a file to review.

    GEMINI_API_KEY=… toolret examples suggest --catalog SPEC --languages en,ar,tr \\
        --out examples.suggested.toml

The file is in the side-file format the catalog's ``examples=`` option reads; nothing goes into
the index until a person keeps suggestions in the file the catalog loads.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from toolret._settings import Settings
from toolret.adapters._loading import load_catalog
from toolret.cli._errors import fail
from toolret.cli._options import console
from toolret.errors import ToolretError

__all__ = ["examples_app"]

examples_app = typer.Typer(help="Example requests: suggest candidates for review.")


@examples_app.command()
def suggest(
    catalog: Annotated[
        str, typer.Option("--catalog", "-c", help="'package.module:attribute' or a JSON file.")
    ],
    languages: Annotated[str, typer.Option(help="Comma-separated language codes.")] = "en",
    out: Annotated[Path, typer.Option(help="Where to write them (.toml, or .json).")] = Path(
        "examples.suggested.toml"
    ),
    per_tool: Annotated[
        int, typer.Option(min=1, max=10, help="Requests per tool and language.")
    ] = 3,
    model: Annotated[str | None, typer.Option(help="The Gemini model to ask.")] = None,
) -> None:
    """Ask a Gemini model (GEMINI_API_KEY) for example requests per tool, in each language."""
    from toolret.authoring._suggest import DEFAULT_MODEL, suggest_examples, write_examples

    settings = Settings()
    key = settings.gemini_api_key.get_secret_value() if settings.gemini_api_key else ""
    codes = [code.strip() for code in languages.split(",") if code.strip()]
    try:
        loaded = load_catalog(catalog)
        suggested = asyncio.run(
            suggest_examples(
                loaded,
                codes,
                api_key=key,
                model=model or DEFAULT_MODEL,
                per_tool=per_tool,
                base_url=settings.gemini_base_url,
            )
        )
    except ToolretError as error:
        fail(error, 2)
    write_examples(out, suggested)
    total = sum(len(texts) for texts in suggested.values())
    console.print(
        f"{total} suggested request(s) for {len(suggested)} tool(s) written to {out}: "
        "review them, then keep what is good in the catalog's examples file"
    )
