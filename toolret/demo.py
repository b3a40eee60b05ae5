"""``toolret demo``: the demo roster, a few messages in three languages, what each is sent."""

from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from toolret.catalog import Catalog
from toolret.memory import InMemoryRetriever

__all__ = ["DEMO_MESSAGES", "run_demo"]

DEMO_MESSAGES: tuple[tuple[str, str], ...] = (
    ("en", "Delete the duplicate contact for Acme Corp"),
    ("en", "Add a status field with options open, won and lost to deals"),
    ("ar", "أبغى أربط كل صفقة بالشركة حقتها"),
    ("ar", "اكتب تعليق على هذا السجل إن العميل طلب عرض سعر جديد"),
    ("tr", "Yarın için müşteriyi arama görevi oluştur"),
    ("tr", "Kanban görünümünü aşamaya göre grupla"),
    ("en", ""),
)


def demo_catalog() -> Catalog:
    """The 44-tool CRM roster the evals measure."""
    from evals.roster import catalog

    roster: Catalog = catalog
    return roster


async def run_demo(console: Console) -> None:
    """Index the demo roster with the bundled model and show a selection per message."""
    catalog = demo_catalog()
    async with InMemoryRetriever() as retriever:
        started = time.perf_counter()
        with console.status(f"embedding {len(catalog)} tools with {retriever.embedder.model_id}…"):
            await retriever.index(catalog)
        console.print(
            f"indexed {len(catalog)} tools ({len(catalog.core)} core) in "
            f"{time.perf_counter() - started:.1f} s with {retriever.embedder.model_id}"
        )
        table = Table(title=f"toolret demo: {len(catalog)} tools, k={retriever.k}")
        table.add_column("lang")
        table.add_column("message", max_width=40)
        table.add_column("sent", justify="right")
        table.add_column("best matches (score)", max_width=60)
        table.add_column("ms", justify="right")
        for language, message in DEMO_MESSAGES:
            selection = await retriever.select(catalog, message)
            best = sorted(selection.scores.items(), key=lambda item: -item[1])[:4]
            matches = ", ".join(f"{name} ({score:.2f})" for name, score in best)
            if selection.reason is not None:
                matches = f"full roster: {selection.reason.value}"
            table.add_row(
                language,
                message or "(blank)",
                f"{len(selection.tools)}/{len(catalog)}",
                matches,
                f"{selection.elapsed_ms:.1f}",
            )
        console.print(table)
