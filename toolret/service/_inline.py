"""Indexing in ``toolret serve`` itself, when no worker is configured (no ``REDIS_URL``).

A selection of a registered catalog whose tools lack vectors (``partly_indexed``, or
``not_indexed`` when none has any) starts one indexing run for that corpus in the background,
and the answer does not wait for it. One run per corpus at a time, however many requests meet
it; after a run, the same corpus is indexed again only after a backoff (it doubles while the
runs fail). The model is called only on its one dedicated thread (``ModelThread``), which serves
queued queries before document chunks, so selections meanwhile wait at most for the chunk that
is running.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from toolret._profile import corpus_hash
from toolret.indexing._asks import REASK_AFTER, REASK_AT_MOST
from toolret.indexing._backoff import Backoff

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["InlineIndexing"]

log = logging.getLogger("toolret.serve")


class InlineIndexing:
    """The background indexing runs of one service, one per corpus at a time."""

    def __init__(self, client: ToolRetrievalClient, backoff: Backoff | None = None) -> None:
        self.client = client
        self.backoff = backoff or Backoff(REASK_AFTER, REASK_AT_MOST)
        self._running: dict[str, asyncio.Task[None]] = {}

    def ask(self, catalog: Catalog) -> bool:
        """Index ``catalog``'s corpus in the background unless a run for it is under way or
        the backoff says not yet; True when a run started."""
        whole = catalog.whole
        key = corpus_hash(whole, self.client.embedder)
        if key in self._running or not self.backoff.due(key):
            return False
        task = asyncio.get_running_loop().create_task(
            self._index(whole, key), name=f"toolret-inline-index-{key[:12]}"
        )
        self._running[key] = task
        task.add_done_callback(lambda _: self._running.pop(key, None))
        return True

    async def wait(self) -> None:
        """Wait until every run under way has ended."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel the runs under way (a run is atomic: nothing half-written is served)."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _index(self, catalog: Catalog, key: str) -> None:
        try:
            report = await self.client.index(catalog)
        except Exception as error:
            log.warning(
                "toolret serve: indexing corpus %s… inline failed (%s); trying again on a "
                "selection after %.0f s",
                key[:12],
                error,
                self.backoff.retry_in(key) or 0.0,
            )
            return
        log.info(
            "toolret serve: indexed corpus %s… inline (%d documents embedded)",
            key[:12],
            report.embedded,
        )
