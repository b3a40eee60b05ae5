"""Faults against the real components, and recovery from them without a restart.

Each test produces a fault for real — a table locked past the statement timeout, an unmigrated
database, a Postgres stopped and started again, a Redis that is not there, a worker killed
mid-reindex — and asserts the contract: the full roster within the time budget, with the
reason that names the fault; nothing half-published; and the same client narrowing again once
the fault is gone. Bounds on time are the budget plus generous slack (a loaded 2-core machine);
how fast each fault falls open is measured by ``python -m evals.bench_faults``, not asserted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event

from tests.tools import crm_catalog
from toolret import BundledE5Embedder
from toolret.client import STATEMENT_SHARE, ToolRetrievalClient
from toolret.schema import upgrade_database
from toolret.selection import Mode, Reason, Selection

K = 3
SLACK = 1.0
"""Seconds past the budget a selection may take on a loaded machine (the timeout itself is
delivered by the event loop, which may be busy)."""
MESSAGE = "Delete the duplicate contact for Acme Corp"


async def _timed_select(client: ToolRetrievalClient) -> tuple[Selection, float]:
    started = time.perf_counter()
    selection = await client.select(crm_catalog(), MESSAGE)
    return selection, time.perf_counter() - started


def _assert_full(selection: Selection, reason: Reason, budget: float, wall: float) -> None:
    assert (selection.mode, selection.reason) == (Mode.FULL, reason)
    assert selection.names == crm_catalog().names
    assert wall <= budget + SLACK, f"{wall:.2f} s against a {budget} s budget"


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


async def _lock_vectors(database_url: str) -> asyncpg.Connection:
    """A connection holding toolret_vectors locked (as a migration would) until it closes."""
    locker = await asyncpg.connect(database_url)
    await locker.execute("BEGIN; LOCK TABLE toolret_vectors IN ACCESS EXCLUSIVE MODE")
    return locker


# -- statement timeouts: the server cancels first and the connection stays --------------------


async def test_a_server_side_statement_cancel_keeps_the_pooled_connection(
    database_url: str,
) -> None:
    budget = 10.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
        statement_timeout=0.3,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])
        with _counting_connects(client) as opened:
            locker = await _lock_vectors(database_url)
            try:
                selection, wall = await _timed_select(client)
            finally:
                await locker.close()
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
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])  # the message's embedding is cached
        with _counting_connects(client) as opened:
            locker = await _lock_vectors(database_url)
            try:
                selection, wall = await _timed_select(client)
            finally:
                await locker.close()
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
    opens a new connection, which on a loaded machine takes a while."""
    budget = 5.0
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=budget,
        pool_size=1,
        max_overflow=0,
        statement_timeout=60.0,
    ) as client:
        await client.index(crm_catalog())
        _assert_narrowed((await _timed_select(client))[0])  # the message's embedding is cached
        with _counting_connects(client) as opened:
            locker = await _lock_vectors(database_url)
            try:
                selection, wall = await _timed_select(client)
            finally:
                await locker.close()
            _assert_full(selection, Reason.TIMEOUT, budget, wall)
            _assert_narrowed((await _timed_select(client))[0])
        assert len(opened) == 1, "the abandoned connection was replaced by a new one"


# -- an unmigrated database -----------------------------------------------------------------


async def test_an_unmigrated_database_says_schema_missing_once_and_recovers_after_upgrade(
    empty_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    budget = 10.0
    caplog.set_level(logging.DEBUG, logger="toolret")
    async with ToolRetrievalClient(
        empty_database_url, embedder=BundledE5Embedder(), k=K, time_budget=budget
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

    async with ToolRetrievalClient(empty_database_url, embedder=BundledE5Embedder(), k=K) as client:
        with pytest.raises(SchemaMissingError, match="toolret db upgrade"):
            await client.index(crm_catalog())


async def test_an_outdated_schema_is_schema_missing(database_url: str) -> None:
    """A column the statements read is gone, as in a database one migration behind."""
    budget = 10.0
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=budget
    ) as client:
        await client.index(crm_catalog())
        owner = await asyncpg.connect(database_url)
        try:
            await owner.execute("ALTER TABLE toolret_corpora DROP COLUMN published_at")
        finally:
            await owner.close()
        selection, wall = await _timed_select(client)
    _assert_full(selection, Reason.SCHEMA_MISSING, budget, wall)
