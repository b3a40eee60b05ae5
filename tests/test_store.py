"""The vector store against real Postgres + pgvector, with vectors constructed directly.

Vectors here are test data written through the store (random unit vectors), so rankings can be
compared with an exact numpy cosine ranking over the very same vectors.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
import pytest
from sqlalchemy import text

from tests.support.fixtures_pg import (
    exact_scores,
    publish_random,
    synthetic_catalog,
    unit_vectors,
    write_vectors,
)
from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE, LEARNED_MIN_SIMILARITY, MAX_SCORE, RetrievalProfile
from toolret._tool import Tool
from toolret.errors import CorpusIncompleteError, NotIndexedError
from toolret.feedback._learning import learned_key
from toolret.feedback._store import INSERT_LEARNED
from toolret.retrieval._selection import top_k
from toolret.store._migrate import head_revision
from toolret.store._pool import DEFAULT_EF_SEARCH
from toolret.store._schema import summary_index_name
from toolret.store._sql import CatalogQuery
from toolret.store._types import GCReport, VectorRow
from toolret.store._vector_store import VectorStore

MODEL = "test-model@384"
DIM = 384


def _query(catalog: Catalog, profile: RetrievalProfile = DEFAULT_PROFILE) -> CatalogQuery:
    return CatalogQuery.build(catalog, MODEL, "query", profile)


SCORES = {"blend": DEFAULT_PROFILE, "max": RetrievalProfile(score=MAX_SCORE)}


def _row(key: str, vector: np.ndarray, tool: str = "t") -> VectorRow:
    return VectorRow(key, tool, "document", "description", f"text of {key}", vector)


def _top(scores: dict[str, float], catalog: Catalog, k: int) -> list[str]:
    return top_k(catalog, scores, k)


async def test_writes_are_idempotent_and_missing_reports_what_has_no_vector(
    store: VectorStore,
) -> None:
    rng = np.random.default_rng(1)
    vectors = unit_vectors(rng, 4)
    keys = [f"{i:064x}" for i in range(4)]

    assert await store.missing(MODEL, keys) == set(keys)
    assert await store.write(MODEL, [_row(keys[0], vectors[0]), _row(keys[1], vectors[1])]) == 2
    assert await store.write(MODEL, [_row(keys[0], vectors[0]), _row(keys[1], vectors[1])]) == 0
    # A second write of the same key with another vector is a no-op, not an overwrite.
    assert await store.write(MODEL, [_row(keys[1], vectors[3]), _row(keys[2], vectors[2])]) == 1
    assert await store.missing(MODEL, keys) == {keys[3]}
    assert await store.missing("another-model@384", keys[:1]) == {keys[0]}

    connection = await asyncpg.connect(store_url(store))
    try:
        stored = await connection.fetchval(
            "SELECT embedding::real[] FROM toolret_pending_vectors WHERE doc_key = $1", keys[1]
        )
        served = await connection.fetchval("SELECT count(*) FROM toolret_vectors")
    finally:
        await connection.close()
    assert np.allclose(stored, vectors[1])
    assert served == 0  # nothing is served before a corpus containing it is published


async def test_publish_refuses_a_corpus_with_a_missing_vector(store: VectorStore) -> None:
    catalog = synthetic_catalog(6)
    vectors = {
        doc.key: vector
        for (_, doc), vector in zip(
            catalog.documents("query"),
            unit_vectors(np.random.default_rng(2), 6, DIM),
            strict=True,
        )
    }
    first_five = {doc.key for _, doc in catalog.documents("query")[:5]}
    await write_vectors(store, catalog, MODEL, vectors, keys=first_five)
    corpus = catalog.corpus_hash(MODEL, "query")
    membership = [(name, doc.key) for name, doc in catalog.documents("query")]

    with pytest.raises(CorpusIncompleteError) as refused:
        await store.publish(MODEL, corpus, membership)
    assert len(refused.value.missing) == 1
    assert not await store.is_published(MODEL, corpus)

    await write_vectors(store, catalog, MODEL, vectors)
    assert await store.publish(MODEL, corpus, membership) is True
    assert await store.is_published(MODEL, corpus)
    assert await store.publish(MODEL, corpus, membership) is False


async def test_a_reader_never_sees_a_half_written_corpus(store: VectorStore) -> None:
    catalog = synthetic_catalog(20, examples=2)
    rng = np.random.default_rng(3)
    documents = catalog.documents("query")
    vectors = dict(
        zip(
            [doc.key for _, doc in documents],
            unit_vectors(rng, len(documents), DIM),
            strict=True,
        )
    )
    query = _query(catalog)
    probe = unit_vectors(rng, 1)[0]
    await store.ensure_index(MODEL, DIM)

    halves = [doc.key for _, doc in documents]
    await write_vectors(store, catalog, MODEL, vectors, keys=set(halves[: len(halves) // 2]))
    with pytest.raises(NotIndexedError):
        await store.rank(query, probe, limit=5)
    await write_vectors(store, catalog, MODEL, vectors)
    with pytest.raises(NotIndexedError):  # every vector is written, none is published yet
        await store.rank(query, probe, limit=5)

    corpus = catalog.corpus_hash(MODEL, "query")
    await store.publish(MODEL, corpus, [(name, doc.key) for name, doc in documents])
    ranking = await store.rank(query, probe, limit=5)
    assert ranking.published
    assert ranking.unranked == ()
    assert len(ranking.scores) == 5


@pytest.mark.parametrize("score", sorted(SCORES))
@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_ranking_equals_an_exact_cosine_ranking(
    database_url: str, regime: str, score: str
) -> None:
    exact_limit = 10_000 if regime == "exact" else 0
    catalog = synthetic_catalog(60, examples=3, core=2)
    rng = np.random.default_rng(4)
    profile = SCORES[score]
    async with VectorStore.from_url(database_url, exact_limit=exact_limit) as store:
        vectors = await publish_random(store, catalog, MODEL, rng, score=profile.score)
        query = _query(catalog, profile)
        for probe in unit_vectors(rng, 10):
            expected = exact_scores(catalog, vectors, probe, score=profile.score)
            ranking = await store.rank(query, probe, limit=12)
            got = _top(ranking.scores, catalog, 12)
            want = _top(expected, catalog, 12)
            assert not set(ranking.scores) & {tool.name for tool in catalog.core}
            if regime == "exact":
                assert got == want
                for name in got:
                    assert ranking.scores[name] == pytest.approx(expected[name], abs=1e-5)
            else:  # approximate: never better than the truth, and almost always the same tools
                assert len(set(got) & set(want)) >= 11
                for name in got:
                    assert ranking.scores[name] <= expected[name] + 1e-5


@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_tools_asked_for_come_back_with_their_scores_wherever_they_rank(
    database_url: str, regime: str
) -> None:
    """``include``: hybrid ranking's lexical hits, scored even far below the best ``limit``."""
    exact_limit = 10_000 if regime == "exact" else 0
    catalog = synthetic_catalog(60, examples=2, core=2)
    rng = np.random.default_rng(8)
    async with VectorStore.from_url(database_url, exact_limit=exact_limit) as store:
        vectors = await publish_random(store, catalog, MODEL, rng)
        query = _query(catalog)
        probe = unit_vectors(rng, 1)[0]
        expected = exact_scores(catalog, vectors, probe)
        order = _top(expected, catalog, len(catalog.candidates))
        far = order[40:44]
        core = catalog.core[0].name
        ranking = await store.rank(query, probe, limit=5, include=[*far, core, "no_such_tool"])
        alone = await store.rank(query, probe, limit=0, include=far[:2])
    assert set(far) <= set(ranking.scores)
    assert core not in ranking.scores  # core tools are bound anyway, never ranked
    assert len(ranking.scores) <= 5 + len(far)
    for name in far:
        assert ranking.scores[name] == pytest.approx(expected[name], abs=1e-5)
    if regime == "exact":
        assert _top(ranking.scores, catalog, 5) == order[:5]
    assert set(alone.scores) == set(far[:2])


