"""``WorkerSettings`` for ``arq workers.WorkerSettings``, and the resources the worker holds.

Configuration comes from the same environment as the client (``toolret.settings``): Redis
from ``REDIS_URL``, the database from ``DATABASE_URL``, the embedder from ``GEMINI_API_KEY`` /
``AI_EMBEDDINGS_MODEL``. The store and the embedder are created in ``startup``, kept in
``ctx`` and closed in ``shutdown``, in reverse order. Anything already in ``ctx`` when the worker
starts (``settings``, ``store``, ``embedder``) is used as given and left open — that is how
tests and embedding applications supply their own.

Deploy trigger: ``startup`` loads the catalogs named in ``TOOLRET_CATALOGS`` and enqueues one
reindex job for each. It enqueues rather than indexes inline so the worker starts polling (and
answering its health check) at once, and so several replicas starting together run one job per
corpus. A catalog spec that cannot be loaded stops the worker: a deploy with a broken
configuration should fail where it is deployed.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from arq import cron, func
from arq.connections import RedisSettings
from arq.cron import CronJob
from arq.worker import Function

from toolret.adapters.loading import load_catalog
from toolret.errors import ConfigurationError
from toolret.feedback.sender import FEEDBACK_FUNCTION
from toolret.queue import (
    QUEUE_NAME,
    REINDEX_FUNCTION,
    enqueue_reindex,
    redis_settings as redis_settings_from_url,
)
from toolret.settings import Settings, make_embedder
from toolret.store.vector_store import VectorStore
from toolret.worker.cron import maintain
from toolret.worker.feedback import record_feedback
from toolret.worker.jobs import MAX_TRIES, reindex

__all__ = ["FEEDBACK_TIMEOUT", "JOB_TIMEOUT", "WorkerSettings", "shutdown", "startup"]

log = logging.getLogger("toolret.worker")

_settings = Settings()
JOB_TIMEOUT = _settings.job_timeout
"""Seconds one reindex or maintenance run may take (``TOOLRET_JOB_TIMEOUT``, default 1800),
read when the worker is imported. arq keeps a running job's in-progress marker for the longest
job timeout plus 10 s, so a killed worker's job is picked up again that long after it started."""
FEEDBACK_TIMEOUT = min(60.0, JOB_TIMEOUT)
"""Seconds one feedback job may take: a minute, or less under a shorter ``JOB_TIMEOUT``, so a
short configured timeout shortens the in-progress marker too."""


async def startup(ctx: dict[str, Any]) -> None:
    """Create the embedder and the store, load the configured catalogs, enqueue their reindex."""
    settings: Settings = ctx.setdefault("settings", Settings())
    owned: list[Any] = ctx.setdefault("owned", [])
    if "embedder" not in ctx:
        ctx["embedder"] = make_embedder(settings)
        owned.append(ctx["embedder"])
    if "store" not in ctx:
        if not settings.database_url:
            raise ConfigurationError(
                "the worker needs DATABASE_URL: the Postgres (with pgvector) the application reads"
            )
        ctx["store"] = VectorStore.from_url(settings.database_url)
        owned.append(ctx["store"])
    ctx["catalogs"] = [load_catalog(spec) for spec in settings.catalogs]
    for spec, catalog in zip(settings.catalogs, ctx["catalogs"], strict=True):
        queued = await enqueue_reindex(ctx["redis"], catalog, ctx["embedder"])
        log.info(
            "deploy: %s (%d tools) %s", spec, len(catalog), "queued" if queued else "already queued"
        )


async def shutdown(ctx: dict[str, Any]) -> None:
    """Close what ``startup`` created, newest first; leave what the caller supplied."""
    owned: list[Any] = ctx.get("owned", [])
    while owned:
        resource = owned.pop()
        try:
            await resource.aclose()
        except Exception:
            log.exception("closing %r failed", resource)


class WorkerSettings:
    """arq's settings for the toolret worker (``arq workers.WorkerSettings``).

    arq reads only attributes that name a ``Worker`` parameter and silently ignores the rest;
    tests/test_worker_settings.py checks that every attribute here is one it reads.
    """

    functions: ClassVar[list[Function]] = [
        func(
            reindex,
            name=REINDEX_FUNCTION,
            keep_result=0,
            max_tries=MAX_TRIES,
            timeout=JOB_TIMEOUT,
        ),
        func(
            record_feedback,
            name=FEEDBACK_FUNCTION,
            keep_result=0,
            max_tries=3,
            timeout=FEEDBACK_TIMEOUT,
        ),
    ]
    cron_jobs: ClassVar[list[CronJob]] = [
        cron(maintain, name="maintain", minute=17, unique=True, timeout=JOB_TIMEOUT)
    ]
    queue_name = QUEUE_NAME
    redis_settings: RedisSettings = redis_settings_from_url(
        _settings.redis_url or "redis://localhost:6379"
    )
    on_startup = startup
    on_shutdown = shutdown
    health_check_interval = 10
    max_jobs = 4
    # No results are kept: arq refuses a job id while its result exists, and a corpus whose
    # reindex failed (even after its last retry, which arq records with the worker's setting,
    # not the function's) must be askable again at once.
    keep_result = 0
