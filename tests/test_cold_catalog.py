"""A catalog nobody has indexed yet, end to end: the client asks the worker, on a schedule, until
the worker has indexed it; then the same client narrows. Real Postgres, real Redis, real arq.

The application's connection is the read-only role it runs with in production: it can rank but
never index, so the worker alone makes a cold catalog servable.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
from arq.connections import create_pool
from arq.worker import Worker

from tests.support.fixtures_pg import PgServer
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, Settings, StoreError
from toolret.indexing._asks import REASK_AFTER, REASK_AT_MOST
from toolret.indexing._backoff import Backoff
from toolret.indexing._queue import QUEUE_NAME, redis_settings
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason
from toolret.store._schema import READER_ROLE
from toolret.store._vector_store import VectorStore

K = 3
BUDGET = 30.0
"""Seconds: these tests check who indexes what, not speed (the model's first load comes first)."""
DEADLINE = 120.0
MESSAGE = "Delete the duplicate contact for Acme Corp"


class Clock:
    """A monotonic clock the test moves by hand (test data: seconds since an arbitrary origin)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def reader_url(pg_server: PgServer, database_url: str) -> AsyncIterator[str]:
    """The test database, as an application login that is a member of the reader role."""
    application = f"app_{uuid.uuid4().hex[:8]}"
    dbname = database_url.split("/")[3].split("?")[0]
    await asyncio.to_thread(
        pg_server.execute, f"CREATE ROLE {application} LOGIN IN ROLE {READER_ROLE}"
    )
    try:
        yield pg_server.url(dbname, user=application)
    finally:
        await asyncio.to_thread(pg_server.execute, f"DROP OWNED BY {application}", dbname)
        await asyncio.to_thread(pg_server.execute, f"DROP ROLE {application}")


async def _queued_jobs(redis_url: str) -> int:
    pool = await create_pool(redis_settings(redis_url))
    try:
        return len(await pool.queued_jobs(queue_name=QUEUE_NAME))
    finally:
        await pool.aclose()


async def test_a_reader_on_a_cold_catalog_narrows_once_the_worker_has_indexed_it(
    reader_url: str, database_url: str, redis_url: str, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    async with ToolRetrievalClient(
        reader_url,
        embedder=embedder,
        k=K,
        time_budget=BUDGET,
        redis_url=redis_url,
        reindex_backoff=Backoff(0.05, 0.5),
    ) as reader:
        with pytest.raises(StoreError):  # the application's role cannot index
            await reader.index(catalog)
        stop = time.monotonic() + DEADLINE
        while not await _queued_jobs(redis_url):  # each cold selection may ask again
            cold = await reader.select(catalog, MESSAGE)
            assert (cold.mode, cold.reason) == (Mode.FULL, Reason.NOT_INDEXED)
            assert time.monotonic() < stop, "the reader never asked the worker"
            await asyncio.sleep(0.05)  # polling the queue with a deadline: there is no event

        async with VectorStore.from_url(database_url) as store:
            ctx = {"store": store, "embedder": embedder, "settings": Settings(TOOLRET_CATALOGS=[])}
            async with asyncio.timeout(DEADLINE):
                assert await worker(ctx=ctx).run_check() == 1

        warm = await reader.select(catalog, MESSAGE)
    assert (warm.mode, warm.reason) == (Mode.NARROWED, None)
    assert "delete_record" in warm.names
    assert len(warm.tools) == len(catalog.core) + K


async def test_the_client_asks_again_after_5_10_20_s_up_to_5_min_then_stops_once_served(
    database_url: str, redis_url: str
) -> None:
    """The re-ask schedule of a cold corpus, on a clock the test moves (no sleeping): a
    selection just before the next ask is due does not ask; one at the due time does, and the
    wait doubles. Once the corpus is served, the schedule is forgotten."""
    clock = Clock()
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    corpus = catalog.corpus_hash(embedder.model_id, embedder.example_role)
    backoff = Backoff(REASK_AFTER, REASK_AT_MOST, clock=clock)
    waits = []
    async with ToolRetrievalClient(
        database_url,
        embedder=embedder,
        k=K,
        time_budget=BUDGET,
        redis_url=redis_url,
        reindex_backoff=backoff,
    ) as client:
        first = await client.select(catalog, MESSAGE)
        assert first.reason is Reason.NOT_INDEXED
        wait = backoff.retry_in(corpus)
        while wait is not None and len(waits) < 8:
            waits.append(wait)
            clock.now += wait - 0.5
            early = await client.select(catalog, MESSAGE)
            assert early.reason is Reason.NOT_INDEXED
            assert backoff.retry_in(corpus) == pytest.approx(0.5), "asked before it was due"
            clock.now += 0.5
            await client.select(catalog, MESSAGE)
            wait = backoff.retry_in(corpus)
        await client.index(catalog)  # this test's owner connection may index
        served = await client.select(catalog, MESSAGE)
        assert served.mode is Mode.NARROWED
        assert backoff.retry_in(corpus) is None, "served: the schedule starts over next time"
    assert waits == [5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
    assert await _queued_jobs(redis_url) == 1, "the asks reached the worker's queue, as one job"
