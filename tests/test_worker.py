"""The reindex job, the deploy trigger and the maintenance cron: real Redis, real Postgres.

Embedding is counted with test-data embedders that wrap the bundled model through the public
``Embedder`` protocol (tests/support/embedders.py); nothing inside toolret or arq is patched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from arq.connections import create_pool
from arq.worker import Worker
from sqlalchemy import text

from tests.support.embedders import CountingEmbedder, GatedDocuments
from tests.support.killed_worker import KILLED_JOB_TIMEOUT, marker_ttl
from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import Catalog, EmbedderError, EmbedderUnavailableError, Settings
from toolret.embedders._base import Vectors
from toolret.indexing._queue import QUEUE_NAME, ReindexQueue, redis_settings, reindex_job_id
from toolret.indexing._run import index_catalog
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore
from toolret.worker._cron import maintain
from toolret.worker._jobs import MAX_TRIES
from workers import shutdown, startup

REPO = Path(__file__).resolve().parent.parent
FAST_RETRY = timedelta(milliseconds=5)
DEADLINE = 120.0


# -- test data -------------------------------------------------------------------------------


def crm_with_examples() -> Catalog:
    """The CRM catalog with two example requests per tool: 33 distinct documents."""
    tools = [
        dataclasses.replace(
            tool,
            examples=(
                f"please {tool.name.replace('_', ' ')} for me",
                f"can you {tool.name.replace('_', ' ')} now?",
            ),
        )
        for tool in CRM_TOOLS
    ]
    return Catalog(tools)


def deployed_catalog() -> Catalog:
    """What ``TOOLRET_CATALOGS=tests.test_worker:deployed_catalog`` names in the deploy test."""
    return crm_catalog()


def edited(catalog: Catalog, name: str, addition: str) -> Catalog:
    return Catalog(
        dataclasses.replace(tool, description=tool.description + addition)
        if tool.name == name
        else tool
        for tool in catalog
    )


def texts_of(catalog: Catalog) -> set[str]:
    """The distinct texts the bundled model embeds for the catalog."""
    return {doc.text for _, doc in catalog.documents(CountingEmbedder().example_role)}


def embedded(embedder: CountingEmbedder) -> list[str]:
    return embedder.documents + embedder.queries


class FlakyEmbedder(CountingEmbedder):
    """Fails its first ``failures`` calls with ``error``, then embeds."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        super().__init__()
        self.failures = failures
        self.error = error or EmbedderError("provider returned 503", model_id=self.model_id)
        self.calls = 0

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return await super().embed_documents(texts)


def job_ctx(store: VectorStore, embedder: Any, **extra: Any) -> dict[str, Any]:
    """A worker context that supplies the store, the embedder and settings with no catalogs."""
    ctx: dict[str, Any] = {
        "store": store,
        "embedder": embedder,
        "settings": Settings(TOOLRET_CATALOGS=[]),
        "retry_base": FAST_RETRY,
    }
    ctx.update(extra)
    return ctx


async def published(store: VectorStore, catalog: Catalog, embedder: Any) -> bool:
    corpus_hash = catalog.corpus_hash(embedder.model_id, embedder.example_role)
    return await store.is_published(embedder.model_id, corpus_hash)


async def stored(store: VectorStore, catalog: Catalog, embedder: Any) -> int:
    """How many of the catalog's distinct documents have a vector."""
    keys = {doc.key for _, doc in catalog.documents(embedder.example_role)}
    return len(keys) - len(await store.missing(embedder.model_id, keys))


# -- the reindex job -------------------------------------------------------------------------


