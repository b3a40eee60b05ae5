"""``toolret status``: models, corpora, rows and indexes in the database."""

from __future__ import annotations

import asyncio

from rich.table import Table

from toolret.cli._errors import fail
from toolret.cli._options import UrlOption, console
from toolret.cli._output import show_table

__all__ = ["status"]


def status(url: UrlOption = None) -> None:
    """Models, corpora, row counts and whether each model's HNSW index exists.

    Exits 1, saying so, when the database is not migrated or its schema is older than this
    toolret's (run `toolret db upgrade`).
    """
    from toolret.store._migrate import head_revision
    from toolret.store._types import StoreStatus
    from toolret.store._vector_store import VectorStore
    from toolret.store.embedded import resolve_database_url

    async def read(target: str) -> StoreStatus:
        async with VectorStore.from_url(target) as store:
            return await store.status()

    state = asyncio.run(read(url or resolve_database_url()))
    head = head_revision()
    if state.revision is None:
        fail("this database has no toolret schema (not migrated): run `toolret db upgrade`")
    console.print(f"schema revision: {state.revision}")
    if state.revision != head:
        fail(
            f"the schema is at revision {state.revision}, this toolret needs {head}: "
            "run `toolret db upgrade`"
        )
    table = Table(title="embedding models")
    for column in ("model", "dim", "vectors", "pending", "corpora", "published", "last seen"):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_column("HNSW index")
    for m in state.models:
        seen = f"{m.last_seen:%Y-%m-%d %H:%M}" if m.last_seen else "—"
        row = (m.dimension, m.vectors, m.pending_vectors, m.corpora, m.published_corpora)
        table.add_row(m.model_id, *map(str, row), seen, "yes" if m.index else "no")
    show_table(table)
