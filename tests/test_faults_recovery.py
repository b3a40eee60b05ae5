"""Faults against the real components, and recovery from them without a restart.

Each test produces a fault for real — a table locked past the statement timeout, an unmigrated
database, a Postgres stopped and started again, a Redis that is not there, a worker killed
mid-reindex — and asserts the contract: the full roster within the time budget, with the
reason that names the fault; nothing half-published; and the same client narrowing again once
the fault is gone. Bounds on time are the budget plus generous slack (a loaded 2-core machine);
how fast each fault falls open is measured by ``python -m evals.perf.faults``, not asserted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from arq.connections import create_pool
from arq.worker import Worker
from sqlalchemy import event

from tests.support.budget import assert_within_budget
from tests.support.fixtures_pg import PgServer
from tests.support.fixtures_redis import PrivateRedis
from tests.support.killed_worker import KILLED_JOB_TIMEOUT, marker_ttl
from tests.support.locks import locked_table
from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import BundledE5Embedder, Catalog, Settings
from toolret.embedders._base import Embedder
from toolret.indexing._backoff import Backoff
from toolret.indexing._queue import QUEUE_NAME, redis_settings, reindex_job_id
from toolret.retrieval._breaker import breaker_for
from toolret.retrieval._client import STATEMENT_SHARE, ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason, Selection
from toolret.store._migrate import upgrade_database
from toolret.store._vector_store import VectorStore

K = 3
MESSAGE = "Delete the duplicate contact for Acme Corp"
"""Asked again and again: every client here runs with ``reuse=0``, so each selection goes to
the database step under test rather than to the one made for it a moment before."""
DEADLINE = 120.0
"""Seconds a test waits for a recovery step (a worker run, a server start) before failing."""
REPO = Path(__file__).resolve().parent.parent


async def _timed_select(
    client: ToolRetrievalClient, catalog: Catalog | None = None
) -> tuple[Selection, float]:
    started = time.perf_counter()
    selection = await client.select(catalog or crm_catalog(), MESSAGE)
    return selection, time.perf_counter() - started


def _assert_full(
    selection: Selection,
    reason: Reason,
    budget: float,
    wall: float,
    catalog: Catalog | None = None,
) -> None:
    assert (selection.mode, selection.reason) == (Mode.FULL, reason)
    assert selection.names == (catalog or crm_catalog()).names
    assert_within_budget(wall, budget)


def _assert_narrowed(selection: Selection) -> None:
    assert selection.mode is Mode.NARROWED, selection.reason
    assert "delete_record" in selection.names


@contextmanager
def _counting_connects(client: ToolRetrievalClient) -> Iterator[list[Any]]:
    """Every new connection the client's pool opens, through SQLAlchemy's ``connect`` event."""
    opened: list[Any] = []

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        opened.append(dbapi_connection)

    engine = client.store.engine.sync_engine
    event.listen(engine, "connect", on_connect)
    try:
        yield opened
    finally:
        event.remove(engine, "connect", on_connect)


# -- statement timeouts: the server cancels first and the connection stays --------------------


async def test_a_server_side_statement_cancel_keeps_the_pooled_connection(
    database_url: str,
) -> None:
    budget = 10.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        reuse=0,
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
        statement_timeout=0.3,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])
        with _counting_connects(client) as opened:
            async with locked_table(database_url):
                selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.TIMEOUT, budget, wall)
            _assert_narrowed((await _timed_select(client))[0])
        assert opened == [], "the cancelled statement's connection went back to the pool"


async def test_by_default_the_server_cancels_before_the_budget_runs_out(
    database_url: str,
) -> None:
    """No statement_timeout given: it is a share of the budget, so a stuck query is cancelled
    by the server (the connection is kept), not abandoned by the client."""
    budget = 4.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        reuse=0,
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])  # the message's embedding is cached
        with _counting_connects(client) as opened:
            async with locked_table(database_url):
                selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.TIMEOUT, budget, wall)
            assert wall >= budget * STATEMENT_SHARE * 0.9, "the server waited its share"
            _assert_narrowed((await _timed_select(client))[0])
        assert opened == []


async def test_a_client_side_timeout_mid_query_never_returns_a_busy_connection(
    database_url: str,
) -> None:
    """The budget runs out while the server still runs the statement: asyncpg is left waiting
    for the cancel, so that connection must not serve the next selection (it would fail with
    "another operation is in progress"). The budget is generous because the next selection
    opens a new connection, which on a loaded machine takes a while. A budget spent waiting on
    the database opens its breaker: the next selection falls open at once and starts the probe
    (``SELECT 1``, on the one new connection), whose answer closes it."""
    budget = 5.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        reuse=0,
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
        statement_timeout=60.0,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])  # the message's embedding is cached
        with _counting_connects(client) as opened:
            async with locked_table(database_url):
                selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.TIMEOUT, budget, wall)
            refused, wall = await _timed_select(client)
            _assert_full(refused, Reason.STORE_ERROR, budget, wall)
            await breaker_for("store", client.store_name).wait_closed()
            _assert_narrowed((await _timed_select(client))[0])
        assert len(opened) == 1, "the abandoned connection was replaced by a new one"


# -- an unmigrated database -----------------------------------------------------------------


async def test_an_unmigrated_database_says_schema_missing_once_and_recovers_after_upgrade(
    empty_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    budget = 10.0
    caplog.set_level(logging.DEBUG, logger="toolret")
    async with ToolRetrievalClient(
        empty_database_url, embedder=BundledE5Embedder(), reuse=0, k=K, time_budget=budget
    ) as client:
        for _ in range(3):
            selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.SCHEMA_MISSING, budget, wall)
        loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(loud) == 1, [r.getMessage() for r in loud]
        assert "toolret db upgrade" in loud[0].getMessage()

        await asyncio.to_thread(upgrade_database, empty_database_url)
        selection, wall = await _timed_select(client)
        _assert_full(selection, Reason.NOT_INDEXED, budget, wall)
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])


async def test_indexing_into_an_unmigrated_database_names_the_fix(
    empty_database_url: str,
) -> None:
    from toolret import SchemaMissingError

    async with ToolRetrievalClient(
        empty_database_url, embedder=BundledE5Embedder(), reuse=0, k=K
    ) as client:
        with pytest.raises(SchemaMissingError, match="toolret db upgrade"):
            await client.index(crm_catalog())


async def test_an_outdated_schema_is_schema_missing(database_url: str) -> None:
    """A column the statements read is gone, as in a database one migration behind."""
    budget = 10.0
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), reuse=0, k=K, time_budget=budget
    ) as client:
        await client.index(crm_catalog())
        owner = await asyncpg.connect(database_url)
        try:
            await owner.execute("ALTER TABLE toolret_corpora DROP COLUMN published_at")
        finally:
            await owner.close()
        selection, wall = await _timed_select(client)
    _assert_full(selection, Reason.SCHEMA_MISSING, budget, wall)


# -- asking the worker again: Redis outages, garbage collection ------------------------------


def _fast_backoff() -> Backoff:
    """Re-ask within a fraction of a second, so the tests need not wait the default 5 s."""
    return Backoff(0.05, 0.5)


def _other_catalog() -> Catalog:
    """The CRM catalog with one description edited: another corpus."""
    return Catalog(
        dataclasses.replace(tool, description=tool.description + " It cannot be undone.")
        if tool.name == "delete_record"
        else tool
        for tool in CRM_TOOLS
    )


async def _until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait for ``condition``, polling with a deadline: there is no event to wait on."""
    stop = time.monotonic() + DEADLINE
    while not await condition():
        assert time.monotonic() < stop, f"{what} did not happen within {DEADLINE} s"
        await asyncio.sleep(0.05)


