"""A ``ToolRetrievalClient`` with no worker to ask (no ``REDIS_URL``) on a catalog nobody indexed:
it says so once, naming the fixes, and indexes the catalog itself in the background, so its
selections narrow without anyone running a command (real Postgres, the bundled model)."""

from __future__ import annotations

import logging

import pytest

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason


@pytest.fixture(autouse=True)
def no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)


async def test_an_unindexed_catalog_is_said_once_and_indexed_in_the_background(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    catalog = crm_catalog()
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=3, time_budget=30
    ) as client:
        with caplog.at_level(logging.INFO, logger="toolret.selection"):
            for message in ("Delete the duplicate contact", "Export the deals"):
                selection = await client.select(catalog, message)
                assert (selection.mode, selection.reason) == (Mode.FULL, Reason.NOT_INDEXED)
            await client.flush()  # the background run has ended
            narrowed = await client.select(catalog, "Create a task for tomorrow")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "no worker is configured" in warnings[0]
    assert "toolret reindex --catalog" in warnings[0]
    assert "REDIS_URL" in warnings[0]
    assert narrowed.mode is Mode.NARROWED
    assert any("indexed corpus" in r.getMessage() for r in caplog.records)


async def test_a_client_told_not_to_index_only_falls_open(database_url: str) -> None:
    """``toolret serve`` indexes on its own: its client neither warns nor indexes."""
    catalog = crm_catalog()
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=3, time_budget=30, index_unserved=False
    ) as client:
        await client.select(catalog, "Delete the duplicate contact")
        await client.flush()
        again = await client.select(catalog, "Create a task for tomorrow")
    assert again.reason is Reason.NOT_INDEXED
