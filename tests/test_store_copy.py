"""A small published corpus's vectors copied into its own rows (``toolret_corpus_vectors``,
migration 0010): its exact ranking reads them in one scan, no ``toolret_vectors`` row per
document, and returns what the per-document probes return."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from tests.support.fixtures_pg import publish_random, synthetic_catalog, unit_vectors
from toolret._profile import ToolScore
from toolret.store._migrate import downgrade_database, upgrade_database
from toolret.store._read import copy_statement, member_statement
from toolret.store._sql import COPY_LIMIT, CatalogQuery
from toolret.store._types import CorpusIncompleteError
from toolret.store._vector_store import VectorStore

MODEL = "copy-model@384"


def _rows(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in rows)


def _relations(plan: dict[str, Any]) -> set[str]:
    """Every relation a node of ``plan`` reads, executed or not."""
    found = {plan["Relation Name"]} if "Relation Name" in plan else set()
    for child in plan.get("Plans", ()):
        found |= _relations(child)
    return found


def _loops(plan: dict[str, Any], relation: str) -> list[tuple[int, float]]:
    """(loops, rows) of every node of ``plan`` that reads ``relation``."""
    found = []
    if plan.get("Relation Name") == relation:
        found.append((plan["Actual Loops"], plan["Actual Rows"]))
    for child in plan.get("Plans", ()):
        found.extend(_loops(child, relation))
    return found


async def _ranked(connection: Any, query: CatalogQuery, probe: np.ndarray, named: list[str]) -> Any:
    member = member_statement(MODEL, 384, query.score)
    arguments = member.arguments(
        query=probe,
        corpus_hash=query.corpus_hash,
        skip=sorted(query.core | query.outside),
        limit=12,
        named=named,
    )
    rows = await connection.fetch(member.sql, *arguments)
    explained = await connection.fetchval(
        "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + member.sql, *arguments
    )
    plans = json.loads(explained) if isinstance(explained, str) else explained  # a codec's
    return rows, plans[0]["Plan"]


async def test_a_published_small_corpus_is_ranked_from_its_copy_as_by_probes(
    store: VectorStore,
) -> None:
    catalog = synthetic_catalog(40, examples=3, core=2)
    rng = np.random.default_rng(31)
    await publish_random(store, catalog, MODEL, rng)
    probes = unit_vectors(rng, 3, 384)
    cut = catalog.only([tool.name for tool in catalog.tools[:25]])  # a caller's allowed tools
    whole = CatalogQuery.build(catalog, MODEL, "query")
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        copied, documents = await connection.fetchrow(
            "SELECT copied, documents FROM toolret_corpora WHERE corpus_hash = $1",
            whole.corpus_hash,
        )
        assert copied
        assert documents == len(catalog.documents("query")) <= COPY_LIMIT
        count = "SELECT count(*) FROM toolret_corpus_vectors"
        assert await connection.fetchval(count) == documents
        # learned example vectors, at the first probe: a candidate's counts, a core tool's not
        core = sorted(whole.core)[0]
        learned = sorted(whole.candidates)[20]  # not named
        for tool, key in ((learned, "l" * 64), (core, "m" * 64)):
            await connection.execute(
                "INSERT INTO toolret_learned_vectors "
                "(model_id, corpus_hash, doc_key, tool_name, dimension, embedding) "
                "VALUES ($1, $2, $3, $4, 384, $5)",
                MODEL,
                whole.corpus_hash,
                key,
                tool,
                probes[0],
            )
        asked: dict[tuple[int, int], Any] = {}
        for c, each in enumerate((catalog, cut)):
            query = CatalogQuery.build(each, MODEL, "query")
            named = sorted(query.candidates)[3:10]
            for i, probe in enumerate(probes):
                rows, plan = await _ranked(connection, query, probe, named)
                assert len(rows) == 12 + len(named)
                assert all(loops == 0 for loops, _ in _loops(plan, "toolret_vectors"))
                assert _loops(plan, "toolret_corpus_vectors") == [(1, query.documents)]
                asked[c, i] = rows
        ranked = {row["tool_name"] for row in asked[0, 0] if row["ranked"]}
        assert learned in ranked  # its learned vector is the probe itself
        assert core not in {row["tool_name"] for rows in asked.values() for row in rows}

        await connection.execute("UPDATE toolret_corpora SET copied = false")  # as before 0010
        for c, each in enumerate((catalog, cut)):
            query = CatalogQuery.build(each, MODEL, "query")
            named = sorted(query.candidates)[3:10]
            for i, probe in enumerate(probes):
                rows, plan = await _ranked(connection, query, probe, named)
                assert _rows(rows) == _rows(asked[c, i])
                assert sum(loops for loops, _ in _loops(plan, "toolret_vectors")) > 0
    finally:
        proxied.close()


async def test_a_corpus_past_the_copy_limit_or_refused_has_no_copy_and_gc_drops_it(
    store: VectorStore,
) -> None:
    large = synthetic_catalog(COPY_LIMIT // 4 + 1, examples=3, prefix="large")
    small = synthetic_catalog(10, prefix="small")
    rng = np.random.default_rng(32)
    await publish_random(store, large, MODEL, rng)
    await publish_random(store, small, MODEL, rng)
    incomplete = synthetic_catalog(11, prefix="small")  # small_10 has no vector
    pairs = [(name, doc.key) for name, doc in incomplete.documents("query")]
    with pytest.raises(CorpusIncompleteError):
        await store.publish(MODEL, incomplete.corpus_hash(MODEL, "query"), pairs)

    async def copies() -> dict[str, tuple[bool, int]]:
        proxied = await store.engine.raw_connection()
        try:
            connection = proxied.driver_connection
            assert connection is not None
            rows = await connection.fetch(
                "SELECT c.corpus_hash, c.copied, count(v.corpus_id) FROM toolret_corpora c "
                "LEFT JOIN toolret_corpus_vectors v ON v.corpus_id = c.id GROUP BY c.id"
            )
        finally:
            proxied.close()
        return {row[0]: (row[1], row[2]) for row in rows}

    hashes = [each.corpus_hash(MODEL, "query") for each in (large, small, incomplete)]
    assert len(large.documents("query")) > COPY_LIMIT
    assert await copies() == {
        hashes[0]: (False, 0),
        hashes[1]: (True, len(small.documents("query"))),
    }  # the refused publication left neither its corpus row nor a copy
    await store.gc(timedelta(0))
    assert await copies() == {}


async def test_a_database_one_migration_behind_publishes_and_ranks_without_copies(
    database_url: str,
) -> None:
    """Before migration 0010 (the application upgraded before the database): a corpus is
    published without a copy and ranked by probes, instead of every selection falling open on
    the missing table; once migrated, the same corpus is ranked from the copy 0010 made of it,
    with the same scores."""
    catalog = synthetic_catalog(30, examples=2, core=1)
    query = CatalogQuery.build(catalog, MODEL, "query")
    probe = unit_vectors(np.random.default_rng(33), 1, 384)[0]
    await asyncio.to_thread(downgrade_database, database_url, "0009")
    behind = VectorStore.from_url(database_url)
    try:
        await publish_random(behind, catalog, MODEL, np.random.default_rng(34))
        ranked = await behind.rank(query, probe, limit=8)
    finally:
        await behind.aclose()
    assert behind.copies is False

    await asyncio.to_thread(upgrade_database, database_url)
    migrated = VectorStore.from_url(database_url)
    try:
        copied = await migrated.rank(query, probe, limit=8)
        assert migrated.copies is True
        proxied = await migrated.engine.raw_connection()
        try:
            connection = proxied.driver_connection
            assert connection is not None
            assert await connection.fetchval("SELECT bool_and(copied) FROM toolret_corpora")
        finally:
            proxied.close()
    finally:
        await migrated.aclose()
    assert list(ranked.scores) == list(copied.scores)
    assert np.allclose(list(ranked.scores.values()), list(copied.scores.values()), atol=1e-6)


async def test_a_copied_corpus_is_ranked_by_a_statement_that_reads_only_its_copy(
    store: VectorStore,
) -> None:
    """The store asks a corpus's copy alone first (``copy_sql``): its plan holds nothing of the
    probes, and its rows are the rows of the statement that reads either branch. A corpus without
    a copy then falls to that statement, with the same scores, and is remembered so (one
    statement a selection, not two)."""
    catalog = synthetic_catalog(30, examples=3, core=1)
    rng = np.random.default_rng(35)
    await publish_random(store, catalog, MODEL, rng)
    query = CatalogQuery.build(catalog, MODEL, "query")
    probe = unit_vectors(rng, 1, 384)[0]
    named = sorted(query.candidates)[2:6]
    corpus = (MODEL, query.corpus_hash)
    copied = await store.rank(query, probe, limit=8, include=named)
    assert corpus not in store.without_copy
    copy = copy_statement(MODEL, 384, query.score)
    member = member_statement(MODEL, 384, query.score)
    values = {
        "query": probe,
        "corpus_hash": query.corpus_hash,
        "skip": sorted(query.core),
        "limit": 8,
        "named": named,
    }
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        rows = await connection.fetch(copy.sql, *copy.arguments(**values))
        assert _rows(rows) == _rows(await connection.fetch(member.sql, *member.arguments(**values)))
        explained = await connection.fetchval(
            "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + copy.sql, *copy.arguments(**values)
        )
        plans = json.loads(explained) if isinstance(explained, str) else explained
        assert _relations(plans[0]["Plan"]) == {
            "toolret_corpora",
            "toolret_corpus_vectors",
            "toolret_learned_vectors",
        }
        await connection.execute("UPDATE toolret_corpora SET copied = false")  # as before 0010
        assert await connection.fetch(copy.sql, *copy.arguments(**values)) == []
    finally:
        proxied.close()
    probed = await store.rank(query, probe, limit=8, include=named)
    assert corpus in store.without_copy
    assert probed.scores == copied.scores
    assert probed.published
    assert copied.published


async def _learn(connection: Any, corpus_hash: str, tool: str, key: str, vector: Any) -> None:
    await connection.execute(
        "INSERT INTO toolret_learned_vectors "
        "(model_id, corpus_hash, doc_key, tool_name, dimension, embedding) "
        "VALUES ($1, $2, $3, $4, 384, $5)",
        MODEL,
        corpus_hash,
        key,
        tool,
        vector,
    )


def _nodes(plan: dict[str, Any], parent: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every node of ``plan`` with its parent's node type."""
    found = [(parent, plan)]
    for child in plan.get("Plans", ()):
        found.extend(_nodes(child, plan["Node Type"]))
    return found