async def _queued(redis_url: str, catalog: Catalog, embedder: Embedder) -> bool:
    """Whether the reindex job for ``catalog`` is in the worker's queue."""
    job_id = reindex_job_id(
        embedder.model_id, catalog.corpus_hash(embedder.model_id, embedder.example_role)
    )
    pool = await create_pool(redis_settings(redis_url, conn_retries=0))
    try:
        return job_id in {job.job_id for job in await pool.queued_jobs(queue_name=QUEUE_NAME)}
    finally:
        await pool.aclose()


def _failed_enqueues(caplog: pytest.LogCaptureFixture) -> int:
    return sum("asking the worker to index" in r.getMessage() for r in caplog.records)


async def _select_until_queued(
    client: ToolRetrievalClient, redis_url: str, catalog: Catalog, budget: float
) -> None:
    """Keep selecting (each selection may re-ask) until the job is queued; every selection
    meanwhile falls open with not_indexed within the budget."""

    async def queued() -> bool:
        selection, wall = await _timed_select(client, catalog)
        _assert_full(selection, Reason.NOT_INDEXED, budget, wall, catalog)
        return await _queued(redis_url, catalog, client.embedder)

    await _until(queued, "the reindex request")


def _job_ctx(store: VectorStore, embedder: Embedder) -> dict[str, Any]:
    return {"store": store, "embedder": embedder, "settings": Settings(TOOLRET_CATALOGS=[])}


