"""``workers.WorkerSettings``: arq reads every attribute, and ``arq --check`` works."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arq.connections import create_pool
from arq.worker import Worker, create_worker

from tests.support.embedders import CountingEmbedder
from toolret import Settings
from toolret.indexing._queue import QUEUE_NAME, REINDEX_FUNCTION, redis_settings
from toolret.store._vector_store import VectorStore
from toolret.worker._cron import maintain
from toolret.worker._jobs import OUTAGE_TRIES, reindex
from toolret.worker._settings import FEEDBACK_TIMEOUT, JOB_TIMEOUT
from workers import WorkerSettings, shutdown, startup

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 60.0


def test_arq_reads_every_attribute_we_set() -> None:
    """arq builds a Worker from the attributes that name one of its parameters and silently
    drops the rest: a misspelt setting would never take effect."""
    ours = {name for name in vars(WorkerSettings) if not name.startswith("_")}
    parameters = set(inspect.signature(Worker).parameters)
    assert ours <= parameters, f"arq ignores {sorted(ours - parameters)}"


def test_a_worker_built_by_arq_has_our_settings() -> None:
    worker = create_worker(WorkerSettings, handle_signals=False)
    assert worker.queue_name == QUEUE_NAME
    assert worker.health_check_key == f"{QUEUE_NAME}:health-check"
    assert worker.health_check_interval == 10
    assert worker.keep_result_s == 0
    assert worker.on_startup is startup
    assert worker.on_shutdown is shutdown
    job = worker.functions[REINDEX_FUNCTION]
    assert job.coroutine is reindex
    assert (job.keep_result_s, job.max_tries, job.timeout_s) == (0, OUTAGE_TRIES, JOB_TIMEOUT)
    assert worker.functions["record_feedback"].timeout_s == FEEDBACK_TIMEOUT == 60
    assert JOB_TIMEOUT == 1800
    (cron,) = worker.cron_jobs
    assert (cron.name, cron.coroutine, cron.unique, cron.minute) == ("maintain", maintain, True, 17)
    assert worker.redis_settings is WorkerSettings.redis_settings


def test_redis_comes_from_redis_url() -> None:
    code = (
        "from workers import WorkerSettings as W; r = W.redis_settings; "
        "print(r.host, r.port, r.database, r.password)"
    )
    environment = {**os.environ, "REDIS_URL": "redis://:secret@cache.internal:6390/3"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=DEADLINE,
    )
    assert result.stdout.split() == ["cache.internal", "6390", "3", "secret"]


def test_a_short_job_timeout_shortens_arqs_in_progress_marker() -> None:
    """arq keeps a running job's in-progress marker for the longest job timeout (cron jobs
    included) plus 10 s; ``TOOLRET_JOB_TIMEOUT`` bounds every job, so it bounds the marker, and
    a killed worker's job runs again that soon."""
    code = (
        "from arq.worker import create_worker\n"
        "from toolret.worker import WorkerSettings\n"
        "w = create_worker(WorkerSettings, handle_signals=False)\n"
        "print(w.in_progress_timeout_s, sorted(f.timeout_s for f in w.functions.values()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "TOOLRET_JOB_TIMEOUT": "8"},
        capture_output=True,
        text=True,
        check=True,
        timeout=DEADLINE,
    )
    assert result.stdout.split(maxsplit=1) == ["18.0", "[8.0, 8.0, 8.0, 8.0]\n"]


async def _arq_check(redis_url: str) -> int:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arq",
        "--check",
        "workers.WorkerSettings",
        cwd=REPO,
        env={**os.environ, "REDIS_URL": redis_url},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(DEADLINE):
        return await process.wait()


async def test_arq_check_passes_while_the_worker_runs_and_fails_after(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    ctx: dict[str, Any] = {
        "store": store,
        "embedder": CountingEmbedder(),
        "settings": Settings(TOOLRET_CATALOGS=[]),
    }
    running = worker(burst=False, poll_delay=0.05, ctx=ctx)
    redis = await create_pool(redis_settings(redis_url))
    task = asyncio.create_task(running.async_run())
    try:
        async with asyncio.timeout(DEADLINE):
            while True:  # polling the health key with a deadline
                if await redis.exists(running.health_check_key):
                    break
                await asyncio.sleep(0.02)
        assert await _arq_check(redis_url) == 0
    finally:
        await running.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert not await redis.exists(running.health_check_key)
    await redis.aclose()
    assert await _arq_check(redis_url) == 1
