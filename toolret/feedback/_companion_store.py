"""The worker's writes of tools used together, and the operator's reads and deletions.

The worker counts every reported turn whose application did not turn companions off
(``TOOLRET_COMPANIONS``): the called tools' own counts and each pair's, one transaction a turn
(``toolret.store._companion_sql`` holds the statements and what a row means). The request path
reads the counts through ``StoreReads.companion_counts``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import text

from toolret.retrieval._companions import Companions, called_together
from toolret.store._companion_sql import FORGET, GC, UPSERT
from toolret.store._pool import rowcount
from toolret.store._read import StoreReads

__all__ = ["CompanionStore", "counted_rows"]


def counted_rows(called: Iterable[str]) -> list[tuple[str, str]]:
    """The rows one turn adds a count to: each tool's own (``(tool, tool)``) and each pair's,
    its names in order; at most ``MAX_CALLED`` tools of the turn count (``called_together``)."""
    tools = called_together(called)
    rows = [(tool, tool) for tool in tools]
    rows += [(a, b) if a < b else (b, a) for i, a in enumerate(tools) for b in tools[i + 1 :]]
    return sorted(rows)  # one lock order for every writer: no deadlock between two turns


class CompanionStore:
    """Counts of tools used together, through a store's pool (a role that may write)."""

    def __init__(self, store: StoreReads) -> None:
        self.store = store

    async def record(self, called: Iterable[str]) -> int:
        """Count one turn that called ``called`` (non-core tool names, in call order); return
        how many rows it added to."""
        rows = counted_rows(called)
        if not rows:
            return 0
        async with self.store.transaction() as connection:
            await connection.execute(
                text(UPSERT),
                {"tools": [a for a, _ in rows], "companions": [b for _, b in rows]},
            )
        return len(rows)

    async def companions(self, names: Iterable[str]) -> Companions:
        """The companions among ``names``, as the request path reads them."""
        turns, pairs = await self.store.companion_counts(set(names))
        return Companions.from_counts(turns, pairs)

    async def forget(self, tool: str) -> int:
        """Delete every count of ``tool``; return how many rows went."""
        async with self.store.transaction() as connection:
            return rowcount(await connection.execute(text(FORGET), {"tool": tool}))

    async def gc(self, *, now: datetime | None = None) -> int:
        """Delete the rows that decayed below ``GC_BELOW`` turns; return how many."""
        async with self.store.transaction() as connection:
            return rowcount(await connection.execute(text(GC), {"now": now}))
