"""``toolret feedback``: what real turns say about retrieval, and undoing what was learned.

    toolret feedback --catalog myapp.tools:catalog            # miss rate, most-missed tools
    toolret feedback --catalog SPEC --export-cases cases.jsonl  # with TOOLRET_FEEDBACK_TEXT=1
    toolret feedback forget --catalog SPEC --tool create_task   # drop its learned vectors

Reads the feedback tables through ``DATABASE_URL`` (else the embedded Postgres) for the catalog's
corpus under the configured embedding model.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from toolret._catalog import Catalog
from toolret._profile import corpus_hash
from toolret._settings import Settings, make_embedder
from toolret.cli._errors import fail, load_or_exit
from toolret.cli._options import UrlOption, console
from toolret.cli._output import show_table

if TYPE_CHECKING:
    from toolret.feedback._store import FeedbackStats

__all__ = ["feedback_app", "render_stats"]

feedback_app = typer.Typer(
    help="What real turns say about retrieval: misses, find_tools, learned vectors.",
    invoke_without_command=True,
    no_args_is_help=False,
)

CatalogArg = Annotated[
    str | None,
    typer.Option("--catalog", "-c", help="The catalog: 'package.module:attribute' or a JSON file."),
]


@feedback_app.callback()
def report(
    ctx: typer.Context,
    catalog: CatalogArg = None,
    days: Annotated[float, typer.Option(min=0.01, help="How far back to look.")] = 30.0,
    export_cases: Annotated[
        Path | None,
        typer.Option(
            help="Write turns with a miss as candidate eval cases (JSON lines) for review; "
            "needs message text, kept only with TOOLRET_FEEDBACK_TEXT=1."
        ),
    ] = None,
    url: UrlOption = None,
) -> None:
    """Miss rate per day, the most-missed tools and what was bound instead, the find_tools rate,
    and learned vectors per tool, for one catalog."""
    if ctx.invoked_subcommand is not None:
        return
    if catalog is None:
        fail("pass --catalog SPEC", 2)
    loaded = load_or_exit(catalog)
    model_id, corpus = _corpus(loaded)

    from toolret.feedback._store import FeedbackStore
    from toolret.store._vector_store import VectorStore

    async def read(target: str) -> tuple[FeedbackStats, list[tuple[str, tuple[str, ...]]]]:
        async with VectorStore.from_url(target) as store:
            feedback = FeedbackStore(store)
            stats = await feedback.stats(model_id, corpus, window=timedelta(days=days))
            cases = await feedback.cases(model_id, corpus) if export_cases else []
            return stats, cases

    stats, cases = asyncio.run(read(_url(url)))
    render_stats(console, stats)
    if export_cases is not None:
        with export_cases.open("w", encoding="utf-8") as out:
            for prompt, tools in cases:
                row = {"language": None, "prompt": prompt, "tools": list(tools), "split": None}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        note = "" if cases else " (no kept text: set TOOLRET_FEEDBACK_TEXT=1 in the application)"
        console.print(f"{len(cases)} candidate case(s) written to {export_cases}{note}")


@feedback_app.command()
def forget(
    tool: Annotated[str, typer.Option("--tool", "-t", help="The tool whose learning to drop.")],
    catalog: CatalogArg = None,
    url: UrlOption = None,
) -> None:
    """Delete a tool's learned vectors (of the catalog's corpus, or of every corpus of the model
    without --catalog) and its counts of tools used together; its recorded misses are never
    promoted again."""
    settings = Settings()
    if catalog is not None:
        model_id, corpus = _corpus(load_or_exit(catalog))
    else:
        model_id, corpus = make_embedder(settings).model_id, None

    from toolret.feedback._companion_store import CompanionStore
    from toolret.feedback._store import FeedbackStore
    from toolret.store._vector_store import VectorStore

    async def run(target: str) -> tuple[int, int]:
        async with VectorStore.from_url(target) as store:
            learned = await FeedbackStore(store).forget(model_id, tool, corpus)
            return learned, await CompanionStore(store).forget(tool)

    removed, counts = asyncio.run(run(_url(url)))
    console.print(
        f"forgot {removed} learned vector(s) of {tool} and {counts} count(s) of tools used with it"
    )


def render_stats(out: Console, stats: FeedbackStats) -> None:
    """Print the tables ``toolret feedback`` shows."""
    out.print(
        f"[bold]{stats.model_id}[/bold] corpus {stats.corpus_hash[:12]}…: {stats.turns} turn(s)"
    )
    days = Table(title="per day")
    for column in ("day", "turns", "called", "misses", "miss rate", "turns w/ miss", "find_tools"):
        days.add_column(column, justify="left" if column == "day" else "right")
    for day in stats.days:
        days.add_row(
            f"{day.day:%Y-%m-%d}",
            str(day.turns),
            str(day.hits + day.misses),
            str(day.misses),
            f"{day.miss_rate:.1%}",
            f"{day.turns_with_miss / day.turns:.1%}",
            f"{day.turns_with_find_tools / day.turns:.1%}",
        )
    show_table(days, out)
    tools = Table(title="tools, most missed first")
    for column in ("tool", "misses", "hits", "via find_tools", "bound instead", "learned"):
        tools.add_column(column, justify="left" if column in ("tool", "bound instead") else "right")
    for t in stats.tools[:20]:
        confused = ", ".join(f"{name} ×{count}" for name, count in t.confused_with)
        tools.add_row(
            t.tool, str(t.misses), str(t.hits), str(t.via_find_tools), confused, str(t.learned)
        )
    show_table(tools, out)


def _corpus(catalog: Catalog) -> tuple[str, str]:
    embedder = make_embedder(Settings())
    return embedder.model_id, corpus_hash(catalog, embedder)


def _url(url: str | None) -> str:
    from toolret.store.embedded import resolve_database_url

    return url or resolve_database_url()
