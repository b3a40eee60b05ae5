"""``WorkerSettings`` for ``arq toolret.worker.WorkerSettings``, and what the worker holds.

Configuration comes from the same environment as the client (``toolret._settings``): Redis
from ``REDIS_URL``, the database from ``DATABASE_URL``, the embedder from ``TOOLRET_EMBEDDER``
and its variables. The store and the embedder are created in ``startup``, kept in ``ctx`` and
closed in ``shutdown``, in reverse order. Anything already in ``ctx`` when the worker starts
(``settings``, ``store``, ``embedder``, ``next_embedder``) is used as given and left open —
that is how tests and embedding applications supply their own.

Switching models: with ``TOOLRET_NEXT_EMBEDDER`` (``toolret._settings.next_settings``) the worker
holds a second embedder, ``ctx["next_embedder"]``, and indexes every catalog with both: the
configured catalogs at start-up and by cron, and any catalog an application asks for with one
model is then queued for the other. The application keeps serving with the current model until
``toolret status --ready`` says the next one is complete, then deploys with it
(docs/deployment.md).

Deploy trigger: ``startup`` loads the catalogs named in ``TOOLRET_CATALOGS`` and enqueues one
reindex job for each. It enqueues rather than indexes inline so the worker starts polling (and
answering its health check) at once, and so several replicas starting together run one job per
corpus. A catalog spec that cannot be loaded stops the worker: a deploy with a broken
configuration should fail where it is deployed.

Outages do not stop it. Once connected, the worker waits out Redis going away
(``toolret.worker._outage``) and a reindex job waits out Postgres; each logs one line when the
dependency goes and one when it is back. ``arq --check toolret.worker.WorkerSettings`` passes
while the worker's loop runs and reaches Redis (arq's health key, refreshed every
``health_check_interval`` seconds) and fails within arq's five connection tries when Redis
cannot be reached. A worker asked to stop during a Redis outage finishes when Redis is back or
its supervisor kills it; nothing is lost either way (its jobs run again).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from arq import cron, func
from arq.connections import RedisSettings
from arq.cron import CronJob
from arq.worker import Function

from toolret._settings import Settings, make_embedder, next_settings
from toolret.adapters._loading import load_catalog
from toolret.errors import ConfigurationError
from toolret.feedback._sender import CALLS_FUNCTION, FEEDBACK_FUNCTION
from toolret.indexing._queue import (
    QUEUE_NAME,
    REINDEX_FUNCTION,
    describe_redis,
    enqueue_reindex,
    redis_settings as redis_settings_from_url,
)
from toolret.store._vector_store import VectorStore
from toolret.worker._cron import maintain
from toolret.worker._feedback import record_calls, record_feedback
from toolret.worker._jobs import OUTAGE_TRIES, reindex, worker_embedders
from toolret.worker._outage import OUTAGE_ERRORS, Dependency, PatientRetry

__all__ = [
    "FEEDBACK_TIMEOUT",
    "JOB_TIMEOUT",
    "WorkerSettings",
    "shutdown",
    "startup",
    "worker_redis_settings",
]

log = logging.getLogger("toolret.worker")

_settings = Settings()
JOB_TIMEOUT = _settings.job_timeout
"""Seconds one reindex or maintenance run may take (``TOOLRET_JOB_TIMEOUT``, default 1800),
read when the worker is imported. arq keeps a running job's in-progress marker for the longest
job timeout plus 10 s, so a killed worker's job is picked up again that long after it started."""
FEEDBACK_TIMEOUT = min(60.0, JOB_TIMEOUT)
"""Seconds one feedback job may take: a minute, or less under a shorter ``JOB_TIMEOUT``, so a
short configured timeout shortens the in-progress marker too."""


def worker_redis_settings(redis_url: str) -> RedisSettings:
    """arq's settings for the worker's Redis: up to five tries a second apart at start-up
    (arq's), then, once connected, every command waits out an outage (``PatientRetry``)."""
    settings = redis_settings_from_url(redis_url)
    settings.retry = PatientRetry(Dependency("Redis", describe_redis(redis_url)))
    settings.retry_on_error = list(OUTAGE_ERRORS)
    return settings


