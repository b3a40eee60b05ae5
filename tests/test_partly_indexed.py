"""Tools without vectors in a narrowed selection: bound, named, counted, and indexed.

A catalog whose tools changed since it was indexed has candidates with no vector. They must stay
reachable, so a narrowed selection binds them; but never silently: the selection names them
(``unranked``), says ``partly_indexed``, and the worker is asked to index them. Once indexed,
the selection is core + ``k`` with no reason.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import asyncpg
from arq.connections import create_pool

from tests.support.service_catalog import MESSAGES, registration
from tests.support.tools import crm_catalog
from tests.test_service import register, service
from toolret import BundledE5Embedder, Catalog
from toolret.indexing._backoff import Backoff
from toolret.indexing._queue import QUEUE_NAME, redis_settings
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason
from toolret.service._catalogs import content_hash, stored_text
from toolret.service._models import CatalogRegistration

K = 2
DEADLINE = 120.0
MESSAGE = "Delete the duplicate contact for Acme Corp"
CHANGED = ("send_email", "create_task", "add_comment")


def changed(catalog: Catalog) -> Catalog:
    """The catalog with three descriptions edited: three tools whose documents have no vector."""
    tools = [
        dataclasses.replace(t, description=t.description + " It also works offline.")
        if t.name in CHANGED
        else t
        for t in catalog
    ]
    return Catalog(tools, domain_rank=catalog.domain_rank)


async def test_unindexed_tools_are_named_and_the_worker_is_asked_to_index_them(
    database_url: str, redis_url: str
) -> None:
    async with ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=30.0,
        redis_url=redis_url,
        reindex_backoff=Backoff(60.0, 60.0),
    ) as client:
        catalog = crm_catalog()
        await client.index(catalog)
        edited = changed(catalog)
        assert set(CHANGED) <= {t.name for t in edited.candidates}

        partly = await client.select(edited, MESSAGE)
        assert partly.mode is Mode.NARROWED
        assert partly.reason is Reason.PARTLY_INDEXED
        assert sorted(partly.unranked) == sorted(CHANGED)
        assert len(partly.tools) == len(edited.core) + K + len(CHANGED)
        assert set(CHANGED) <= set(partly.names), "tools without vectors stay reachable"

        await client.flush()  # the ask is sent in the background
        pool = await create_pool(redis_settings(redis_url))
        try:
            assert len(await pool.queued_jobs(queue_name=QUEUE_NAME)) == 1
        finally:
            await pool.aclose()

        await client.index(edited)  # what the worker does
        indexed = await client.select(edited, MESSAGE)
    assert (indexed.mode, indexed.reason, indexed.unranked) == (Mode.NARROWED, None, ())
    assert len(indexed.tools) == len(edited.core) + K


async def test_the_service_names_unranked_tools_and_indexes_them_inline(
    database_url: str,
) -> None:
    async with service(database_url, recheck_seconds=0) as (_, http):
        await register(http)
        # The stored registration changes under the service (another process, a migrated row):
        # three descriptions differ, so three tools have no vectors.
        body = registration()
        for tool in body["tools"]:
            if tool["function"]["name"] in ("merge_records", "restore_record", "add_field"):
                tool["function"]["description"] += " It also works offline."
        text = stored_text(CatalogRegistration.model_validate(body))
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute(
                "UPDATE toolret_catalogs SET source = $1::json, content_hash = $2",
                text,
                content_hash(text),
            )
        finally:
            await connection.close()

        asked: dict[str, Any] = {"catalog": "crm", "message": MESSAGES[0], "k": K}
        first = (await http.post("/v1/select", json=asked)).json()
        assert first["mode"] == "narrowed", first
        assert first["reason"] == "partly_indexed", first
        assert sorted(first["unranked"]) == ["add_field", "merge_records", "restore_record"]

        deadline = time.monotonic() + DEADLINE
        while True:  # polling a condition with a deadline: the service indexes them inline
            answer = (await http.post("/v1/select", json=asked)).json()
            if answer["reason"] is None:
                break
            assert answer["reason"] == "partly_indexed", answer
            assert time.monotonic() < deadline, "the service never indexed the unranked tools"
            await _pause()
    assert answer["mode"] == "narrowed"
    assert answer["unranked"] == []
    assert len(answer["names"]) <= 3 + K


async def _pause() -> None:
    import asyncio

    await asyncio.sleep(0.1)