@pytest.mark.parametrize("score", sorted(SCORES))
@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_exactly_k_distinct_tools_come_back_when_tools_have_several_vectors(
    database_url: str, regime: str, score: str
) -> None:
    """The nearest 40 vectors belong to 10 tools; ranking still yields k distinct tools (the
    HNSW statement's first pass of 36 vectors holds only 9, so its second pass runs)."""
    exact_limit = 10_000 if regime == "exact" else 0
    catalog = synthetic_catalog(40, examples=3)
    rng = np.random.default_rng(5)
    probe = unit_vectors(rng, 1)[0]
    vectors: dict[str, np.ndarray] = {}
    for position, tool in enumerate(catalog.tools):
        for doc in tool.documents("query"):
            # Tools 0..9: all four vectors near the probe, decreasingly so; others: random.
            noise = unit_vectors(rng, 1)[0]
            weight = 0.95 - 0.02 * position if position < 10 else 0.0
            vector = weight * probe + (1 - weight) * noise
            vectors[doc.key] = (vector / np.linalg.norm(vector)).astype(np.float32)
    async with VectorStore.from_url(database_url, exact_limit=exact_limit) as store:
        await publish_random(store, catalog, MODEL, rng, vectors=vectors, score=SCORES[score].score)
        ranking = await store.rank(_query(catalog, SCORES[score]), probe, limit=12)
    assert len(ranking.scores) >= 12
    chosen = _top(ranking.scores, catalog, 12)
    assert len(chosen) == len(set(chosen)) == 12
    assert chosen[:10] == [f"tool_{i}" for i in range(10)]


