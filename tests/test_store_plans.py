"""Query plans at 10,000 rows, for the statements exactly as the store prepares them.

One database per module holds 10,000 published tools (one vector each, random unit vectors of
the bundled model's dimension). Three catalogs are asked about:

- ``big``: all 10,000 tools — ranked through the model's HNSW index;
- ``half``: 5,000 of them, its own published corpus — HNSW filtered to half the rows, where a
  scan without iterative search silently returns fewer rows than asked for;
- ``workspace``: 44 of them — primary-key lookups plus an exact sort.

Another model's 10,000 tools carry an example each (20,000 vectors; each example near its
tool's description, as real examples are): the blended score's statement, which scans the
tools' summary vectors (``tests/test_store_summaries.py`` checks it against numpy).

After the store has run a statement several times on its only pooled connection, the test
finds that prepared statement in ``pg_prepared_statements`` and EXPLAINs it by name, with the
plan cache forced to the generic plan (what a long-lived connection ends up using).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text

from tests.support.fixtures_pg import (
    PgServer,
    exact_scores,
    publish_random,
    synthetic_catalog,
    unit_vectors,
)
from toolret._catalog import Catalog
from toolret.retrieval._selection import top_k
from toolret.store._schema import summary_index_name
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

MODEL = "plans-model@384"
DIM = 384
ROWS = 10_000
BIG = synthetic_catalog(ROWS)
HALF = Catalog(BIG.tools[: ROWS // 2])
WORKSPACE = Catalog(BIG.tools[1000:1044])
EXAMPLES_MODEL = "plans-examples-model@384"
WITH_EXAMPLES = synthetic_catalog(ROWS, examples=1, prefix="ex")
Vectors = dict[str, np.ndarray]


def _near_their_descriptions(catalog: Catalog, rng: np.random.Generator) -> Vectors:
    """A random vector per description, and each example a perturbation of its description."""
    documents = [tool.documents("query") for tool in catalog.tools]
    bases = unit_vectors(rng, len(documents), DIM)
    noise = iter(unit_vectors(rng, sum(len(docs) - 1 for docs in documents), DIM))
    vectors: Vectors = {}
    for (description, *examples), base in zip(documents, bases, strict=True):
        vectors[description.key] = base
        for example in examples:
            mixed = 0.8 * base + 0.6 * next(noise)
            vectors[example.key] = (mixed / np.linalg.norm(mixed)).astype(np.float32)
    return vectors


async def _load(url: str) -> tuple[Vectors, Vectors]:
    async with VectorStore.from_url(url) as store:
        vectors = await publish_random(store, BIG, MODEL, np.random.default_rng(10))
        await publish_random(store, HALF, MODEL, np.random.default_rng(11), vectors=vectors)
        rng = np.random.default_rng(16)
        examples = _near_their_descriptions(WITH_EXAMPLES, rng)
        await publish_random(store, WITH_EXAMPLES, EXAMPLES_MODEL, rng, vectors=examples)
    return vectors, examples


@pytest.fixture(scope="module")
def databases(pg_server: PgServer, pg_template: str) -> Iterator[tuple[str, Vectors, Vectors]]:
    """A database with the four catalogs published (built once for this module)."""
    name = f"toolret_plans_{uuid.uuid4().hex[:8]}"
    janitor = pg_server.janitor(name, template=pg_template)
    janitor.init()
    url = pg_server.url(name)
    result: list[tuple[Vectors, Vectors]] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(_load(url))))
    thread.start()
    thread.join()
    try:
        yield url, *result[0]
    finally:
        janitor.drop()


@pytest.fixture(scope="module")
def loaded(databases: tuple[str, Vectors, Vectors]) -> tuple[str, Vectors]:
    """The database, and the vectors of the one-vector-per-tool catalogs."""
    return databases[0], databases[1]


def _literal(values: list[Any]) -> str:
    return "'{" + ",".join(str(value) for value in values) + "}'"


def _vector(values: np.ndarray) -> str:
    return "'[" + ",".join(str(float(value)) for value in values) + "]'"


async def _prepared_plan(store: VectorStore, marker: str, arguments: list[str]) -> tuple[str, int]:
    """EXPLAIN the store's own prepared statement containing ``marker``, generic plan."""
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        rows = await connection.fetch(
            "SELECT name, generic_plans + custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE '%' || $1 || '%' AND statement NOT LIKE '%pg_prepared%'",
            marker,
        )
        assert len(rows) == 1, rows
        name, runs = rows[0]
        await connection.execute("SET plan_cache_mode = force_generic_plan")
        plan = await connection.fetch(f"EXPLAIN (COSTS OFF) EXECUTE {name}({', '.join(arguments)})")
        await connection.execute("RESET plan_cache_mode")
        return "\n".join(row[0] for row in plan), int(runs)
    finally:
        proxied.close()