async def test_an_unchanged_catalog_embeds_nothing(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    catalog = crm_with_examples()
    embedder = CountingEmbedder()
    async with ReindexQueue(redis_url) as queue:
        assert await queue.enqueue(catalog, embedder)
        assert await worker(ctx=job_ctx(store, embedder)).run_check() == 1
        assert sorted(embedded(embedder)) == sorted(texts_of(catalog))
        assert await published(store, catalog, embedder)

        embedder.documents.clear()
        embedder.queries.clear()
        assert await queue.enqueue(catalog, embedder), "a finished corpus can be asked again"
        assert await worker(ctx=job_ctx(store, embedder)).run_check() == 1
    assert embedded(embedder) == []
    assert await published(store, catalog, embedder)


async def test_a_changed_description_reembeds_exactly_one_document(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    before = crm_with_examples()
    after = edited(before, "delete_record", " It cannot be undone.")
    embedder = CountingEmbedder()
    async with ReindexQueue(redis_url) as queue:
        await queue.enqueue(before, embedder)
        await worker(ctx=job_ctx(store, embedder)).run_check()
        embedder.documents.clear()
        embedder.queries.clear()
        assert await queue.enqueue(after, embedder)
        assert await worker(ctx=job_ctx(store, embedder)).run_check() == 1
    assert embedded(embedder) == [after["delete_record"].retrieval_text]
    assert await published(store, after, embedder)
    assert await published(store, before, embedder), "the older deployment keeps its corpus"


async def test_enqueuing_the_same_corpus_twice_runs_one_job(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    embedder = CountingEmbedder()
    async with ReindexQueue(redis_url) as first, ReindexQueue(redis_url) as second:
        assert await first.enqueue(catalog, embedder) is True
        assert await second.enqueue(catalog, embedder) is False
    run = worker(ctx=job_ctx(store, embedder))
    assert await run.run_check() == 1
    assert (run.jobs_complete, run.jobs_failed, run.jobs_retried) == (1, 0, 0)
    assert len(embedded(embedder)) == len(texts_of(catalog))


async def test_two_workers_at_once_embed_each_document_once(
    redis_url: str, database_url: str, worker: Callable[..., Worker]
) -> None:
    """Two deployments with their own Redis (here two databases of one server) ask for one
    corpus at the same moment, so arq's job id cannot deduplicate: the Postgres advisory lock
    lets one embed; the other waits, then finds everything done."""
    catalog = crm_with_examples()
    embedder = GatedDocuments()
    started = 0

    async def on_job_start(ctx: dict[str, Any]) -> None:
        nonlocal started
        started += 1
        if started == 2:
            embedder.release.set()  # both jobs are running before either embeds anything

    stores = [VectorStore.from_url(database_url) for _ in range(2)]
    try:
        workers = []
        for url, store in zip((redis_url, f"{redis_url}?db=1"), stores, strict=True):
            async with ReindexQueue(url) as queue:
                assert await queue.enqueue(catalog, embedder)
            workers.append(
                worker(
                    redis_settings=redis_settings(url),
                    ctx=job_ctx(store, embedder),
                    on_job_start=on_job_start,
                )
            )
        async with asyncio.timeout(DEADLINE):
            done = await asyncio.gather(*(w.run_check() for w in workers))
        assert done == [1, 1]
        assert sorted(embedded(embedder)) == sorted(texts_of(catalog))
        assert await published(stores[0], catalog, embedder)
    finally:
        for store in stores:
            await store.aclose()


async def test_an_embedder_failing_twice_then_succeeding_completes_with_retries(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    embedder = FlakyEmbedder(failures=2)
    async with ReindexQueue(redis_url) as queue:
        await queue.enqueue(catalog, embedder)
    run = worker(ctx=job_ctx(store, embedder))
    async with asyncio.timeout(DEADLINE):
        assert await run.run_check() == 1
    assert (run.jobs_retried, run.jobs_failed) == (2, 0)
    assert embedder.calls == 3
    assert await published(store, catalog, embedder)


async def test_a_job_that_runs_out_of_retries_can_be_asked_again(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    """MAX_TRIES runs, the last one failing for good. arq records the failure with the
    worker's keep_result; ours keeps none, so the failed corpus is not blocked for an hour."""
    catalog = crm_catalog()
    always = FlakyEmbedder(failures=10**6)
    async with ReindexQueue(redis_url) as queue:
        assert await queue.enqueue(catalog, always)
        run = worker(ctx=job_ctx(store, always))
        async with asyncio.timeout(DEADLINE):
            await run.async_run()
        assert (run.jobs_failed, run.jobs_retried, always.calls) == (1, MAX_TRIES - 1, MAX_TRIES)
        assert not await published(store, catalog, always)
        assert await queue.enqueue(catalog, always) is True


async def test_an_unavailable_embedder_fails_at_once_and_can_be_asked_again(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    missing = FlakyEmbedder(10**6, EmbedderUnavailableError("no key configured", model_id="x"))
    async with ReindexQueue(redis_url) as queue:
        await queue.enqueue(catalog, missing)
        run = worker(ctx=job_ctx(store, missing))
        await run.async_run()
        assert (run.jobs_failed, run.jobs_retried, missing.calls) == (1, 0, 1)
        assert await queue.enqueue(catalog, missing) is True


async def test_a_worker_on_another_model_refuses_the_job(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    catalog = crm_catalog()
    asked = CountingEmbedder()
    asked.model_id = "gemini-embedding-001@768"
    async with ReindexQueue(redis_url) as queue:
        await queue.enqueue(catalog, asked)
    configured = CountingEmbedder()
    run = worker(ctx=job_ctx(store, configured))
    await run.async_run()
    assert run.jobs_failed == 1
    assert embedded(configured) == []


async def test_a_worker_killed_mid_reindex_publishes_nothing_and_a_rerun_completes(
    redis_url: str,
    database_url: str,
    store: VectorStore,
    worker: Callable[..., Worker],
    tmp_path: Path,
) -> None:
    """``arq`` in a subprocess embeds a few batches, stalls, and is SIGKILLed."""
    catalog = crm_with_examples()
    counting = CountingEmbedder()
    total = len(texts_of(catalog))
    async with ReindexQueue(redis_url) as queue:
        assert await queue.enqueue(catalog, counting)

    marker = tmp_path / "stalled"
    environment = {
        **os.environ,
        "TOOLRET_REDIS_URL": redis_url,
        "TOOLRET_DATABASE_URL": database_url,
        "TOOLRET_CATALOGS": "",
        "TOOLRET_TEST_STALL_AFTER": "3",
        "TOOLRET_TEST_STALL_MARKER": str(marker),
        "TOOLRET_JOB_TIMEOUT": str(KILLED_JOB_TIMEOUT),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arq",
        "tests.support.killed_worker.STALLING_SETTINGS",
        cwd=REPO,
        env=environment,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(DEADLINE):
            # stalled, and the batches before the stalled one written (each is written while
            # the model embeds the next)
            while not marker.exists() or await stored(store, catalog, counting) == 0:
                if process.returncode is not None:
                    stderr = await process.stderr.read() if process.stderr else b""
                    pytest.fail(f"the worker exited early: {stderr.decode()[-2000:]}")
                await asyncio.sleep(0.05)  # polling a file and the table with a deadline
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()

    written = await stored(store, catalog, counting)
    assert 0 < written < total, "the killed run committed some batches, not all"
    assert not await published(store, catalog, counting)

    # A killed worker cannot clear arq's in-progress marker: Redis expires it the job timeout
    # plus 10 s after the job started, and until then no worker takes the job.
    corpus_hash = catalog.corpus_hash(counting.model_id, counting.example_role)
    assert await marker_ttl(redis_url, reindex_job_id(counting.model_id, corpus_hash)) > 0

    run = worker(ctx=job_ctx(store, counting), poll_delay=0.5)
    async with asyncio.timeout(DEADLINE):
        assert await run.run_check() == 1  # polls until the marker expires, then runs the job
    assert len(embedded(counting)) == total - written, "the rerun picked up where it stopped"
    assert await published(store, catalog, counting)


# -- the deploy trigger ----------------------------------------------------------------------


async def test_the_deploy_trigger_indexes_configured_catalogs_at_startup(
    store: VectorStore, worker: Callable[..., Worker]
) -> None:
    embedder = CountingEmbedder()
    settings = Settings(TOOLRET_CATALOGS="tests.test_worker:deployed_catalog")
    run = worker(ctx={"store": store, "embedder": embedder, "settings": settings})
    async with asyncio.timeout(DEADLINE):
        assert await run.run_check() == 1
    catalog = deployed_catalog()
    assert await published(store, catalog, embedder)
    assert sorted(embedded(embedder)) == sorted(texts_of(catalog))
    assert [c.names for c in run.ctx["catalogs"]] == [catalog.names]


async def test_a_catalog_spec_that_cannot_be_loaded_stops_the_worker(
    store: VectorStore, worker: Callable[..., Worker]
) -> None:
    from toolret.errors import CatalogSourceError

    settings = Settings(TOOLRET_CATALOGS="tests.test_worker:no_such_catalog")
    run = worker(ctx={"store": store, "embedder": CountingEmbedder(), "settings": settings})
    with pytest.raises(CatalogSourceError, match="no_such_catalog"):
        await run.async_run()


async def test_startup_creates_and_shutdown_closes_what_the_worker_owns(
    redis_url: str, database_url: str
) -> None:
    from arq.connections import create_pool as arq_pool

    from toolret.errors import StoreError

    pool = await arq_pool(redis_settings(redis_url))
    ctx: dict[str, Any] = {"redis": pool, "settings": Settings(DATABASE_URL=database_url)}
    try:
        await startup(ctx)
        store, embedder = ctx["store"], ctx["embedder"]
        assert ctx["owned"] == [embedder, store]
        assert not await store.is_published(embedder.model_id, "0" * 64)
        await shutdown(ctx)
        assert ctx["owned"] == []
        with pytest.raises(StoreError, match="closed"):
            await store.is_published(embedder.model_id, "0" * 64)
    finally:
        await pool.aclose()


async def test_a_worker_without_a_database_refuses_to_start(worker: Callable[..., Worker]) -> None:
    from toolret.errors import ConfigurationError

    run = worker(ctx={"settings": Settings(DATABASE_URL=None), "embedder": CountingEmbedder()})
    with pytest.raises(ConfigurationError, match="DATABASE_URL"):
        await run.async_run()


# -- garbage collection ----------------------------------------------------------------------


async def _age(store: VectorStore, days: int, *, except_keys: Sequence[str] = ()) -> None:
    """Make every corpus and vector look ``days`` old: test data, written through SQL."""
    async with store.engine.begin() as connection:
        await connection.execute(
            text("UPDATE toolret_corpora SET last_seen_at = now() - make_interval(days => :d)"),
            {"d": days},
        )
        for table in ("toolret_vectors", "toolret_pending_vectors"):
            await connection.execute(
                text(
                    f"UPDATE {table} SET created_at = now() - make_interval(days => :d) "
                    "WHERE NOT (doc_key = ANY(:keep))"
                ),
                {"d": days, "keep": list(except_keys)},
            )


async def test_gc_removes_only_unreferenced_expired_vectors(store: VectorStore) -> None:
    """The current catalog is configured (the cron re-checks it); an older deployment's corpus
    has not been seen for eight days; one unpublished vector belongs to a reindex running now
    and one to a run abandoned eight days ago."""
    embedder = CountingEmbedder()
    current = crm_catalog()
    older = edited(current, "send_email", " Old wording.")
    await index_catalog(store, embedder, current)
    await index_catalog(store, embedder, older)
    fresh = edited(current, "create_view", " Being written now.")["create_view"].documents()[0]
    stale = edited(current, "create_task", " Abandoned.")["create_task"].documents()[0]
    vectors = await embedder.embed_documents([fresh.text, stale.text])
    await store.write(
        embedder.model_id,
        [
            VectorRow(doc.key, "tool", doc.role, doc.kind, doc.text, vector)
            for doc, vector in zip((fresh, stale), vectors, strict=True)
        ],
    )
    await _age(store, 8, except_keys=[fresh.key])

    settings = Settings(TOOLRET_CATALOGS=[])
    assert settings.gc_grace_days == 7
    result = await maintain(
        {"store": store, "embedder": embedder, "catalogs": [current], "settings": settings}
    )

    assert result["failed"] == 0
    assert (result["gc"].corpora, result["gc"].vectors) == (1, 2)
    assert await published(store, current, embedder)
    assert not await published(store, older, embedder)
    assert await stored(store, current, embedder) == len(texts_of(current))
    old = older["send_email"].documents()[0]
    keys = [old.key, fresh.key, stale.key]
    assert await store.missing(embedder.model_id, keys) == {old.key, stale.key}


async def test_gc_waits_when_a_configured_catalog_cannot_be_rechecked(
    store: VectorStore,
) -> None:
    counting = CountingEmbedder()
    older = crm_catalog()
    await index_catalog(store, counting, older)
    await _age(store, 30)
    broken = FlakyEmbedder(10**6)
    configured = edited(older, "send_email", " New wording.")
    result = await maintain(
        {
            "store": store,
            "embedder": broken,
            "catalogs": [configured],
            "settings": Settings(TOOLRET_CATALOGS=[]),
        }
    )
    assert result["failed"] == 1
    assert "gc" not in result
    assert await stored(store, older, counting) == len(texts_of(older))


# -- the client's not_indexed path -----------------------------------------------------------


async def test_the_clients_not_indexed_path_enqueues_one_job_and_sends_the_full_roster(
    redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    from toolret.retrieval._client import ToolRetrievalClient
    from toolret.retrieval._selection import Mode, Reason

    catalog = crm_catalog()
    embedder = CountingEmbedder()
    messages = ["delete the Acme company", "remind me to call Bob on Friday", "export contacts"]
    settings = Settings(TOOLRET_CATALOGS=[])
    # A generous time budget: the reason must be not_indexed, never a timeout on a busy machine.
    client = ToolRetrievalClient(
        store=store, embedder=embedder, redis_url=redis_url, k=3, settings=settings, time_budget=60
    )
    async with client:
        selections = await asyncio.gather(*(client.select(catalog, m) for m in messages))
        selections.append(await client.select(catalog, messages[0]))
        for selection in selections:
            assert (selection.mode, selection.reason) == (Mode.FULL, Reason.NOT_INDEXED)
            assert selection.tools == catalog.tools
        assert embedder.documents == [], "the request path never embeds a document"
        assert not await published(store, catalog, embedder), "select did not wait for indexing"
    # closing lets the background request finish

    pool = await create_pool(redis_settings(redis_url))
    try:
        jobs = await pool.queued_jobs(queue_name=QUEUE_NAME)
    finally:
        await pool.aclose()
    corpus_hash = catalog.corpus_hash(embedder.model_id, embedder.example_role)
    assert [job.job_id for job in jobs] == [reindex_job_id(embedder.model_id, corpus_hash)]

    assert await worker(ctx=job_ctx(store, embedder)).run_check() == 1
    async with ToolRetrievalClient(
        store=store, embedder=embedder, redis_url=redis_url, k=3, settings=settings, time_budget=60
    ) as client:
        selection = await client.select(catalog, messages[0])
    assert selection.mode == Mode.NARROWED
    assert "delete_record" in selection.names


# -- toolret reindex, from a deploy step -----------------------------------------------------


def test_toolret_reindex_enqueue_queues_one_job_per_corpus(redis_url: str) -> None:
    import redis
    from typer.testing import CliRunner

    from toolret.cli._app import app

    runner = CliRunner()
    environment = {"REDIS_URL": redis_url, "GEMINI_API_KEY": ""}
    arguments = [
        "reindex",
        "-c",
        "tests.support.tools:crm_catalog",
        "-c",
        "tests.test_worker:crm_with_examples",
    ]
    first = runner.invoke(app, [*arguments, "--enqueue"], env=environment)
    assert first.exit_code == 0, first.output
    assert first.output.count(": queued") == 2
    again = runner.invoke(app, [*arguments, "--enqueue"], env=environment)
    assert again.output.count(": already queued") == 2

    client = redis.Redis.from_url(redis_url)
    try:
        queued = {job_id.decode() for job_id in client.zrange(QUEUE_NAME, 0, -1)}
    finally:
        client.close()
    model_id = CountingEmbedder().model_id
    assert queued == {
        reindex_job_id(model_id, catalog.corpus_hash(model_id, CountingEmbedder().example_role))
        for catalog in (crm_catalog(), crm_with_examples())
    }


def test_toolret_reindex_inline_embeds_and_publishes(database_url: str) -> None:
    from typer.testing import CliRunner

    from toolret.cli._app import app

    runner = CliRunner()
    environment = {"DATABASE_URL": database_url, "GEMINI_API_KEY": ""}
    first = runner.invoke(
        app, ["reindex", "-c", "tests.support.tools:crm_catalog"], env=environment
    )
    assert first.exit_code == 0, first.output
    assert "11 documents, 11 embedded, published" in first.output
    again = runner.invoke(
        app, ["reindex", "-c", "tests.support.tools:crm_catalog"], env=environment
    )
    assert "0 embedded, already published" in again.output

    async def check() -> bool:
        async with VectorStore.from_url(database_url) as store:
            return await published(store, crm_catalog(), CountingEmbedder())

    assert asyncio.run(check())
