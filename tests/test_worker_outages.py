"""The worker outlives its dependencies: Redis and Postgres go away and come back, and the same
worker process goes on indexing, with one log line per change and no traceback.

The Redis test runs the deployed command, ``arq toolret.worker.WorkerSettings``, in a
subprocess against a Redis of the test's own, which it stops for longer than arq's own
connection retries (five, a second apart) would last. The Postgres test stops a server of its
own under a worker whose job keeps failing to reach it, for more tries than ``MAX_TRIES``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from arq.connections import RedisSettings
from arq.worker import Worker

from tests.support.embedders import CountingEmbedder
from tests.support.fixtures_pg import PgServer
from tests.support.fixtures_redis import PrivateRedis
from tests.support.tools import crm_catalog
from toolret import Catalog, Settings
from toolret.errors import StoreUnavailableError
from toolret.indexing._queue import QUEUE_NAME, ReindexQueue
from toolret.store._vector_store import VectorStore
from toolret.worker._jobs import MAX_TRIES

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 120.0
HEALTH_KEY = f"{QUEUE_NAME}:health-check"


def other_catalog(addition: str = " Tasks show up in the assignee's inbox.") -> Catalog:
    """A catalog the worker has not seen: the CRM tools with one description changed."""
    from tests.test_worker import edited

    return edited(crm_catalog(), "create_task", addition)


async def _published(store: VectorStore, catalog: Catalog) -> bool:
    embedder = CountingEmbedder()
    corpus_hash = catalog.corpus_hash(embedder.model_id, embedder.example_role)
    return await store.is_published(embedder.model_id, corpus_hash)


async def _until(condition: Callable[[], Any], what: str, deadline: float = DEADLINE) -> None:
    """Poll ``condition`` (sync or async) until it holds; fail naming ``what`` after
    ``deadline`` seconds."""
    try:
        async with asyncio.timeout(deadline):
            while True:
                result = condition()
                if asyncio.iscoroutine(result):
                    result = await result
                if result:
                    return
                await asyncio.sleep(0.05)  # polling a condition with a deadline
    except TimeoutError:
        pytest.fail(f"waited {deadline:.0f} s for {what}")


@dataclass
class WorkerProcess:
    """``arq toolret.worker.WorkerSettings`` in a subprocess, its stderr collected by line."""

    process: asyncio.subprocess.Process
    lines: list[str] = field(default_factory=list)

    def said(self, pattern: str) -> list[str]:
        return [line for line in self.lines if re.search(pattern, line)]

    def alive(self) -> bool:
        if self.process.returncode is not None:
            pytest.fail(f"the worker exited ({self.process.returncode}):\n{self.log()}")
        return True

    def log(self) -> str:
        return "\n".join(self.lines[-60:])


@contextlib.asynccontextmanager
async def arq_worker(environment: dict[str, str]) -> AsyncIterator[WorkerProcess]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arq",
        "toolret.worker.WorkerSettings",
        cwd=REPO,
        env=environment,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    running = WorkerProcess(process)

    async def collect() -> None:
        assert process.stderr is not None
        async for line in process.stderr:
            running.lines.append(line.decode(errors="replace").rstrip())

    reader = asyncio.create_task(collect())
    try:
        yield running
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGKILL)
        await process.wait()
        await reader


async def _arq_check(environment: dict[str, str]) -> int:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arq",
        "--check",
        "toolret.worker.WorkerSettings",
        cwd=REPO,
        env=environment,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(DEADLINE):
        return await process.wait()


def _plain_redis(url: str) -> aioredis.Redis:
    """A client with no retries of its own, for the test's look at Redis."""
    settings = RedisSettings.from_dsn(url)
    return aioredis.Redis(unix_socket_path=settings.unix_socket_path, socket_connect_timeout=1)


