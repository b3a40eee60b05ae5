"""``toolret demo``: the demo roster, a few messages in three languages, what each is sent."""

from __future__ import annotations

from rich.table import Table

from toolret._catalog import Catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._selection import Mode

__all__ = ["DEMO_MESSAGES", "demo_catalog", "run_demo"]

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
    from toolret.demo.roster import catalog

    roster: Catalog = catalog
    return roster


async def run_demo(retriever: Retriever, catalog: Catalog) -> Table:
    """Per message, how many tools are sent, the best matches, and the time taken."""
    table = Table(title=f"toolret demo: {len(catalog)} tools, {len(catalog.core)} of them core")
    table.add_column("lang")
    table.add_column("message", max_width=40)
    table.add_column("sent", justify="right")
    table.add_column("best matches (score)", max_width=60)
    table.add_column("ms", justify="right")
    for language, message in DEMO_MESSAGES:
        selection = await retriever.select(catalog, message)
        best = sorted(selection.scores.items(), key=lambda item: -item[1])[:4]
        matches = ", ".join(f"{name} ({score:.2f})" for name, score in best)
        if selection.mode is Mode.FULL and selection.reason is not None:
            matches = f"full roster: {selection.reason.value}"
        elif selection.reason is not None:  # narrowed, with tools not indexed yet
            matches += f" + {len(selection.unranked)} unranked ({selection.reason.value})"
        table.add_row(
            language,
            message or "(blank)",
            f"{len(selection.tools)}/{len(catalog)}",
            matches,
            f"{selection.elapsed_ms:.1f}",
        )
    return table