async def test_a_large_catalog_is_ranked_through_the_summary_index(
    loaded: tuple[str, dict[str, np.ndarray]],
) -> None:
    url, _vectors = loaded
    probes = unit_vectors(np.random.default_rng(12), 8, DIM)
    query = CatalogQuery.build(BIG, MODEL, "query")
    async with VectorStore.from_url(url, pool_size=1, max_overflow=0) as store:
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            assert len(ranking.scores) == 12
            assert ranking.published
        plan, runs = await _prepared_plan(
            store,
            "nearest_1 AS MATERIALIZED",
            [_vector(probes[0]), f"'{query.corpus_hash}'", "'{}'"],
        )
    assert runs >= len(probes)
    # a tool without examples is summarized by its description: one index per model
    assert f"Index Scan using {summary_index_name(MODEL)} on toolret_summary_vectors" in plan
    assert "Seq Scan on toolret_summary_vectors" not in plan
    assert "Sort Key: ((s.embedding" not in plan  # no exact sort of the whole table


async def test_a_small_catalog_in_a_large_table_is_looked_up_by_key_and_sorted_exactly(
    loaded: tuple[str, dict[str, np.ndarray]],
) -> None:
    url, vectors = loaded
    probes = unit_vectors(np.random.default_rng(13), 8, DIM)
    query = CatalogQuery.build(WORKSPACE, MODEL, "query")
    async with VectorStore.from_url(url, pool_size=1, max_overflow=0) as store:
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            expected = exact_scores(WORKSPACE, vectors, probe)
            assert top_k(WORKSPACE, ranking.scores, 12) == top_k(WORKSPACE, expected, 12)
            assert not ranking.published  # a workspace subset: served from the big corpus
        plan, _ = await _prepared_plan(
            store,
            "unnest(",  # not registered: the documents travel as arrays (exact_sql)
            [
                _vector(probes[0]),
                _literal(list(query.tools)),
                _literal(list(query.keys)),
                "12",
                f"'{query.corpus_hash}'",
            ],
        )
    assert "Index Scan using toolret_vectors_doc_key_hash on toolret_vectors" in plan
    assert "Seq Scan on toolret_vectors" not in plan
    assert summary_index_name(MODEL) not in plan


async def test_a_registered_small_catalog_in_a_large_table_reads_only_its_own_vectors(
    loaded: tuple[str, dict[str, np.ndarray]],
) -> None:
    """Its documents read from its corpus (``toolret.store._member_sql``), not sent: published,
    from its copy of their vectors (one range scan of the copies' primary key among 8,000
    rows of other copies, by a statement with nothing else in it); not copied, a key lookup per
    document. Never a scan of the 10,000 vectors, nor of every copy."""
    url, vectors = loaded
    workspace = Catalog(BIG.tools[2000:2044])
    probes = unit_vectors(np.random.default_rng(17), 8, DIM)
    query = CatalogQuery.build(workspace, MODEL, "query")
    async with VectorStore.from_url(url, pool_size=1, max_overflow=0) as store:
        for start in range(3000, 11_000, 800):  # other small corpora, copied
            other = Catalog(BIG.tools[start : start + 800])
            await publish_random(store, other, MODEL, np.random.default_rng(19), vectors=vectors)
        await publish_random(store, workspace, MODEL, np.random.default_rng(18), vectors=vectors)
        arguments = [_vector(probes[0]), f"'{query.corpus_hash}'", "'{}'", "12", "'{}'"]
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            expected = exact_scores(workspace, vectors, probe)
            assert top_k(workspace, ranking.scores, 12) == top_k(workspace, expected, 12)
            assert ranking.published
        copied, runs = await _prepared_plan(store, "its vectors in its rows", arguments)
        assert runs >= len(probes)
        async with store.transaction() as connection:  # as published before migration 0010
            await connection.execute(
                text("UPDATE toolret_corpora SET copied = false WHERE corpus_hash = :hash"),
                {"hash": query.corpus_hash},
            )
        store.without_copy.clear()
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            expected = exact_scores(workspace, vectors, probe)
            assert top_k(workspace, ranking.scores, 12) == top_k(workspace, expected, 12)
        probed, runs = await _prepared_plan(store, "LEFT JOIN LATERAL", arguments)
        assert runs >= len(probes)
    assert "Scan on toolret_corpus_vectors_pkey" in copied or (
        "Scan using toolret_corpus_vectors_pkey" in copied
    )  # a range of the key, by corpus (plain or bitmap)
    assert "Seq Scan on toolret_corpus_vectors" not in copied
    assert "toolret_vectors " not in copied
    assert "toolret_corpus_documents" not in copied
    assert "Index Scan using toolret_vectors_doc_key_hash on toolret_vectors" in probed
    assert "Seq Scan on toolret_vectors" not in probed
    assert "unnest" not in copied + probed


