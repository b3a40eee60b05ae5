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

import logging
from typing import TYPE_CHECKING

from toolret._profile import corpus_hash
from toolret.indexing._backoff import Backoff
from toolret.indexing._corpus_runs import CorpusRuns

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["InlineIndexing"]

log = logging.getLogger("toolret.serve")


class InlineIndexing:
    """The background indexing runs of one service, one per corpus at a time."""

    def __init__(self, client: ToolRetrievalClient, backoff: Backoff | None = None) -> None:
        self.client = client
        self._runs = CorpusRuns("toolret-inline-index", backoff)
        self.backoff = self._runs.backoff

    def ask(self, catalog: Catalog) -> bool:
        """Index ``catalog``'s corpus in the background unless a run for it is under way or
        the backoff says not yet; True when a run started."""
        whole = catalog.whole
        key = corpus_hash(whole, self.client.embedder)
        return self._runs.start(key, self._index(whole, key))

    async def wait(self) -> None:
        """Wait until every run under way has ended."""
        await self._runs.wait()

    async def aclose(self) -> None:
        """Cancel the runs under way (a run is atomic: nothing half-written is served)."""
        await self._runs.aclose()

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
