"""The exact ranking read from a registered corpus (``toolret.store._member_sql``) returns the
rows the exact statement with the documents sent as arrays returns (``exact_sql`` with the
named tools beside it): the two must change together."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.support.fixtures_pg import publish_random, synthetic_catalog, unit_vectors
from toolret.store._read import NAMED, member_statement, ranking_statement
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

MODEL = "member-model@384"


def _rows(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(tuple(row) for row in rows)


async def test_the_corpus_read_statement_returns_the_arrays_statements_rows(
    store: VectorStore,
) -> None:
    catalog = synthetic_catalog(40, examples=3, core=2)
    rng = np.random.default_rng(21)
    await publish_random(store, catalog, MODEL, rng)
    cut = catalog.only([tool.name for tool in catalog.tools[:25]])  # a caller's allowed tools
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        for each in (catalog, cut):
            query = CatalogQuery.build(each, MODEL, "query")
            named = sorted(query.candidates)[3:10]
            pairs = [(t, k) for t, k in zip(query.tools, query.keys, strict=True) if t in named]
            member = member_statement(MODEL, 384, query.score)
            arrays = ranking_statement(MODEL, 384, query.score, None, True)
            for probe in unit_vectors(rng, 4, 384):
                read = await connection.fetch(
                    member.sql,
                    *member.arguments(
                        query=probe,
                        corpus_hash=query.corpus_hash,
                        skip=sorted(query.core | query.outside),
                        limit=12,
                        named=named,
                    ),
                )
                sent = await connection.fetch(
                    arrays.sql,
                    *arrays.arguments(
                        query=probe,
                        tools=query.tools,
                        keys=query.keys,
                        limit=12,
                        corpus_hash=query.corpus_hash,
                        **{
                            f"{NAMED}tools": [t for t, _ in pairs],
                            f"{NAMED}keys": [k for _, k in pairs],
                            f"{NAMED}limit": len(named),
                            f"{NAMED}corpus_hash": query.corpus_hash,
                        },
                    ),
                )
                assert len(read) == 12 + len(named)
                assert _rows(read) == _rows(sent)
    finally:
        proxied.close()