async def test_a_filtered_hnsw_scan_returns_every_row_asked_for(
    loaded: tuple[str, dict[str, np.ndarray]],
) -> None:
    """Half the table's rows belong to the catalog: 12 tools still come back, the right ones."""
    url, vectors = loaded
    query = CatalogQuery.build(HALF, MODEL, "query")
    hits = 0
    probes = unit_vectors(np.random.default_rng(14), 20, DIM)
    async with VectorStore.from_url(url) as store:
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            assert len(ranking.scores) == 12
            assert all(name in HALF for name in ranking.scores)
            expected = top_k(HALF, exact_scores(HALF, vectors, probe), 12)
            hits += len(set(ranking.scores) & set(expected))
    assert hits / (12 * len(probes)) >= 0.9


async def test_hnsw_recall_against_exact_ranking_at_10000_rows(
    loaded: tuple[str, dict[str, np.ndarray]],
) -> None:
    url, vectors = loaded
    query = CatalogQuery.build(BIG, MODEL, "query")
    keys = np.array([tool.documents("query")[0].key for tool in BIG.tools])
    matrix = np.stack([vectors[key] for key in keys])
    names = [tool.name for tool in BIG.tools]
    hits = 0
    probes = unit_vectors(np.random.default_rng(15), 20, DIM)
    async with VectorStore.from_url(url) as store:
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            expected = {names[i] for i in np.argsort(-(matrix @ probe))[:12]}
            hits += len(set(top_k(BIG, ranking.scores, 12)) & expected)
    assert hits / (12 * len(probes)) >= 0.95


async def test_a_blended_score_at_10000_tools_is_one_indexed_statement(
    databases: tuple[str, Vectors, Vectors],
) -> None:
    """Tools come from the HNSW index over summary vectors, filtered by the corpus's summaries
    (an index probe); a tool scored from its documents finds them by (corpus, tool); no table
    is scanned or sorted whole."""
    url, _, _ = databases
    query = CatalogQuery.build(WITH_EXAMPLES, EXAMPLES_MODEL, "query")
    assert query.score.kind == "blend"
    probes = unit_vectors(np.random.default_rng(17), 8, DIM)
    async with VectorStore.from_url(url, pool_size=1, max_overflow=0) as store:
        for probe in probes:
            ranking = await store.rank(query, probe, limit=12)
            assert len(ranking.scores) == 12
            assert ranking.published
        plan, runs = await _prepared_plan(
            store,
            "nearest_1 AS MATERIALIZED",
            [_vector(probes[0]), f"'{query.corpus_hash}'", "'{}'"],
        )
    assert runs >= len(probes)
    summaries = summary_index_name(EXAMPLES_MODEL)
    assert f"Index Scan using {summaries} on toolret_summary_vectors" in plan
    assert "toolret_corpus_summaries_pkey" in plan  # the corpus's summaries, probed
    assert "toolret_corpus_documents_tool" in plan  # a rescored tool's documents, by tool
    for table in ("toolret_vectors", "toolret_summary_vectors", "toolret_corpus_documents"):
        assert f"Seq Scan on {table}" not in plan
    assert "Sort Key: ((v.embedding" not in plan
    assert "Sort Key: ((s.embedding" not in plan


async def test_a_blended_score_at_10000_tools_matches_the_exact_ranking(
    databases: tuple[str, Vectors, Vectors],
) -> None:
    """Exactly 12 distinct tools, the same as the exact blended ranking (but for what the
    approximate index misses), each with its exact score."""
    url, _, vectors = databases
    query = CatalogQuery.build(WITH_EXAMPLES, EXAMPLES_MODEL, "query")
    weight = query.score.description_weight
    documents = [tool.documents("query") for tool in WITH_EXAMPLES.tools]
    described = np.stack([vectors[docs[0].key] for docs in documents])
    exemplified = np.stack([[vectors[doc.key] for doc in docs[1:]] for docs in documents])
    names = [tool.name for tool in WITH_EXAMPLES.tools]
    rng = np.random.default_rng(18)
    # Probes near a tool's example, as messages are, and some anywhere.
    near = exemplified[rng.choice(len(names), 15, replace=False), 0] * 0.9
    near += 0.3 * unit_vectors(rng, 15, DIM)
    probes = [*(near / np.linalg.norm(near, axis=1, keepdims=True)), *unit_vectors(rng, 5, DIM)]
    hits = 0
    async with VectorStore.from_url(url) as store:
        for probe in probes:
            ranking = await store.rank(query, probe.astype(np.float32), limit=12)
            blended = weight * (described @ probe) + (1 - weight) * (exemplified @ probe).mean(1)
            expected = dict(zip(names, blended.tolist(), strict=True))
            got = top_k(WITH_EXAMPLES, ranking.scores, 12)
            assert len(got) == len(set(got)) == 12
            for name in got:
                assert ranking.scores[name] == pytest.approx(expected[name], abs=1e-5)
            hits += len(set(got) & set(top_k(WITH_EXAMPLES, expected, 12)))
    assert hits / (12 * len(probes)) >= 0.95
