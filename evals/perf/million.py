"""A million vectors: ``python -m evals.perf.select --million`` (``make bench BENCH=--million``).

Not in the default run (it writes 1.5 GB of vectors and builds a graph over them for tens of
minutes on two cores). One million synthetic tools, one description vector each (the bundled
model's shape), published as one catalog beside the roster: load time, the HNSW build's time
and size (the bundled model's index: one summary vector per tool, its description), the whole
table's statement (p50/p99, recall@12 against exact numpy over the same vectors) and the
44-tool roster's statement inside that table.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from evals.perf.synthetic import Sampler, load, synthetic_tools
from evals.perf.timing import percentiles, timed
from toolret._catalog import Catalog
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.retrieval._selection import top_k
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

__all__ = ["MILLION", "million"]

MILLION = 1_000_000
MODEL = "bench/synthetic-million@384"
K = 12


async def million(
    url: str, sampler: Sampler, queries: np.ndarray, rounds: int, tools: int = MILLION
) -> dict[str, Any]:
    """Load, index and query ``tools`` one-vector tools; what it took and what it costs."""
    started = time.perf_counter()
    catalog = Catalog(synthetic_tools(0, tools))
    keys = [tool.documents("document")[0].key for tool in catalog.tools]
    matrix = sampler(len(keys))
    vectors = dict(zip(keys, matrix, strict=True))
    built = time.perf_counter() - started
    timings = await load(url, catalog, MODEL, vectors, "document", maintenance_work_mem="6GB")
    query = CatalogQuery.build(catalog, MODEL, "document", BundledE5Embedder.profile)
    workspace = CatalogQuery.build(roster, BundledE5Embedder.model_id, "query")
    sample = [queries[i % len(queries)] for i in range(rounds)]
    names = [tool.name for tool in catalog.tools]
    async with VectorStore.from_url(url) as store:
        whole = await timed([lambda q=q: store.rank(query, q, limit=K) for q in sample])
        small = await timed([lambda q=q: store.rank(workspace, q, limit=K) for q in sample])
        hits = 0
        for q in queries:
            ranking = await store.rank(query, q, limit=K)
            scores = matrix @ q
            expected = {names[i] for i in np.argpartition(-scores, K)[:K]}
            hits += len(set(top_k(catalog, ranking.scores, K)) & expected)
    return {
        "tools": tools,
        "catalog_seconds": built,
        **timings,
        "db_whole": percentiles(whole),
        "db_workspace": percentiles(small),
        "recall_at_12": hits / (K * len(queries)),
    }