@pytest.mark.parametrize(
    "score",
    [ToolScore("max"), ToolScore("blend"), ToolScore("blend", 0.3, 3), ToolScore("blend", 1.0, 1)],
)
async def test_the_copy_statement_returns_the_rows_of_the_statement_that_reads_either_branch(
    store: VectorStore, score: ToolScore
) -> None:
    """``copy_sql`` scores a blend's descriptions and examples apart (``kind_distances``); its
    rows are ``member_sql``'s to the bit, in the same order: tools with no, one, two and more
    examples, two examples with one vector and two learned vectors at one distance (ties),
    a tool whose stored kinds are all examples and one with two descriptions (a text another
    tool wrote first), learned vectors (one the only example of its tool), a cut catalog, named
    tools. With a blend, only the example rows are sorted, and the copy is not materialized."""
    catalog = synthetic_catalog(24, prefix="varied", core=1, cycle=5)  # 0 to 4 examples
    rng = np.random.default_rng(36)
    keys = {
        name: [doc.key for tool, doc in catalog.documents("query") if tool == name]
        for name in catalog.names
    }  # each tool's description first, then its examples
    twin = unit_vectors(rng, 1, 384)[0]
    await publish_random(
        store, catalog, MODEL, rng, vectors={keys["varied_4"][1]: twin, keys["varied_4"][2]: twin}
    )
    whole = CatalogQuery.build(catalog, MODEL, "query")
    probes = unit_vectors(rng, 3, 384)
    probes[1] = twin  # the twins are both the best examples of their tool
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        await _learn(connection, whole.corpus_hash, "varied_5", "a" * 64, probes[0])  # none else
        await _learn(connection, whole.corpus_hash, "varied_8", "b" * 64, probes[0])
        await _learn(connection, whole.corpus_hash, "varied_8", "c" * 64, probes[0])
        await connection.execute(
            "UPDATE toolret_corpus_vectors SET kind = $1 WHERE doc_key = $2",
            "example",
            keys["varied_7"][0],
        )  # its description's text was another tool's example first
        await connection.execute(
            "UPDATE toolret_corpus_vectors SET kind = $1 WHERE doc_key = $2",
            "description",
            keys["varied_9"][3],
        )  # one of its examples was another tool's description first
        copy = copy_statement(MODEL, 384, score)
        member = member_statement(MODEL, 384, score)
        cut = catalog.only([f"varied_{i}" for i in range(0, 24, 2)] + ["varied_5", "varied_7"])
        for each in (catalog, cut):
            query = CatalogQuery.build(each, MODEL, "query")
            for probe in probes:
                values = {
                    "query": probe,
                    "corpus_hash": query.corpus_hash,
                    "skip": sorted(query.core | query.outside),
                    "limit": 8,
                    "named": sorted(query.candidates)[4:9],
                }
                rows = await connection.fetch(copy.sql, *copy.arguments(**values))
                expected = await connection.fetch(member.sql, *member.arguments(**values))
                assert [tuple(r) for r in rows if r["ranked"]] == [
                    tuple(r) for r in expected if r["ranked"]
                ]
                assert _rows(rows) == _rows(expected)
                assert len(rows) == 8 + 5
        query = CatalogQuery.build(cut, MODEL, "query")
        values = {**values, "query": probes[0], "corpus_hash": query.corpus_hash}
        explained = await connection.fetchval(
            "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + copy.sql, *copy.arguments(**values)
        )
        examples = await connection.fetchval(
            "SELECT count(*) FROM toolret_corpus_vectors WHERE kind = 'example' "
            "AND tool_name = ANY ($1::text[])",
            sorted(query.candidates),
        )
    finally:
        proxied.close()
    plans = json.loads(explained) if isinstance(explained, str) else explained
    nodes = _nodes(plans[0]["Plan"])
    assert not [node for _, node in nodes if node.get("Subplan Name") == "CTE scored"]
    if score.kind == "blend":  # the window ranks the cut catalog's example rows and the learned
        windowed = [n for up, n in nodes if up == "WindowAgg" and n["Node Type"] == "Sort"]
        assert [n["Actual Rows"] for n in windowed] == [examples + 3]