@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_only_the_catalogs_own_tools_are_ranked(database_url: str, regime: str) -> None:
    exact_limit = 10_000 if regime == "exact" else 0
    mine = synthetic_catalog(15, prefix="mine")
    theirs = synthetic_catalog(15, prefix="theirs")
    rng = np.random.default_rng(6)
    async with VectorStore.from_url(database_url, exact_limit=exact_limit) as store:
        await publish_random(store, mine, MODEL, rng)
        their_vectors = await publish_random(store, theirs, MODEL, rng)
        probe = next(iter(their_vectors.values()))  # exactly one of their tools
        ranking = await store.rank(_query(mine), probe, limit=12)
    assert ranking.scores
    assert all(name.startswith("mine_") for name in ranking.scores)


async def test_a_tool_without_a_published_vector_is_bound_unranked(store: VectorStore) -> None:
    """Version 2 of a catalog is not published yet: the edited tool is unranked, not dropped."""
    version1 = synthetic_catalog(12, examples=1)
    tools = list(version1.tools)
    tools[3] = Tool(tools[3].name, "An edited description of tool three, not yet embedded.")
    tools.append(Tool("brand_new", "A tool added in version two that has no vector at all yet."))
    version2 = Catalog(tools)
    rng = np.random.default_rng(7)
    await publish_random(store, version1, MODEL, rng)

    ranking = await store.rank(_query(version2), unit_vectors(rng, 1)[0], limit=5)
    assert set(ranking.unranked) == {"tool_3", "brand_new"}
    assert not set(ranking.unranked) & set(ranking.scores)
    assert len(ranking.scores) == 5
    assert not ranking.published


@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_tools_asked_for_in_an_unpublished_version_are_bound_unranked(
    database_url: str, regime: str
) -> None:
    """The index finds nothing for a corpus not yet published; the exact statement still ranks
    what earlier versions hold, the tools asked for among them."""
    version1 = synthetic_catalog(12, examples=1)
    tools = list(version1.tools)
    tools.append(Tool("brand_new", "A tool added in version two that has no vector at all yet."))
    version2 = Catalog(tools)
    rng = np.random.default_rng(9)
    async with VectorStore.from_url(
        database_url, exact_limit=10_000 if regime == "exact" else 0
    ) as store:
        await publish_random(store, version1, MODEL, rng)
        ranking = await store.rank(
            _query(version2), unit_vectors(rng, 1)[0], limit=3, include=["tool_9", "brand_new"]
        )
    assert "tool_9" in ranking.scores
    assert ranking.unranked == ("brand_new",)
    assert not ranking.published