async def startup(ctx: dict[str, Any]) -> None:
    """Create the embedder and the store, load the configured catalogs, enqueue their reindex."""
    _log_beside_arq()
    settings: Settings = ctx.setdefault("settings", Settings())
    owned: list[Any] = ctx.setdefault("owned", [])
    if "embedder" not in ctx:
        ctx["embedder"] = make_embedder(settings)
        owned.append(ctx["embedder"])
    if "next_embedder" not in ctx:
        following = next_settings(settings)
        ctx["next_embedder"] = None if following is None else make_embedder(following)
        if ctx["next_embedder"] is not None:
            owned.append(ctx["next_embedder"])
            log.info(
                "indexing with %s and, for the switch, %s",
                ctx["embedder"].model_id,
                ctx["next_embedder"].model_id,
            )
    if "store" not in ctx:
        if not settings.database_url:
            raise ConfigurationError(
                "the worker needs DATABASE_URL: the Postgres (with pgvector) the application reads"
            )
        # A pooled connection is tested before use: after a Postgres restart the first try
        # of a job must not be spent on a connection the old server closed.
        ctx["store"] = VectorStore.from_url(settings.database_url, pool_pre_ping=True)
        owned.append(ctx["store"])
    if "postgres" not in ctx:
        ctx["postgres"] = Dependency("Postgres", _describe_store(ctx["store"]))
    ctx["catalogs"] = [load_catalog(spec) for spec in settings.catalogs]
    for spec, catalog in zip(settings.catalogs, ctx["catalogs"], strict=True):
        for embedder in worker_embedders(ctx):
            queued = await enqueue_reindex(ctx["redis"], catalog, embedder)
            log.info(
                "deploy: %s (%d tools) for %s %s",
                spec,
                len(catalog),
                embedder.model_id,
                "queued" if queued else "already queued",
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
    """arq's settings for the toolret worker (``arq toolret.worker.WorkerSettings``).

    arq reads only attributes that name a ``Worker`` parameter and silently ignores the rest;
    tests/test_worker_settings.py checks that every attribute here is one it reads.
    """

    functions: ClassVar[list[Function]] = [
        func(
            reindex,
            name=REINDEX_FUNCTION,
            keep_result=0,
            max_tries=OUTAGE_TRIES,
            timeout=JOB_TIMEOUT,
        ),
        func(
            record_feedback,
            name=FEEDBACK_FUNCTION,
            keep_result=0,
            max_tries=3,
            timeout=FEEDBACK_TIMEOUT,
        ),
        func(
            record_calls,
            name=CALLS_FUNCTION,
            keep_result=0,
            max_tries=3,
            timeout=FEEDBACK_TIMEOUT,
        ),
    ]
    cron_jobs: ClassVar[list[CronJob]] = [
        cron(maintain, name="maintain", minute=17, unique=True, timeout=JOB_TIMEOUT)
    ]
    queue_name = QUEUE_NAME
    redis_settings: RedisSettings = worker_redis_settings(
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


def _log_beside_arq() -> None:
    """Under the ``arq`` command, write toolret's log lines where arq writes its own.

    arq configures a handler for its own loggers only, so without this the worker's info lines
    (a catalog indexed, a dependency back) would be dropped. An application that configured
    logging (any handler on the root or the ``toolret`` logger) keeps its own configuration.
    """
    ours, arq = logging.getLogger("toolret"), logging.getLogger("arq")
    if ours.handlers or logging.getLogger().handlers or not arq.handlers:
        return
    for handler in arq.handlers:
        ours.addHandler(handler)
    if ours.level == logging.NOTSET:
        ours.setLevel(logging.INFO)


def _describe_store(store: Any) -> str:
    engine = getattr(store, "engine", None)
    return "" if engine is None else engine.url.render_as_string(hide_password=True)
