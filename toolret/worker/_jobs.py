"""The reindex job: embed what this model has not embedded yet, then publish the corpus.

The catalog travels in the job (``toolret.indexing._payload``), so any service can ask. The job is
idempotent and safe to run twice at once: ``index_catalog`` holds a Postgres advisory lock on
(model, corpus hash), commits each batch of vectors as it goes and publishes the corpus in one
transaction at the end. A run that dies midway leaves the batches it wrote (they are reused) and
no published corpus; arq runs the job again and it picks up where it stopped.

A worker switching models holds two embedders (``ctx["next_embedder"]``): a job runs with the
one whose model it names, and a corpus it publishes is then queued for the other, so every
catalog an application asks for is ready under both when the deployment switches.

A database that cannot be reached is an outage, not a failure of the job: the job is retried
(at most a minute apart) for as long as Postgres is away and never gives up for it. Any other
failure gives up once the job has run ``MAX_TRIES`` times (runs that waited out an outage
count as runs). Each outage is logged once when it starts and once when it ends.
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import timedelta
from typing import Any

from arq import Retry

from toolret._profile import corpus_hash as corpus_hash_of
from toolret.embedders._base import Embedder
from toolret.errors import (
    CatalogSourceError,
    ConfigurationError,
    EmbedderError,
    EmbedderUnavailableError,
    StoreError,
    StoreUnavailableError,
)
from toolret.indexing._payload import from_payload
from toolret.indexing._queue import enqueue_reindex
from toolret.indexing._run import index_catalog
from toolret.worker._outage import Dependency

__all__ = ["MAX_TRIES", "OUTAGE_TRIES", "reindex", "retry_delay", "worker_embedders"]

log = logging.getLogger("toolret.worker")

MAX_TRIES = 6
"""Runs after which a job that failed for any reason but an unreachable database gives up
(the first run and five retries)."""
OUTAGE_TRIES = 100_000
"""arq's bound on the runs of one reindex job: past any outage (two months a minute apart)."""
BATCH_SIZE = 128
"""Documents embedded and committed together; ``ctx["batch_size"]`` overrides it. Each batch's
model calls end in a part-filled chunk: at 128 a quarter as many as at 32
(as ``toolret.indexing._run.BATCH_SIZE``)."""
RETRY_BASE = timedelta(seconds=5)
RETRY_CAP = timedelta(minutes=5)
OUTAGE_CAP = timedelta(minutes=1)
"""The longest wait between tries while the database is unreachable: once it is back, a
waiting job runs within a minute."""


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
    overrides the first delay, ``ctx["outage_cap"]`` the longest wait for an unreachable
    database); an unavailable embedder or a bad payload fails at once.
    """
    store, embedders = ctx["store"], worker_embedders(ctx)
    embedder = next((e for e in embedders if e.model_id == model_id), None)
    if embedder is None:
        held = " and ".join(repr(e.model_id) for e in embedders)
        raise ConfigurationError(
            f"reindex asked for model {model_id!r} but this worker embeds with {held}; give "
            "the worker the application's embedding settings (TOOLRET_EMBEDDER, or "
            "TOOLRET_NEXT_EMBEDDER while switching)"
        )
    catalog = from_payload(payload)
    actual = corpus_hash_of(catalog, embedder)
    if actual != corpus_hash:
        raise CatalogSourceError(
            f"reindex payload hashes to {actual[:12]}…, not {corpus_hash[:12]}…: the worker and "
            "the application run different toolret versions"
        )
    postgres: Dependency = ctx.get("postgres") or Dependency("Postgres")
    job_try: int = ctx.get("job_try", 1)
    try:
        report = await index_catalog(
            store, embedder, catalog, batch_size=ctx.get("batch_size", BATCH_SIZE)
        )
    except EmbedderUnavailableError:
        raise
    except (EmbedderError, StoreError) as error:
        base: timedelta = ctx.get("retry_base", RETRY_BASE)
        if isinstance(error, StoreUnavailableError):
            postgres.down(error)
            delay = retry_delay(job_try, base, ctx.get("outage_cap", OUTAGE_CAP))
            raise Retry(defer=delay) from error
        if isinstance(error, StoreError):
            postgres.up()  # it answered, and refused
        if job_try >= MAX_TRIES:
            raise
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
    postgres.up()
    if report.published and "redis" in ctx:
        for other in embedders:
            if other is not embedder and not await store.is_published(
                other.model_id, corpus_hash_of(catalog, other)
            ):
                await enqueue_reindex(ctx["redis"], catalog, other)
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


def worker_embedders(ctx: dict[str, Any]) -> list[Embedder]:
    """The embedders the worker indexes with: its own, then the next one while switching."""
    return [e for e in (ctx["embedder"], ctx.get("next_embedder")) if e is not None]
