"""Asking the worker to index a corpus the request path found unserved, without waiting.

A selection that meets a corpus not published yet falls open and asks the worker (through the
Redis queue, ``toolret.indexing._queue``) in the background; it asks again for the same corpus only
after
a backoff (``REASK_AFTER``, doubling up to ``REASK_AT_MOST``), reset once the corpus is served.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from typing import TYPE_CHECKING

from toolret._catalog import Catalog
from toolret.embedders._base import Embedder
from toolret.indexing._backoff import Backoff

if TYPE_CHECKING:  # imported where used: Redis and arq are optional
    from toolret.indexing._queue import ReindexQueue

__all__ = ["ENQUEUE_GRACE", "ENQUEUE_TIMEOUT", "REASK_AFTER", "REASK_AT_MOST", "WorkerAsks"]

log = logging.getLogger("toolret.selection")

ENQUEUE_GRACE = 1.0
"""Seconds ``aclose`` lets in-flight reindex requests finish before cancelling them."""
ENQUEUE_TIMEOUT = 5.0
"""Seconds one reindex request may take (a Redis that accepts connections but never answers)."""
REASK_AFTER = 5.0
"""Seconds before the client asks the worker again to index a corpus that is still not served;
the wait doubles after each ask, up to ``REASK_AT_MOST``."""
REASK_AT_MOST = 300.0
"""The longest wait between two asks for the same corpus."""


class WorkerAsks:
    """The reindex requests of one client: sent in the background, spaced per corpus."""

    def __init__(self, redis_url: str | None, backoff: Backoff | None = None) -> None:
        self.redis_url = redis_url
        self.backoff = backoff or Backoff(REASK_AFTER, REASK_AT_MOST)
        self._queue: ReindexQueue | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    def served(self, corpus_hash: str) -> None:
        """The corpus is served: the next time it is not, ask at once."""
        self.backoff.reset(corpus_hash)

    def ask(self, catalog: Catalog, embedder: Embedder, corpus_hash: str) -> None:
        """Ask the worker to index this corpus, without waiting; again after the backoff if
        the corpus is still not served then."""
        if self.redis_url is None or self._closed or not self.backoff.due(corpus_hash):
            return
        if self._queue is None:
            try:
                module = importlib.import_module("toolret.indexing._queue")
                self._queue = module.ReindexQueue(self.redis_url)
            except Exception as error:
                log.warning("toolret: cannot ask the worker to index: %s", error)
                return
        task = asyncio.get_running_loop().create_task(
            self._enqueue(self._queue, catalog, embedder, corpus_hash),
            name=f"toolret-reindex-{corpus_hash[:12]}",
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        """Wait until every pending request is sent (or given up on: Redis down)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Let pending requests finish (briefly, ``ENQUEUE_GRACE``), then close the queue."""
        self._closed = True
        tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=ENQUEUE_GRACE)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._queue is not None:
            await self._queue.aclose()

    async def _enqueue(
        self, queue: ReindexQueue, catalog: Catalog, embedder: Embedder, corpus_hash: str
    ) -> None:
        try:
            async with asyncio.timeout(ENQUEUE_TIMEOUT):
                queued = await queue.enqueue(catalog, embedder)
        except Exception as error:
            log.warning(
                "toolret: asking the worker to index %s… failed (%r); asking again in %.0f s "
                "if it is still not served",
                corpus_hash[:12],
                error,
                self.backoff.retry_in(corpus_hash) or 0.0,
            )
            return
        log.info(
            "toolret: %s the worker to index corpus %s…",
            "asked" if queued else "already asked",
            corpus_hash[:12],
        )