async def test_with_redis_down_selections_are_unaffected_and_the_request_is_retried(
    store: VectorStore,
    private_redis: PrivateRedis,
    worker: Callable[..., Worker],
    caplog: pytest.LogCaptureFixture,
) -> None:
    budget = 10.0
    embedder = BundledE5Embedder()
    async with ToolRetrievalClient(
        store=store,
        embedder=embedder,
        reuse=0,
        redis_url=private_redis.url,
        k=K,
        time_budget=budget,
        reindex_backoff=_fast_backoff(),
    ) as client:
        for _ in range(3):
            selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.NOT_INDEXED, budget, wall)

        async def failed() -> bool:
            return _failed_enqueues(caplog) > 0

        await _until(failed, "a failed reindex request")
        private_redis.start()
        await _select_until_queued(client, private_redis.url, crm_catalog(), budget)

        run = worker(
            redis_settings=redis_settings(private_redis.url), ctx=_job_ctx(store, embedder)
        )
        async with asyncio.timeout(DEADLINE):
            assert await run.run_check() == 1
        _assert_narrowed((await _timed_select(client))[0])


async def test_a_redis_restart_loses_nothing_the_client_still_needs(
    store: VectorStore, private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    """The queue's connection is open when Redis stops, and the restarted Redis is empty: the
    request made during the outage and the job lost with it are both asked for again."""
    budget = 10.0
    before, during = crm_catalog(), _other_catalog()
    private_redis.start()
    async with ToolRetrievalClient(
        store=store,
        embedder=BundledE5Embedder(),
        reuse=0,
        redis_url=private_redis.url,
        k=K,
        time_budget=budget,
        reindex_backoff=_fast_backoff(),
    ) as client:
        await _select_until_queued(client, private_redis.url, before, budget)
        private_redis.stop()
        selection, wall = await _timed_select(client, during)
        _assert_full(selection, Reason.NOT_INDEXED, budget, wall, during)

        async def failed() -> bool:
            return _failed_enqueues(caplog) > 0

        await _until(failed, "a failed reindex request")
        private_redis.start()
        await _select_until_queued(client, private_redis.url, during, budget)
        await _select_until_queued(client, private_redis.url, before, budget)


async def test_a_garbage_collected_corpus_is_asked_for_again(
    store: VectorStore, redis_url: str, worker: Callable[..., Worker]
) -> None:
    budget = 10.0
    embedder = BundledE5Embedder()
    async with ToolRetrievalClient(
        store=store,
        embedder=embedder,
        reuse=0,
        redis_url=redis_url,
        k=K,
        time_budget=budget,
        reindex_backoff=Backoff(3600.0, 3600.0),  # a second ask can only follow the reset
    ) as client:
        for _ in range(2):
            await _select_until_queued(client, redis_url, crm_catalog(), budget)
            async with asyncio.timeout(DEADLINE):
                assert await worker(ctx=_job_ctx(store, embedder)).run_check() == 1
            _assert_narrowed((await _timed_select(client))[0])
            collected = await store.gc(
                timedelta(hours=1), now=datetime.now(UTC) + timedelta(days=1)
            )
            assert collected.corpora == 1


# -- Postgres stopped and started again under traffic ----------------------------------------


async def test_postgres_stopped_and_restarted_mid_traffic(
    private_pg: Callable[[], PgServer],
) -> None:
    """Four tasks select without pause while the server stops and starts again: every
    selection is within the budget, full with store_error when it starts while the server is
    down, and the same client narrows again once it is back. A selection belongs to the phase
    it started in: one that ranked just before the server stopped may finish after, and one
    still waiting on the server when it stops may fall open (its connection is cut)."""
    server = private_pg()
    budget = 2.0
    outcomes: list[tuple[str, Selection, float]] = []
    finished_before: list[Selection] = []  # started and finished before the server stopped
    phase = "before"
    done = asyncio.Event()
    async with ToolRetrievalClient(
        server.url(), embedder=BundledE5Embedder(), reuse=0, k=K, time_budget=budget
    ) as client:
        await client.index(crm_catalog())
        await client.embedder.embed_query(MESSAGE)  # cached: the database is what is tested

        async def traffic() -> None:
            while not done.is_set():
                started_in = phase
                selection, wall = await _timed_select(client)
                outcomes.append((started_in, selection, wall))
                if phase == "before":
                    finished_before.append(selection)
                await asyncio.sleep(0)  # let the test's own steps run between selections

        def count(wanted: str, mode: Mode | None = None) -> int:
            return sum(p == wanted and (mode is None or s.mode is mode) for p, s, _ in outcomes)

        async def seen(wanted: str, mode: Mode | None, at_least: int) -> None:
            async def enough() -> bool:
                return count(wanted, mode) >= at_least

            await _until(enough, f"{at_least} {mode or 'any'} selections {wanted}")

        tasks = [asyncio.create_task(traffic()) for _ in range(4)]
        try:
            await seen("before", Mode.NARROWED, 8)
            phase = "stopping"
            await asyncio.to_thread(server.stop)
            phase = "down"
            await seen("down", None, 20)
            phase = "starting"
            await asyncio.to_thread(server.start)
            phase = "after"
            await seen("after", Mode.NARROWED, 8)
        finally:
            done.set()
            await asyncio.gather(*tasks)

    assert_within_budget(max(wall for _, _, wall in outcomes), budget)
    for when, selection, _ in outcomes:
        if selection.mode is not Mode.NARROWED:
            assert (when, selection.mode, selection.reason) == (when, Mode.FULL, Reason.STORE_ERROR)
            assert selection.names == crm_catalog().names
    assert {s.mode for s in finished_before} == {Mode.NARROWED}
    assert count("down", Mode.NARROWED) == 0


# -- a worker killed mid-reindex -------------------------------------------------------------


async def test_a_worker_killed_mid_reindex_publishes_nothing_and_the_client_recovers(
    store: VectorStore,
    database_url: str,
    redis_url: str,
    worker: Callable[..., Worker],
    tmp_path: Path,
) -> None:
    """The client asks; ``arq`` in a subprocess embeds some batches, stalls and is SIGKILLed.
    Selections meanwhile and after see nothing of the half-done run; once the job runs again,
    the same client narrows."""
    budget = 10.0
    catalog = crm_catalog()
    embedder = BundledE5Embedder()
    marker = tmp_path / "stalled"
    environment = {
        **os.environ,
        "TOOLRET_REDIS_URL": redis_url,
        "TOOLRET_DATABASE_URL": database_url,
        "TOOLRET_CATALOGS": "",
        "TOOLRET_TEST_STALL_AFTER": "1",
        "TOOLRET_TEST_STALL_MARKER": str(marker),
        "TOOLRET_JOB_TIMEOUT": str(KILLED_JOB_TIMEOUT),
    }
    async with ToolRetrievalClient(
        store=store,
        embedder=embedder,
        reuse=0,
        redis_url=redis_url,
        k=K,
        time_budget=budget,
        reindex_backoff=_fast_backoff(),
    ) as client:
        await _select_until_queued(client, redis_url, catalog, budget)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "arq",
            "tests.support.killed_worker.STALLING_SETTINGS",
            cwd=REPO,
            env=environment,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            keys = {doc.key for _, doc in catalog.documents(embedder.example_role)}

            async def written() -> int:
                return len(keys) - len(await store.missing(embedder.model_id, keys))

            async def stalled() -> bool:
                # stalled embedding the next batch, and the batch before it written (the
                # write runs while the model embeds the next)
                assert process.returncode is None, "the worker exited early"
                return marker.exists() and await written() > 0

            await _until(stalled, "the worker stalling mid-reindex")
            assert 0 < await written() < len(keys), "the run is half done"
            selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.NOT_INDEXED, budget, wall)
        finally:
            process.send_signal(signal.SIGKILL)
            await process.wait()

        for _ in range(3):  # re-asks meanwhile find the job still marked in progress
            selection, wall = await _timed_select(client)
            _assert_full(selection, Reason.NOT_INDEXED, budget, wall)
        corpus_hash = catalog.corpus_hash(embedder.model_id, embedder.example_role)
        assert not await store.is_published(embedder.model_id, corpus_hash)

        # Redis expires the killed worker's in-progress marker the configured job timeout plus
        # 10 s after the job started; a worker polling the queue takes the job then.
        assert await marker_ttl(redis_url, reindex_job_id(embedder.model_id, corpus_hash)) > 0
        async with asyncio.timeout(DEADLINE):
            assert await worker(ctx=_job_ctx(store, embedder), poll_delay=0.5).run_check() == 1
        _assert_narrowed((await _timed_select(client))[0])


# -- more callers than the pool holds -------------------------------------------------------


async def test_overflow_connections_are_closed_not_leaked(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Eight callers on a pool of one plus three overflow: the three extra connections are
    closed when the full pool does not take them back (an I/O SQLAlchemy must run in its
    greenlet; outside it the close fails with MissingGreenlet and the connection leaks)."""
    async with VectorStore.from_url(database_url, pool_size=1, max_overflow=3) as store:
        for _ in range(3):
            await asyncio.gather(*(store.ping() for _ in range(8)))
        observer = await asyncpg.connect(database_url)
        try:
            backends = await observer.fetchval(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        finally:
            await observer.close()
    assert backends == 1, "only the pooled connection stays open"
    failures = [r for r in caplog.records if r.name.startswith("sqlalchemy") and r.levelno >= 40]
    assert failures == [], [r.getMessage() for r in failures]
