"""The reindex queue and the job payload, against a real Redis."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from arq.connections import create_pool

from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import BundledE5Embedder, Catalog, Tool
from toolret._tool import parameter_text
from toolret.errors import CatalogSourceError, ClientStateError, ConfigurationError
from toolret.indexing._payload import PAYLOAD_VERSION, from_payload, to_payload
from toolret.indexing._queue import (
    QUEUE_NAME,
    REINDEX_FUNCTION,
    QueueError,
    ReindexQueue,
    redis_settings,
    reindex_job_id,
)

E5 = BundledE5Embedder()


def rich_catalog() -> Catalog:
    tools = [
        dataclasses.replace(
            tool,
            keywords=("crm", tool.domain),
            category="write",
            agents=("units", "sales"),
            examples=(f"please {tool.name.replace('_', ' ')}", "Bitte erledige das"),
        )
        for tool in CRM_TOOLS
    ]
    return Catalog(tools, core=["export_records"], domain_rank=("tasks", "records"))


def test_payload_is_plain_json_and_rebuilds_the_same_catalog() -> None:
    catalog = rich_catalog()
    payload = to_payload(catalog)
    travelled = json.loads(json.dumps(payload))
    rebuilt = from_payload(travelled)
    assert rebuilt.names == catalog.names
    assert [t.name for t in rebuilt.core] == [t.name for t in catalog.core]
    assert rebuilt.domain_rank == catalog.domain_rank
    for role in ("document", "query"):
        assert rebuilt.corpus_hash(E5.model_id, role) == catalog.corpus_hash(E5.model_id, role)
    original, copy = catalog["create_task"], rebuilt["create_task"]
    for field in ("description", "keywords", "category", "domain", "core", "examples", "agents"):
        assert getattr(copy, field) == getattr(original, field), field


def test_payload_leaves_definitions_behind_and_carries_what_ranking_reads_of_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {
            "recordId": {"type": "string", "description": "The record to attach it to"},
            "file": {"type": "object", "properties": {"bytes": {"type": "string"}}},
        },
        "required": ["recordId"],
    }
    tool = Tool(
        "attach_file",
        "Attach a file the user uploaded to a record so it appears in the record's files.",
        input_schema=schema,
        definition=object(),
    )
    catalog = Catalog([tool, Tool("ping", "Check that the service is up and answering.")])
    payload = json.loads(json.dumps(to_payload(catalog)))
    assert set(payload["tools"][0]) == {
        "name", "description", "keywords", "category", "domain", "core", "examples", "agents",
        "parameters",
    }  # fmt: skip
    assert payload["tools"][0]["parameters"] == {
        "recordId": "The record to attach it to",
        "file": "",
    }
    rebuilt = from_payload(payload)
    assert rebuilt["attach_file"].definition is None
    assert parameter_text(rebuilt["attach_file"]) == parameter_text(tool)
    assert rebuilt["ping"].input_schema is None
    for role in ("document", "query"):
        assert rebuilt.corpus_hash(E5.model_id, role) == catalog.corpus_hash(E5.model_id, role)


def test_payload_of_a_catalog_with_a_lower_description_minimum_rebuilds() -> None:
    short = Catalog([Tool("ping", "Check the API is up.")], min_description_length=10)
    assert from_payload(to_payload(short)).names == ["ping"]


def test_payload_of_another_version_is_refused() -> None:
    payload = dict(to_payload(crm_catalog()), version=PAYLOAD_VERSION + 1)
    with pytest.raises(CatalogSourceError, match="version"):
        from_payload(payload)
    with pytest.raises(CatalogSourceError, match="malformed"):
        from_payload({"version": PAYLOAD_VERSION, "tools": [{"description": "no name"}]})


async def test_the_same_corpus_queues_one_job(redis_url: str) -> None:
    catalog = crm_catalog()
    async with ReindexQueue(redis_url) as queue:
        assert await queue.enqueue(catalog, E5) is True
        assert await queue.enqueue(catalog, E5) is False
        reordered = Catalog(reversed(CRM_TOOLS))
        assert await queue.enqueue(reordered, E5) is False, "order is not part of the corpus"

    pool = await create_pool(redis_settings(redis_url))
    try:
        jobs = await pool.queued_jobs(queue_name=QUEUE_NAME)
    finally:
        await pool.aclose()
    corpus_hash = catalog.corpus_hash(E5.model_id, E5.example_role)
    assert [job.job_id for job in jobs] == [reindex_job_id(E5.model_id, corpus_hash)]
    (job,) = jobs
    assert job.function == REINDEX_FUNCTION
    assert job.kwargs == {"model_id": E5.model_id, "corpus_hash": corpus_hash}
    assert from_payload(job.args[0]).names == catalog.names


async def test_a_changed_description_is_a_new_job(redis_url: str) -> None:
    catalog = crm_catalog()
    edited = Catalog(
        dataclasses.replace(t, description=t.description + " Asks before deleting.")
        if t.name == "delete_record"
        else t
        for t in CRM_TOOLS
    )
    async with ReindexQueue(redis_url) as queue:
        assert await queue.enqueue(catalog, E5) is True
        assert await queue.enqueue(edited, E5) is True
    assert reindex_job_id(E5.model_id, catalog.corpus_hash(E5.model_id, "query")) != (
        reindex_job_id(E5.model_id, edited.corpus_hash(E5.model_id, "query"))
    )


async def test_an_unreachable_redis_fails_fast_with_a_queue_error(tmp_path: Path) -> None:
    queue = ReindexQueue(f"unix://{tmp_path / 'nobody-listens.sock'}")
    with pytest.raises(QueueError, match="cannot reach Redis"):
        await queue.enqueue(crm_catalog(), E5)
    await queue.aclose()


async def test_a_closed_queue_refuses_work(redis_url: str) -> None:
    queue = ReindexQueue(redis_url)
    assert await queue.enqueue(crm_catalog(), E5) is True
    await queue.aclose()
    with pytest.raises(ClientStateError):
        await queue.enqueue(crm_catalog(), E5)


def test_a_bad_redis_url_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="REDIS_URL"):
        ReindexQueue("http://localhost:6379")


def test_messages_never_carry_the_redis_password() -> None:
    assert "hunter2" not in repr(ReindexQueue("redis://user:hunter2@cache:6380/2"))
