"""Every failure sends the full roster with its reason, within the time budget — on real Postgres.

Each path is produced for real: a server stopped mid-test, a closed TCP port, a table lock that
outlasts the statement timeout, a pool whose only connection is taken, embedders that fail or
hang. The read-only role runs the request path and cannot index.
"""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import Callable

import pytest

from tests.support.budget import assert_within_budget
from tests.support.embedders import HangingQueries, erroring, unavailable
from tests.support.fixtures_pg import PgServer
from tests.support.locks import locked_table
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, StoreError
from toolret.embedders._base import Embedder
from toolret.retrieval._client import POOL_SHARE, ToolRetrievalClient
from toolret.retrieval._selection import DEFAULT_TIME_BUDGET, Mode, Reason, Selection
from toolret.store._schema import READER_ROLE

K = 3
MESSAGE = "Delete the duplicate contact for Acme Corp"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _timed_select(client: ToolRetrievalClient) -> tuple[Selection, float]:
    started = time.perf_counter()
    selection = await client.select(crm_catalog(), MESSAGE)
    return selection, time.perf_counter() - started


def _assert_full_roster(selection: Selection, reason: Reason, budget: float, wall: float) -> None:
    assert selection.mode is Mode.FULL
    assert selection.reason is reason
    assert selection.names == crm_catalog().names
    assert_within_budget(selection.elapsed_ms / 1000, budget)
    assert_within_budget(wall, budget)  # the budget bounds the call, not only the measurement


async def test_a_closed_port_sends_the_full_roster() -> None:
    budget = 30.0  # the model's first load comes first; on a loaded machine it takes seconds
    url = f"postgresql://postgres@127.0.0.1:{_free_port()}/toolret"
    async with ToolRetrievalClient(
        url, embedder=BundledE5Embedder(), k=K, time_budget=budget
    ) as client:
        selection, wall = await _timed_select(client)
    _assert_full_roster(selection, Reason.STORE_ERROR, budget, wall)


async def test_a_server_stopped_mid_test_sends_the_full_roster(
    private_pg: Callable[[], PgServer],
) -> None:
    server = private_pg()
    budget = 5.0
    # reuse=0: each selection goes to the (stopped) database, not to the one made before
    async with ToolRetrievalClient(
        server.url(), embedder=BundledE5Embedder(), k=K, time_budget=budget, reuse=0
    ) as client:
        await client.index(crm_catalog())
        before, _ = await _timed_select(client)
        assert before.mode is Mode.NARROWED

        server.stop()
        for _ in range(2):  # the pooled connection is dead; so is a fresh one
            selection, wall = await _timed_select(client)
            _assert_full_roster(selection, Reason.STORE_ERROR, budget, wall)


async def test_a_statement_timeout_sends_the_full_roster(database_url: str) -> None:
    """A migration holds the table locked: the ranking query waits, the server cancels it."""
    budget = 10.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=budget,
        statement_timeout=0.3,
    ) as client:
        await client.index(crm_catalog())
        async with locked_table(database_url):
            selection, wall = await _timed_select(client)
        _assert_full_roster(selection, Reason.TIMEOUT, budget, wall)
        after, _ = await _timed_select(client)
    assert after.mode is Mode.NARROWED


async def test_an_exhausted_pool_sends_the_full_roster(database_url: str) -> None:
    budget = 10.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
        pool_timeout=0.2,
    ) as client:
        await client.index(crm_catalog())
        async with client.store.engine.connect():  # another task holds the only connection
            selection, wall = await _timed_select(client)
        _assert_full_roster(selection, Reason.STORE_ERROR, budget, wall)
        after, _ = await _timed_select(client)
    assert after.mode is Mode.NARROWED


async def test_at_the_default_budget_a_taken_pool_is_waited_on_for_a_quarter_of_it(
    database_url: str,
) -> None:
    """No budget or pool timeout given: the pool's checkout waits a quarter of the default
    budget, then the selection falls open with ``store_error``, well before the budget
    itself would end it with ``timeout``."""
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, pool_size=1, max_overflow=0, reuse=0
    ) as client:  # reuse=0: the same message again goes to the pool
        assert client.time_budget == DEFAULT_TIME_BUDGET
        await client.index(crm_catalog())
        warm, _ = await _timed_select(client)  # the message's vector is now cached
        assert warm.mode is Mode.NARROWED
        async with client.store.engine.connect():  # another task holds the only connection
            selection, wall = await _timed_select(client)
    wait = POOL_SHARE * DEFAULT_TIME_BUDGET
    _assert_full_roster(selection, Reason.STORE_ERROR, DEFAULT_TIME_BUDGET, wall)
    assert wall >= wait
    assert_within_budget(wall, wait)


@pytest.mark.parametrize(
    ("make_embedder", "reason"),
    [
        (erroring, Reason.EMBEDDER_ERROR),
        (unavailable, Reason.EMBEDDER_UNAVAILABLE),
        (HangingQueries, Reason.TIMEOUT),
    ],
)
async def test_embedder_failures_send_the_full_roster(
    database_url: str, make_embedder: Callable[[], Embedder], reason: Reason
) -> None:
    budget = 0.5
    async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder(), k=K) as indexer:
        await indexer.index(crm_catalog())
    async with ToolRetrievalClient(
        database_url, embedder=make_embedder(), k=K, time_budget=budget
    ) as client:
        selection, wall = await _timed_select(client)
    _assert_full_roster(selection, reason, budget, wall)


async def test_the_read_only_role_serves_selections_and_cannot_index(
    pg_server: PgServer, database_url: str
) -> None:
    application = f"app_{uuid.uuid4().hex[:8]}"
    pg_server.execute(f"CREATE ROLE {application} LOGIN IN ROLE {READER_ROLE}")
    dbname = database_url.split("/")[3].split("?")[0]
    reader_url = pg_server.url(dbname, user=application)
    try:
        async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder(), k=K) as owner:
            await owner.index(crm_catalog())
        async with ToolRetrievalClient(
            reader_url, embedder=BundledE5Embedder(), k=K, time_budget=30.0
        ) as reader:
            selection = await reader.select(crm_catalog(), MESSAGE)
            assert selection.mode is Mode.NARROWED
            assert "delete_record" in selection.names
            changed = crm_catalog().subset(crm_catalog().names[:-1])
            with pytest.raises(StoreError):
                await reader.index(type(crm_catalog())(changed))
    finally:
        await asyncio.to_thread(pg_server.execute, f"DROP OWNED BY {application}", dbname)
        await asyncio.to_thread(pg_server.execute, f"DROP ROLE {application}")