async def test_an_empty_table_is_not_indexed(store: VectorStore) -> None:
    catalog = synthetic_catalog(20)
    with pytest.raises(NotIndexedError) as raised:
        await store.rank(_query(catalog), np.ones(DIM, np.float32) / DIM**0.5, limit=5)
    assert raised.value.corpus_hash == catalog.corpus_hash(MODEL, "query")
    assert raised.value.model_id == MODEL


async def test_register_records_the_corpus_unpublished(store: VectorStore) -> None:
    catalog = synthetic_catalog(3, examples=1)
    corpus = catalog.corpus_hash(MODEL, "query")
    membership = [(name, doc.key) for name, doc in catalog.documents("query")]
    assert await store.register(MODEL, corpus, membership) is False
    assert await store.register(MODEL, corpus, membership) is False


async def test_gc_removes_only_unreferenced_expired_vectors(store: VectorStore) -> None:
    old = synthetic_catalog(4, prefix="old")
    kept = synthetic_catalog(4, prefix="kept")
    rng = np.random.default_rng(8)
    await publish_random(store, old, MODEL, rng)
    await publish_random(store, kept, MODEL, rng)
    stray = unit_vectors(rng, 1)[0]
    await store.write(MODEL, [_row("f" * 64, stray)])  # written, never part of a corpus

    # Nothing is older than a week yet.
    assert await store.gc(timedelta(days=7)) == GCReport(corpora=0, vectors=0)

    # Eight days later, only the kept corpus was seen again.
    later = datetime.now(UTC) + timedelta(days=8)
    connection = await asyncpg.connect(store_url(store))
    try:
        await connection.execute(
            "UPDATE toolret_corpora SET last_seen_at = $1 WHERE corpus_hash = $2",
            later,
            kept.corpus_hash(MODEL, "query"),
        )
    finally:
        await connection.close()
    report = await store.gc(timedelta(days=7), now=later)
    assert (report.corpora, report.vectors) == (1, 5)
    assert await store.is_published(MODEL, kept.corpus_hash(MODEL, "query"))
    assert not await store.is_published(MODEL, old.corpus_hash(MODEL, "query"))
    ranking = await store.rank(_query(kept), stray, limit=2)
    assert len(ranking.scores) == 2
    with pytest.raises(NotIndexedError):
        await store.rank(_query(old), stray, limit=2)


async def test_the_indexing_lock_excludes_a_second_holder(database_url: str) -> None:
    """Two stores (two machines): the second waits until the first releases the lock."""
    async with (
        VectorStore.from_url(database_url) as first,
        VectorStore.from_url(database_url) as second,
    ):
        order: list[str] = []
        released = asyncio.Event()

        async def hold() -> None:
            async with first.lock(MODEL, "corpus"):
                order.append("first")
                await released.wait()
                order.append("first released")

        async def wait_then_hold() -> None:
            async with second.lock(MODEL, "corpus"):
                order.append("second")

        holder = asyncio.create_task(hold())
        await _until(lambda: order == ["first"])
        waiter = asyncio.create_task(wait_then_hold())
        await _until_async(lambda: _advisory_waiters(database_url), lambda n: n == 1)
        assert order == ["first"]
        released.set()
        await asyncio.gather(holder, waiter)
        assert order == ["first", "first released", "second"]

        async with first.lock(MODEL, "another corpus"), second.lock(MODEL, "a third"):
            pass  # different corpora never wait for each other


async def test_status_reports_models_corpora_rows_and_index(store: VectorStore) -> None:
    catalog = synthetic_catalog(5, examples=1)
    await publish_random(store, catalog, MODEL, np.random.default_rng(9))
    status = await store.status()
    assert status.revision == head_revision()
    (model,) = status.models
    assert (model.model_id, model.dimension, model.vectors, model.pending_vectors) == (
        MODEL,
        DIM,
        10,
        0,
    )
    assert (model.corpora, model.published_corpora) == (1, 1)
    assert model.index == summary_index_name(MODEL)  # a blended score: its summaries
    assert model.last_seen is not None


