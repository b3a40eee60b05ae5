"""The maintenance cron: re-check the configured catalogs, then collect garbage.

Re-checking runs ``index_catalog`` on every catalog named in ``TOOLRET_CATALOGS``, with every
embedder the worker holds (the next one too, while switching models): it embeds
anything missing (a lost startup job, a database restored from a backup) and, above all, records
that the corpus is still in use, so garbage collection keeps its vectors however long the
deployment runs. Garbage collection then removes vectors that no corpus seen within the grace
period references, feedback past its retention, and counts of tools used together that have
faded (``toolret.store._companion_sql``). If any re-check failed, collection waits for the next
run: a catalog whose use was not recorded must not lose its vectors.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from toolret.errors import ToolretError
from toolret.feedback._companion_store import CompanionStore
from toolret.feedback._store import FeedbackStore
from toolret.indexing._run import index_catalog
from toolret.worker._jobs import worker_embedders

__all__ = ["maintain"]

log = logging.getLogger("toolret.worker")


async def maintain(ctx: dict[str, Any]) -> dict[str, Any]:
    """Re-check every configured catalog, then garbage-collect; return what was done."""
    store = ctx["store"]
    failed = 0
    embedded = 0
    for catalog in ctx["catalogs"]:
        for embedder in worker_embedders(ctx):
            try:
                report = await index_catalog(store, embedder, catalog)
            except ToolretError as error:
                failed += 1
                log.warning("re-check of %r for %s failed: %s", catalog, embedder.model_id, error)
            else:
                embedded += report.embedded
    if failed:
        log.warning("garbage collection skipped: %d catalog re-check(s) failed", failed)
        return {"catalogs": len(ctx["catalogs"]), "failed": failed, "embedded": embedded}
    grace = timedelta(days=ctx["settings"].gc_grace_days)
    collected = await store.gc(grace=grace)
    log.info("garbage collection with a %s grace period: %s", grace, collected)
    retention = timedelta(days=ctx["settings"].feedback_retention_days)
    turns, learned = await FeedbackStore(store).gc(retention)
    faded = await CompanionStore(store).gc()
    log.info(
        "feedback older than %s: %d turns, %d orphaned learned vectors; %d faded companion counts",
        retention,
        turns,
        learned,
        faded,
    )
    return {
        "catalogs": len(ctx["catalogs"]),
        "failed": 0,
        "embedded": embedded,
        "gc": collected,
        "feedback_gc": {"turns": turns, "learned": learned, "companions": faded},
    }
