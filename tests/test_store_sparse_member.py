"""The exact sparse ranking read from a registered corpus (``toolret.store._sparse_member_sql``)
returns the rows the exact sparse statement with the documents sent as arrays returns
(``exact_sparse_sql``): the two must change together. And a selection with the sparse signal
sends the same bytes whatever the catalog's size (its documents stay in the store)."""

from __future__ import annotations

from typing import Any

import numpy as np
from pgvector.asyncpg import register_vector

from tests.support.fixtures_pg import publish_random, synthetic_catalog, unit_vectors
from toolret.embedders._sparse import SparseVector
from toolret.store._sparse_read import exact_statement, member_sparse_statement
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

MODEL = "sparse-member-model@384"
HEAD = "latents@1024/16"
DIMENSION = 1024


def _rows(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in rows)


def _sparse(rng: np.random.Generator) -> SparseVector:
    indices = rng.choice(64, size=16, replace=False)  # few latents: documents overlap
    return SparseVector.of(indices, rng.random(16) + 0.05, DIMENSION)


async def test_the_corpus_read_sparse_statement_returns_the_arrays_statements_rows(
    store: VectorStore,
) -> None:
    catalog = synthetic_catalog(40, examples=3, core=2)
    rng = np.random.default_rng(39)
    await publish_random(store, catalog, MODEL, rng)
    keys = sorted({doc.key for _, doc in catalog.documents("query")})
    await store.write_sparse(MODEL, HEAD, [(key, _sparse(rng)) for key in keys])
    assert await store.mark_sparse(MODEL, catalog.corpus_hash(MODEL, "query"), HEAD)
    cut = catalog.only([tool.name for tool in catalog.tools[:25]])  # a caller's allowed tools
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        await register_vector(connection)
        for each in (catalog, cut):
            query = CatalogQuery.build(each, MODEL, "query")
            named = sorted(query.candidates)[3:10]
            for head in (HEAD, "latents@1024/8"):  # listed on the corpus, and not (ready false)
                shape = (MODEL, 384, query.score, head, DIMENSION)
                member, arrays = member_sparse_statement(*shape), exact_statement(*shape)
                for probe in unit_vectors(rng, 3, 384):
                    given = {
                        "query": probe,
                        "sparse_query": _sparse(rng).to_pgvector(),
                        "sparse_weight": 0.4,
                        "limit": 12,
                        "corpus_hash": query.corpus_hash,
                        "named": named,
                    }
                    read = await connection.fetch(
                        member.sql,
                        *member.arguments(**given, skip=sorted(query.core | query.outside)),
                    )
                    sent = await connection.fetch(
                        arrays.sql, *arrays.arguments(**given, tools=query.tools, keys=query.keys)
                    )
                    assert len(read) == 12 + len(named)
                    assert {row["ready"] for row in read} == {head == HEAD}
                    assert _rows(read) == _rows(sent)
        unregistered = CatalogQuery.build(synthetic_catalog(5, prefix="fresh"), MODEL, "query")
        member = member_sparse_statement(MODEL, 384, unregistered.score, HEAD, DIMENSION)
        none = await connection.fetch(
            member.sql,
            *member.arguments(
                query=unit_vectors(rng, 1, 384)[0],
                sparse_query=_sparse(rng).to_pgvector(),
                sparse_weight=0.4,
                corpus_hash=unregistered.corpus_hash,
                skip=[],
                limit=3,
                named=[],
            ),
        )
        assert none == []  # the caller then sends the arrays
    finally:
        proxied.close()


async def test_a_documents_sparse_vector_is_read_with_its_row_not_from_toast(
    store: VectorStore,
) -> None:
    """A vector of 512 latents (~4 KB, the bundled model's most) stays in its row (migration
    0009): the exact sparse statement reads each document's vector with one row, no TOAST."""
    rng = np.random.default_rng(9)
    vectors = [
        (
            f"key-{i}",
            SparseVector.of(rng.choice(16384, size=512, replace=False), rng.random(512), 16384),
        )
        for i in range(20)
    ]
    assert await store.write_sparse(MODEL, "latents@16384/512", vectors) == 20
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        toast = await connection.fetchval(
            "SELECT reltoastrelid::regclass::text FROM pg_class "
            "WHERE oid = 'toolret_sparse_vectors'::regclass"
        )
        assert await connection.fetchval(f"SELECT count(*) FROM {toast}") == 0
        sizes = await connection.fetch("SELECT pg_column_size(sparse) FROM toolret_sparse_vectors")
        assert min(size for (size,) in sizes) > 4096  # stored whole: no compression either
    finally:
        proxied.close()
