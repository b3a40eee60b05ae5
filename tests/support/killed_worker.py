"""A worker that stalls midway through a reindex, for tests that SIGKILL it.

``arq tests.support.killed_worker.STALLING_SETTINGS`` runs ``workers.WorkerSettings`` with an
embedder
that embeds a few batches, touches a marker file and never returns; the test kills the process
there. ``TOOLRET_JOB_TIMEOUT`` (``KILLED_JOB_TIMEOUT``) keeps arq's in-progress marker short, so
the killed job is taken again, for real, within the test.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arq.connections import create_pool
from arq.constants import in_progress_key_prefix

from tests.support.embedders import CountingEmbedder
from toolret.embedders._base import Vectors
from toolret.indexing._queue import redis_settings
from workers import WorkerSettings, startup

__all__ = ["KILLED_JOB_TIMEOUT", "STALLING_SETTINGS", "StallingEmbedder", "marker_ttl"]


class StallingEmbedder(CountingEmbedder):
    """Embeds ``after`` batches, then touches ``marker`` and never returns."""

    def __init__(self, after: int, marker: Path) -> None:
        super().__init__()
        self.after = after
        self.marker = marker
        self.calls = 0

    async def _stall(self) -> None:
        self.calls += 1
        if self.calls > self.after:
            self.marker.touch()
            await asyncio.Event().wait()

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        await self._stall()
        return await super().embed_documents(texts)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        await self._stall()
        return await super().embed_queries(texts)


async def _stalling_startup(ctx: dict[str, Any]) -> None:
    ctx["embedder"] = StallingEmbedder(
        int(os.environ["TOOLRET_TEST_STALL_AFTER"]), Path(os.environ["TOOLRET_TEST_STALL_MARKER"])
    )
    ctx["batch_size"] = 8
    await startup(ctx)


KILLED_JOB_TIMEOUT = 8
"""``TOOLRET_JOB_TIMEOUT`` for a worker the test kills: long enough for its first batches, short
enough that arq's in-progress marker (job timeout + 10 s) expires within the test."""


async def marker_ttl(redis_url: str, job_id: str) -> float:
    """Seconds arq's in-progress marker for ``job_id`` has left (0 if there is none), after
    checking it was set for at most ``KILLED_JOB_TIMEOUT`` + 10 s."""
    pool = await create_pool(redis_settings(redis_url))
    try:
        left: int = await pool.pttl(in_progress_key_prefix + job_id)
    finally:
        await pool.aclose()
    assert left <= (KILLED_JOB_TIMEOUT + 10) * 1000, "the configured job timeout set the marker"
    return max(left, 0) / 1000


STALLING_SETTINGS = {
    **{name: value for name, value in vars(WorkerSettings).items() if not name.startswith("_")},
    "on_startup": _stalling_startup,
    "cron_jobs": [],  # at minute 17 it would queue the maintenance job beside the stalled one
}
"""``workers.WorkerSettings`` with an embedder that stalls midway, for ``arq`` in a subprocess."""
