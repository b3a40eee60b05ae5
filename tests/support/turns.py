"""What the turn tests count: the selections a retriever makes, and an embedder whose query
embedding never answers (a hung embedding server), so every selection spends its budget."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.support.embedders import HangingQueries
from toolret import InMemoryRetriever, Selection
from toolret._catalog import Catalog
from toolret.errors import ToolretError

__all__ = ["CountingRetriever", "Errors", "hung_retriever"]


class CountingRetriever(InMemoryRetriever):
    """The in-memory retriever, counting the selections it is asked for (a ``Retriever``
    subclass, the extension point users have)."""

    selections = 0

    async def select(self, catalog: Catalog, message: str, **options: Any) -> Selection:
        self.selections += 1
        return await super().select(catalog, message, **options)


async def hung_retriever(catalog: Catalog, budget: float = 0.3) -> CountingRetriever:
    """A counting retriever over ``catalog``, indexed, whose query embeddings hang: every
    selection falls open after ``budget`` seconds."""
    retriever = CountingRetriever(HangingQueries(), k=1, time_budget=budget)
    await retriever.index(catalog)
    return retriever


class Errors(list[ToolretError]):
    """An ``on_error`` callback that keeps what it was handed."""

    def __call__(self, error: ToolretError) -> None:
        self.append(error)

    def kinds(self) -> Iterable[str]:
        return [type(error).__name__ for error in self]
