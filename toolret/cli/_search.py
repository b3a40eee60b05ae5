"""``toolret search``: which tools a message would be sent, and the indexed client it uses."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from toolret._catalog import Catalog
from toolret._settings import RetrievalMode, Settings
from toolret.cli._errors import load_or_exit
from toolret.cli._options import CatalogOption, KOption, ModeOption, console
from toolret.cli._output import progress, show_table, working
from toolret.retrieval._selection import Selection
from toolret.retrieval._signals import SIGNALS

if TYPE_CHECKING:
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["indexed_client", "search", "selection_table"]


def search(
    message: Annotated[str, typer.Argument(help="The user's message, in any language.")],
    catalog: CatalogOption = "toolret.demo.roster:catalog",
    k: KOption = None,
    mode: ModeOption = None,
) -> None:
    """Show which tools a message would be sent: core tools plus the best k, with scores.

    Prints the bound tools in catalog order with what ranked them (the dense score, and the
    sparse and lexical signals where they added to it), the mode (narrowed / passthrough /
    full), the reason when the full roster is sent, and the time the selection took.
    """
    settings = Settings()
    loaded = load_or_exit(catalog)
    selection = asyncio.run(_search(loaded, message, k or settings.k, mode or settings.mode))
    show_table(selection_table(loaded, selection, title=message))


async def _search(catalog: Catalog, message: str, k: int, mode: RetrievalMode) -> Selection:
    if mode != "bm25":
        return await _search_store(catalog, message, k, mode)
    from toolret.retrieval._memory import InMemoryRetriever

    async with InMemoryRetriever(mode=mode, k=k) as retriever:  # words only: nothing to store
        return await retriever.select(catalog, message)


async def _search_store(catalog: Catalog, message: str, k: int, mode: RetrievalMode) -> Selection:
    """Dense or hybrid search through the database client, as an agent service runs it:
    DATABASE_URL, or the embedded Postgres."""
    async with indexed_client(catalog, k, mode) as client:
        return await client.select(catalog, message)


@contextlib.asynccontextmanager
async def indexed_client(
    catalog: Catalog, k: int | None = None, mode: RetrievalMode | None = None
) -> AsyncIterator[ToolRetrievalClient]:
    """A ``ToolRetrievalClient`` on DATABASE_URL (else the embedded Postgres, started and
    migrated), its embedder warm, with ``catalog`` indexed: what is missing is embedded now,
    with a progress bar. ``mode`` defaults to ``TOOLRET_MODE``. An embedder that cannot warm up
    (down, refused, misconfigured) ends the command there, with the ``EmbedderError`` that says
    why, before any indexing."""
    from toolret.retrieval._client import ToolRetrievalClient
    from toolret.store.embedded import resolve_database_url

    with working("opening the database…"):
        url = await asyncio.to_thread(resolve_database_url)
    async with ToolRetrievalClient(url, k=k, mode=mode) as client:
        with working("warming up the embedder…"), _told_by_the_command():
            await client.warm_up()
        with progress(f"indexing {len(catalog)} tools (only what is not stored yet)…") as advance:
            report = await client.index(catalog, progress=advance)
        console.print(
            f"[dim]{report.documents} documents of {len(catalog)} tools indexed for "
            f"{report.model_id}: {report.embedded} embedded now, {report.reused} already stored "
            f"({report.seconds:.1f} s)[/dim]"
        )
        yield client


@contextlib.contextmanager
def _told_by_the_command() -> Iterator[None]:
    """Drop ``toolret.selection``'s lines while the command waits for warm-up: a failure ends
    the command with its own one line, which the breaker's would only repeat."""
    logger = logging.getLogger("toolret.selection")
    drop = logging.Filter("nothing")  # passes no record of toolret.selection
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


def selection_table(catalog: Catalog, selection: Selection, *, title: str = "") -> Table:
    """A table of the bound tools, in catalog order: name, domain, score (or core), and what
    each signal that ranked them added to it (dense, sparse, lexical)."""
    caption = f"{selection.mode.value}"
    if selection.reason is not None:
        caption += f" ({selection.reason.value})"
    caption += f" · {len(selection.tools)}/{len(catalog)} tools · {selection.elapsed_ms:.1f} ms"
    table = Table(title=title, caption=caption)
    table.add_column("tool")
    table.add_column("domain")
    table.add_column("why", justify="right")
    used = [s for s in SIGNALS if any(s in parts for parts in selection.signals.values())]
    for signal in used:
        table.add_column(signal, justify="right")
    for tool in selection.tools:
        score = selection.scores.get(tool.name)
        why = "core" if tool.core else (f"{score:.3f}" if score is not None else "—")
        parts = selection.signals.get(tool.name, {})
        cells = [f"{parts[s]:.3f}" if s in parts else "" for s in used]
        table.add_row(tool.name, tool.domain, why, *cells)
    return table
