"""Ask the worker to index a catalog, through arq's Redis queue.

One job per (embedding model, corpus hash): the job id is ``reindex:<model id>:<corpus hash>``,
so asking again while a job for that corpus is queued, deferred for a retry or running is a
no-op. The worker keeps no result for this job (``keep_result=0``), so once a job has finished
— published, or failed for good — the same corpus can be asked for again; a changed catalog has
a new corpus hash, hence a new job, anyway.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from urllib.parse import urlparse

from toolret._catalog import Catalog
from toolret._extras import require
from toolret._profile import corpus_hash as corpus_hash_of
from toolret.embedders._base import Embedder
from toolret.errors import ClientStateError, ConfigurationError, QueueError
from toolret.indexing._payload import to_payload

require("worker", "arq", "redis", purpose="asking the worker to reindex through Redis")

from arq.connections import ArqRedis, RedisSettings, create_pool  # noqa: E402
from redis.exceptions import RedisError  # noqa: E402

__all__ = [
    "QUEUE_NAME",
    "REINDEX_FUNCTION",
    "QueueError",
    "ReindexQueue",
    "describe_redis",
    "enqueue_reindex",
    "redis_settings",
    "reindex_job_id",
]

QUEUE_NAME = "toolret:queue"
"""The arq queue the toolret worker reads: its own, so an application's arq jobs never mix in."""
REINDEX_FUNCTION = "reindex"
"""The name the worker registers the reindex job under."""
REDIS_FIX = "check REDIS_URL (or TOOLRET_REDIS_URL) and that Redis runs there"


def reindex_job_id(model_id: str, corpus_hash: str) -> str:
    """The job id that makes one job per (model, corpus hash)."""
    return f"{REINDEX_FUNCTION}:{model_id}:{corpus_hash}"


def redis_settings(redis_url: str, *, conn_retries: int = 5) -> RedisSettings:
    """arq's connection settings for a ``redis://``, ``rediss://`` or ``unix://`` URL."""
    try:
        settings = RedisSettings.from_dsn(redis_url)
    except (RuntimeError, ValueError) as error:
        raise ConfigurationError(
            f"REDIS_URL must be redis://host:port/db, rediss://… or unix:///path ({error})"
        ) from error
    settings.conn_retries = conn_retries
    return settings


async def enqueue_reindex(
    redis: ArqRedis, catalog: Catalog, embedder: Embedder, *, queue_name: str | None = None
) -> bool:
    """Queue the reindex job for ``catalog`` and ``embedder``'s model on an open arq pool.

    True if a new job was queued, False if one for this corpus is already queued or running.
    ``queue_name`` defaults to the pool's default queue.
    """
    model_id = embedder.model_id
    corpus_hash = corpus_hash_of(catalog, embedder)
    job = await redis.enqueue_job(
        REINDEX_FUNCTION,
        to_payload(catalog),
        model_id=model_id,
        corpus_hash=corpus_hash,
        _job_id=reindex_job_id(model_id, corpus_hash),
        _queue_name=queue_name,
    )
    return job is not None


class ReindexQueue:
    """Enqueues reindex jobs; used by the client's ``not_indexed`` path and ``toolret reindex``.

    The connection opens on the first ``enqueue`` and fails fast (no connection retries): the
    caller is usually serving a request and must not wait on a missing Redis.
    """

    def __init__(self, redis_url: str, *, queue_name: str = QUEUE_NAME) -> None:
        self._settings = redis_settings(redis_url, conn_retries=0)
        self._where = describe_redis(redis_url)
        self.queue_name = queue_name
        self._pool: ArqRedis | None = None
        self._opening = asyncio.Lock()
        self._closed = False

    async def enqueue(self, catalog: Catalog, embedder: Embedder) -> bool:
        """Ask for ``catalog`` to be indexed with ``embedder``'s model.

        True if a new job was queued; False if a job for this corpus is already queued or
        running. Raises ``QueueError`` if Redis cannot be reached.
        """
        pool = await self._connect()
        try:
            return await enqueue_reindex(pool, catalog, embedder, queue_name=self.queue_name)
        except (RedisError, OSError) as error:
            raise QueueError(
                f"cannot enqueue a reindex on {self._where} ({error}): {REDIS_FIX}"
            ) from error

    async def aclose(self) -> None:
        """Close the connection; the queue cannot be used afterwards."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose(close_connection_pool=True)

    async def __aenter__(self) -> ReindexQueue:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _connect(self) -> ArqRedis:
        if self._closed:
            raise ClientStateError("this ReindexQueue is closed; create a new one")
        async with self._opening:
            if self._pool is None:
                try:
                    self._pool = await create_pool(self._settings)
                except (TimeoutError, RedisError, OSError) as error:
                    raise QueueError(
                        f"cannot reach Redis at {self._where} ({error}): {REDIS_FIX}"
                    ) from error
            return self._pool

    def __repr__(self) -> str:
        return f"ReindexQueue({self._where!r}, queue_name={self.queue_name!r})"


def describe_redis(redis_url: str) -> str:
    """The URL without credentials, for messages and logs."""
    parts = urlparse(redis_url)
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    return f"{parts.scheme}://{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path}"
