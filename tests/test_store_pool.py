"""The store's pool under a burst of concurrent rankings: overflow connections are closed, not
leaked. Returning one to a full pool closes it, which must run in SQLAlchemy's greenlet
context; outside it the close failed (``MissingGreenlet``, logged on every return) and the
connection stayed open on the server."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import numpy as np
import pytest

from tests.support.fixtures_pg import publish_random, synthetic_catalog
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

MODEL = "test-model@384"


async def _server_connections(database_url: str) -> int:
    connection = await asyncpg.connect(database_url)
    try:
        count: int = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return count
    finally:
        await connection.close()


async def test_overflow_connections_are_closed_when_returned(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    catalog = synthetic_catalog(40)
    rng = np.random.default_rng(3)
    async with VectorStore.from_url(database_url, pool_size=1, max_overflow=8) as store:
        await publish_random(store, catalog, MODEL, rng)
        query = CatalogQuery.build(catalog, MODEL, "query")
        vectors = rng.standard_normal((24, 384)).astype(np.float32)
        with caplog.at_level(logging.ERROR):
            for _ in range(3):  # each burst opens overflow connections, and returns them
                rankings = await asyncio.gather(
                    *(store.rank(query, vector, limit=5) for vector in vectors)
                )
                assert all(len(ranking.scores) == 5 for ranking in rankings)
        assert "Exception closing connection" not in caplog.text
        assert await _server_connections(database_url) <= 1  # the pooled one stays