async def test_store_connections_use_iterative_hnsw_scans(store: VectorStore) -> None:
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        assert await connection.fetchval("SHOW hnsw.iterative_scan") == "relaxed_order"
        assert int(await connection.fetchval("SHOW hnsw.ef_search")) == DEFAULT_EF_SEARCH
        assert await connection.fetchval("SHOW jit") == "off"
    finally:
        proxied.close()


def store_url(store: VectorStore) -> str:
    """The store's URL in asyncpg's own form."""
    return store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


async def _advisory_waiters(database_url: str) -> int:
    connection = await asyncpg.connect(database_url)
    try:
        count = await connection.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        )
        return int(count)
    finally:
        await connection.close()


async def _until(condition: object, deadline: float = 10.0) -> None:
    assert callable(condition)
    stop = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < stop, "condition not met before the deadline"
        await asyncio.sleep(0.01)  # polling a condition with a deadline


async def _until_async(probe: object, accept: object, deadline: float = 10.0) -> None:
    assert callable(probe)
    assert callable(accept)
    stop = time.monotonic() + deadline
    while not accept(await probe()):
        assert time.monotonic() < stop, "condition not met before the deadline"
        await asyncio.sleep(0.01)  # polling a condition with a deadline


@pytest.mark.parametrize("score", sorted(SCORES))
@pytest.mark.parametrize("regime", ["exact", "hnsw"])
async def test_a_learned_vector_near_the_message_counts_as_an_example(
    database_url: str, regime: str, score: str
) -> None:
    """A learned vector within ``LEARNED_MIN_SIMILARITY`` of the message joins its tool's
    examples (blend: among the best examples it averages; max: its best vector), in both
    statements; one beyond the gate counts for nothing."""
    exact_limit = 10_000 if regime == "exact" else 0
    catalog = synthetic_catalog(30, examples=2)
    rng = np.random.default_rng(12)
    profile = SCORES[score]
    probe = unit_vectors(rng, 1)[0]
    near = probe + 0.2 * unit_vectors(rng, 1)[0]
    near = (near / np.linalg.norm(near)).astype(np.float32)
    far = unit_vectors(rng, 1)[0]  # a random direction: far below the gate
    assert float(near @ probe) >= LEARNED_MIN_SIMILARITY > float(far @ probe)
    query = _query(catalog, profile)
    async with VectorStore.from_url(database_url, exact_limit=exact_limit) as store:
        vectors = await publish_random(store, catalog, MODEL, rng, score=profile.score)
        learned = {"tool_7": near, "tool_9": far}
        async with store.engine.begin() as connection:
            for tool, vector in learned.items():
                await connection.execute(
                    text(INSERT_LEARNED),
                    {
                        "model": MODEL,
                        "corpus": query.corpus_hash,
                        "key": learned_key(MODEL, vector),
                        "tool": tool,
                        "dimension": len(vector),
                        "embedding": vector,
                        "turn": None,
                    },
                )
        ranking = await store.rank(query, probe, limit=5)
    expected = exact_scores(catalog, vectors, probe, score=profile.score)
    (tool_7,) = [tool for tool in catalog.tools if tool.name == "tool_7"]
    cosines = {doc.kind + doc.key: float(vectors[doc.key] @ probe) for doc in tool_7.documents()}
    description = next(c for key, c in cosines.items() if key.startswith("description"))
    examples = sorted([c for key, c in cosines.items() if key.startswith("example")])
    examples = sorted([*examples, float(near @ probe)], reverse=True)
    if profile.score.kind == "max":
        expected["tool_7"] = max(description, *examples)
    else:
        best = examples[: profile.score.examples]
        weight = profile.score.description_weight
        expected["tool_7"] = weight * description + (1 - weight) * sum(best) / len(best)
    assert _top(ranking.scores, catalog, 1) == ["tool_7"]
    assert ranking.scores["tool_7"] == pytest.approx(expected["tool_7"], abs=1e-5)
    assert "tool_9" not in ranking.scores or ranking.scores["tool_9"] == pytest.approx(
        expected["tool_9"], abs=1e-5
    )