async def test_a_redis_outage_longer_than_arqs_retries_leaves_the_same_worker_indexing(
    private_redis: PrivateRedis, database_url: str, store: VectorStore
) -> None:
    private_redis.start()
    environment = {key: value for key, value in os.environ.items() if "GEMINI" not in key} | {
        "TOOLRET_REDIS_URL": private_redis.url,
        "TOOLRET_DATABASE_URL": database_url,
        "TOOLRET_CATALOGS": "",
    }
    arq_retries = RedisSettings()  # arq's own: how long it would wait for Redis by itself
    outage = 1.5 * arq_retries.conn_retries * arq_retries.conn_retry_delay
    async with arq_worker(environment) as running:
        probe = _plain_redis(private_redis.url)
        try:
            await _until(lambda: running.alive() and probe.exists(HEALTH_KEY), "the health key")
        finally:
            await probe.aclose()
        assert await _arq_check(environment) == 0

        private_redis.stop()
        await _until(lambda: running.alive() and running.said("Redis .*unreachable"), "the log")
        stopped = time.monotonic()
        assert await _arq_check(environment) == 1, "a worker that cannot reach Redis is unhealthy"
        while time.monotonic() - stopped < outage:  # the outage itself, watched throughout
            running.alive()
            await asyncio.sleep(0.1)
        private_redis.start()
        await _until(lambda: running.alive() and running.said("Redis reachable again"), "Redis")

        catalog = other_catalog()
        async with ReindexQueue(private_redis.url) as queue:  # the restarted Redis is empty
            assert await queue.enqueue(catalog, CountingEmbedder())
        # The job's last line, not the publication: the job builds the index after publishing.
        job_done = r"reindexed .*: \d+ documents"
        await _until(lambda: running.alive() and running.said(job_done), "the new catalog's job")
        assert await _published(store, catalog)
        probe = _plain_redis(private_redis.url)
        try:
            await _until(lambda: probe.exists(HEALTH_KEY), "the health key after the outage")
        finally:
            await probe.aclose()
        assert await _arq_check(environment) == 0

    assert len(running.said("Redis .*unreachable")) == 1, running.log()
    assert len(running.said("Redis reachable again")) == 1, running.log()
    assert not running.said("Traceback"), running.log()


async def test_a_postgres_outage_is_waited_out_past_max_tries_and_costs_no_try_after(
    private_pg: Callable[[], PgServer],
    redis_url: str,
    worker: Callable[..., Worker],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Postgres restart between jobs costs the next job no try (no connection the old
    server closed is used); while Postgres is down a job is retried past MAX_TRIES without
    failing, and publishes once it is back."""
    caplog.set_level(logging.INFO, logger="toolret.worker")
    server = private_pg()
    embedder = CountingEmbedder()
    ctx: dict[str, Any] = {
        "embedder": embedder,
        "settings": Settings(TOOLRET_DATABASE_URL=server.url(), TOOLRET_CATALOGS=[]),
        "retry_base": timedelta(milliseconds=5),
        "outage_cap": timedelta(milliseconds=50),
    }
    run = worker(burst=False, poll_delay=0.01, ctx=ctx)
    task = asyncio.create_task(run.async_run())
    first, second, third = crm_catalog(), other_catalog(), other_catalog(" And a reminder.")
    try:
        await _until(lambda: "postgres" in run.ctx, "the worker's startup")
        store: VectorStore = run.ctx["store"]
        async with ReindexQueue(redis_url) as queue:
            await queue.enqueue(first, embedder)
            # The job's end, not the corpus's publication: the job still builds the index
            # after publishing, and a restart then would cost it a try of its own.
            await _until(lambda: run.jobs_complete == 1, "the first job to finish")
            assert await _published(store, first)

            await asyncio.to_thread(server.stop)  # a restart while the worker is idle
            await asyncio.to_thread(server.start)
            await queue.enqueue(second, embedder)
            await _until(lambda: run.jobs_complete == 2, "the second job to finish")
            assert await _published(store, second)
            assert run.jobs_retried == 0, "a try was spent on a connection the old server closed"

            await asyncio.to_thread(server.stop)  # an outage while a job waits
            await queue.enqueue(third, embedder)
            await _until(lambda: run.jobs_retried > MAX_TRIES, "retries past MAX_TRIES")
            await asyncio.to_thread(server.start)
            # The job's end again: publication comes before the index is built, and the line
            # that says Postgres is back is written when the job returns.
            await _until(lambda: run.jobs_complete == 3, "the third job to finish")
            assert await _published(store, third)
        assert run.jobs_failed == 0
    finally:
        await run.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    worker_lines = [r for r in caplog.records if r.name == "toolret.worker"]
    down = [r for r in worker_lines if "unreachable" in r.getMessage()]
    back = [r for r in worker_lines if "reachable again" in r.getMessage()]
    assert (len(down), len(back)) == (1, 1), [r.getMessage() for r in worker_lines]
    assert not [r for r in worker_lines if r.exc_info], "no traceback per try"


async def test_feedback_waits_out_an_unreachable_database_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The feedback job is retried (arq's ``Retry``) while Postgres cannot be reached; the
    outage is logged once however many turns arrive."""
    from arq import Retry

    from tests.test_feedback import _feedback
    from toolret.worker._feedback import record_feedback
    from toolret.worker._outage import Dependency

    nowhere = VectorStore.from_url(f"postgresql://toolret@/toolret?host={tmp_path}&port=5432")
    ctx: dict[str, Any] = {"store": nowhere, "postgres": Dependency("Postgres")}
    try:
        for _ in range(3):
            with pytest.raises(Retry) as retried:
                await record_feedback(ctx, _feedback().to_payload())
            assert isinstance(retried.value.__cause__, StoreUnavailableError)
    finally:
        await nowhere.aclose()
    down = [r for r in caplog.records if "Postgres unreachable" in r.getMessage()]
    assert len(down) == 1
    assert down[0].exc_info is None
