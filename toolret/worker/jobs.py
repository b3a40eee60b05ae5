"""The reindex job: embed what this model has not embedded yet, then publish the corpus.

The catalog travels in the job (``toolret.payload``), so any service can ask. The job is
idempotent and safe to run twice at once: ``index_catalog`` holds a Postgres advisory lock on
(model, corpus hash), commits each batch of vectors as it goes and publishes the corpus in one
transaction at the end. A run that dies midway leaves the batches it wrote (they are reused) and
no published corpus; arq runs the job again and it picks up where it stopped.
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import timedelta
from typing import Any

from arq import Retry

from toolret.errors import (
    CatalogSourceError,
    ConfigurationError,
    EmbedderError,
    EmbedderUnavailableError,
    StoreError,
)
from toolret.indexing import index_catalog
from toolret.payload import from_payload
from toolret.profile import corpus_hash as corpus_hash_of

__all__ = ["MAX_TRIES", "reindex", "retry_delay"]

log = logging.getLogger("toolret.worker")

MAX_TRIES = 6
"""Runs of one job before arq gives up on it (the first run and five retries)."""
BATCH_SIZE = 128
"""Documents embedded and committed together; ``ctx["batch_size"]`` overrides it. Each batch's
model calls end in a part-filled chunk: at 128 a quarter as many as at 32
(as ``toolret.indexing.BATCH_SIZE``)."""
RETRY_BASE = timedelta(seconds=5)
RETRY_CAP = timedelta(minutes=5)


def retry_delay(
    job_try: int, base: timedelta = RETRY_BASE, cap: timedelta = RETRY_CAP
) -> timedelta:
    """Exponential backoff: ``base`` after the first failed run, doubling, at most ``cap``."""
    delay: timedelta = min(base * 2 ** max(job_try - 1, 0), cap)
    return delay


async def reindex(
    ctx: dict[str, Any], payload: dict[str, Any], *, model_id: str, corpus_hash: str
) -> dict[str, Any]:
    """Index the catalog in ``payload`` with the worker's embedder; return the report.

    ``model_id`` and ``corpus_hash`` are what the asker computed: a worker configured with a
    different model, or running a toolret that hashes documents differently, fails the job
    with a message saying so rather than indexing something nobody will ask for.
    Embedder and database errors are retried with exponential backoff (``ctx["retry_base"]``
    overrides the first delay); an unavailable embedder or a bad payload fails at once.
    """
    store, embedder = ctx["store"], ctx["embedder"]
    if embedder.model_id != model_id:
        raise ConfigurationError(
            f"reindex asked for model {model_id!r} but this worker embeds with "
            f"{embedder.model_id!r}; give the worker the application's embedding settings"
        )
    catalog = from_payload(payload)
    actual = corpus_hash_of(catalog, embedder)
    if actual != corpus_hash:
        raise CatalogSourceError(
            f"reindex payload hashes to {actual[:12]}…, not {corpus_hash[:12]}…: the worker and "
            "the application run different toolret versions"
        )
    try:
        report = await index_catalog(
            store, embedder, catalog, batch_size=ctx.get("batch_size", BATCH_SIZE)
        )
    except EmbedderUnavailableError:
        raise
    except (EmbedderError, StoreError) as error:
        job_try: int = ctx.get("job_try", 1)
        base: timedelta = ctx.get("retry_base", RETRY_BASE)
        delay = retry_delay(job_try, base)
        log.warning(
            "reindex %s@%s try %d failed (%s); retrying in %.1fs",
            model_id,
            corpus_hash[:12],
            job_try,
            error,
            delay.total_seconds(),
        )
        raise Retry(defer=delay) from error
    log.info(
        "reindexed %s@%s: %d documents, %d embedded, %d reused in %.2fs",
        model_id,
        corpus_hash[:12],
        report.documents,
        report.embedded,
        report.reused,
        report.seconds,
    )
    return dataclasses.asdict(report)
