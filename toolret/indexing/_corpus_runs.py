"""Background indexing runs, one per corpus at a time, spaced by a backoff.

Both places that index a corpus in the process that met it unserved use it: ``toolret serve``
with no worker (``toolret.service._inline``) and a client with no worker
(``toolret.indexing._unserved``). A run is atomic (nothing half-written is served), so closing
cancels what is under way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from toolret.indexing._asks import REASK_AFTER, REASK_AT_MOST
from toolret.indexing._backoff import Backoff

__all__ = ["CorpusRuns"]


class CorpusRuns:
    """The runs under way, by corpus hash; ``backoff`` spaces a corpus's runs."""

    def __init__(self, name: str, backoff: Backoff | None = None) -> None:
        self.name = name
        self.backoff = backoff or Backoff(REASK_AFTER, REASK_AT_MOST)
        self._running: dict[str, asyncio.Task[None]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self._running

    def start(self, key: str, run: Coroutine[Any, Any, None]) -> bool:
        """Run ``run`` in the background for corpus ``key`` unless a run for it is under way
        or the backoff says not yet (``run`` is then closed unstarted); True when it started."""
        if key in self._running or not self.backoff.due(key):
            run.close()
            return False
        task = asyncio.get_running_loop().create_task(run, name=f"{self.name}-{key[:12]}")
        self._running[key] = task
        task.add_done_callback(lambda _: self._running.pop(key, None))
        return True

    async def wait(self) -> None:
        """Wait until every run under way has ended."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel the runs under way."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
