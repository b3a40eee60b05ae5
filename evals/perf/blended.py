"""Example vectors and the blended score at scale, for ``python -m evals.perf.select``.

- 44 tools: the roster with its example requests and without (the exact statement);
- 10,000 synthetic tools without examples, and 10,000 and 100,000 with three each: the blended
  statement (one scan of the tools' summary vectors, ``toolret.store._summary_sql``) and the
  max statement (one scan of the documents) on the same corpus, interleaved query by query so
  the machine's load hits both alike; the blended statement's recall@12 against the exact blend
  computed in numpy (``toolret.retrieval._memory.DenseIndex``); load and index build time, index
  sizes.

Synthetic examples are drawn independently of their tool's description (``Sampler``): on the
roster, a tool's examples and description correlate only weakly once the model's common
direction is removed (0.12 on average), and independent draws are the harder case for a
blended score, whose best two of three examples then differ most from the mean of all three.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import asyncpg
import numpy as np

from evals.perf.synthetic import Sampler, load, synthetic_tools
from evals.perf.timing import percentiles, timed
from toolret._catalog import Catalog
from toolret._profile import MAX_SCORE
from toolret.demo.roster import catalog as roster, catalog_without_examples
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._memory import DenseIndex
from toolret.retrieval._selection import top_k
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

__all__ = ["EF_SWEEP", "EXAMPLE_SIZES", "rows_for_table", "with_and_without_examples"]

MODEL = "bench/synthetic-with-examples@384"
EXAMPLE_SIZES = (10_000, 100_000)
"""Synthetic catalogs with three examples a tool (10,000 also without)."""
EF_SWEEP = (40, 100, 200, 300)
"""``hnsw.ef_search`` values the largest catalog's blended statement is also measured at."""
K = 12


async def with_and_without_examples(
    url: str,
    sampler: Sampler,
    queries: np.ndarray,
    embedder: BundledE5Embedder,
    rounds: int,
    sizes: tuple[int, ...] = EXAMPLE_SIZES,
) -> dict[str, Any]:
    """The database step with and without example vectors, per catalog."""
    out: dict[str, Any] = {}
    sample = [queries[i % len(queries)] for i in range(rounds)]
    async with VectorStore.from_url(url) as store:
        for name, catalog in (("44_with", roster), ("44_without", catalog_without_examples)):
            if name == "44_without":  # its description vectors are the roster's: publish only
                await index_catalog(store, embedder, catalog)
            query = CatalogQuery.build(catalog, embedder.model_id, embedder.example_role)
            samples = await timed(
                [lambda q=q, query=query: store.rank(query, q, limit=K) for q in sample]
            )
            out[name] = {"documents": query.documents, **percentiles(samples)}
    shapes = [(10_000, 0)] if 10_000 in sizes else []
    for tools, examples in [*shapes, *((size, 3) for size in sizes)]:
        sweep = examples > 0 and tools == max(sizes)
        out.update(await _synthetic(url, sampler, queries, sample, tools, examples, sweep))
    return out


async def _synthetic(
    url: str,
    sampler: Sampler,
    queries: np.ndarray,
    sample: list[np.ndarray],
    tools: int,
    examples: int,
    sweep: bool = False,
) -> dict[str, Any]:
    model = f"{MODEL}-{tools}-{examples}"
    catalog = Catalog(synthetic_tools(0, tools, examples))
    documents = catalog.documents("document")
    keys = list(dict.fromkeys(doc.key for _, doc in documents))
    vectors = dict(zip(keys, sampler(len(keys)), strict=True))
    blend = BundledE5Embedder.profile.score
    scores = (blend, MAX_SCORE) if examples else (blend,)  # the max statement needs its own
    timings = await load(url, catalog, model, vectors, "document", scores=scores)
    name = f"{tools}_{'with' if examples else 'without'}"
    profiles = {name: BundledE5Embedder.profile}
    if examples:
        profiles[f"{name}_max"] = replace(BundledE5Embedder.profile, score=MAX_SCORE)
    async with VectorStore.from_url(url) as store:
        built = {
            label: CatalogQuery.build(catalog, model, "document", profile)
            for label, profile in profiles.items()
        }
        calls = [
            lambda q=q, query=query: store.rank(query, q, limit=K)
            for q in sample
            for query in built.values()
        ]
        samples = await timed(calls)
        exact = _exact(catalog, vectors)
        hits = 0
        for q in queries:
            ranking = await store.rank(built[name], q, limit=K)
            hits += len(set(top_k(catalog, ranking.scores, K)) & set(exact(q)))
    counts = await _rows(url, model)
    out: dict[str, Any] = {}
    for i, label in enumerate(profiles):
        out[label] = {
            "documents": len(keys),
            **counts,
            **timings,
            **percentiles(samples[i :: len(profiles)]),
        }
    out[name]["recall_at_12"] = hits / (K * len(queries))
    if sweep:
        out[name]["ef_search"] = await _ef_sweep(url, built[name], catalog, exact, sample, queries)
    return out


async def _ef_sweep(
    url: str,
    query: CatalogQuery,
    catalog: Catalog,
    exact: Any,
    sample: list[np.ndarray],
    queries: np.ndarray,
) -> dict[str, Any]:
    """The blended statement at each ``EF_SWEEP`` value, interleaved: p50/p99 and recall."""
    stores = [VectorStore.from_url(url, ef_search=ef) for ef in EF_SWEEP]
    try:
        calls = [
            lambda q=q, store=store: store.rank(query, q, limit=K)
            for q in sample
            for store in stores
        ]
        samples = await timed(calls)
        out: dict[str, Any] = {}
        for i, (ef, store) in enumerate(zip(EF_SWEEP, stores, strict=True)):
            hits = 0
            for q in queries:
                ranking = await store.rank(query, q, limit=K)
                hits += len(set(top_k(catalog, ranking.scores, K)) & set(exact(q)))
            out[str(ef)] = {
                **percentiles(samples[i :: len(stores)]),
                "recall_at_12": hits / (K * len(queries)),
            }
        return out
    finally:
        for store in stores:
            await store.aclose()


def _exact(catalog: Catalog, vectors: dict[str, np.ndarray]) -> Any:
    """The exact blended top 12 in numpy, as the in-memory retriever ranks."""
    names = [tool.name for tool in catalog.candidates]
    pairs = catalog.documents("document")
    index = DenseIndex.from_vectors(names, pairs, vectors, BundledE5Embedder.profile.score)

    def top(query: np.ndarray) -> list[str]:
        scores = index.score_array(query)
        chosen = np.argpartition(-scores, K)[:K]
        return [names[i] for i in chosen]

    return top


async def _rows(url: str, model: str) -> dict[str, int]:
    connection = await asyncpg.connect(url)
    try:
        vectors = await connection.fetchval(
            "SELECT count(*) FROM toolret_vectors WHERE model_id = $1", model
        )
        summaries = await connection.fetchval(
            "SELECT count(*) FROM toolret_summary_vectors WHERE model_id = $1", model
        )
    finally:
        await connection.close()
    return {"rows": int(vectors), "summaries": int(summaries)}


def rows_for_table(report: dict[str, Any]) -> list[tuple[str, ...]]:
    """The examples table's rows: catalog, documents, summaries, p50 / p99, recall, the
    summary index's build time, the two indexes' sizes."""
    rows = []
    for name, r in report.items():
        recall = r.get("recall_at_12")
        build = r.get("summary_build_seconds")
        sizes = (r.get("hnsw_mb"), r.get("summary_hnsw_mb"))
        rows.append(
            (
                name,
                f"{r['documents']:,}",
                f"{r['summaries']:,}" if "summaries" in r else "",
                f"{r['p50_ms']:.2f} / {r['p99_ms']:.2f}",
                "" if recall is None else f"{recall:.3f}",
                "" if build is None or name.endswith("_max") else f"{build:.0f}",
                ""
                if None in sizes or name.endswith("_max")
                else f"{sizes[0]:.0f} / {sizes[1]:.0f}",
            )
        )
    return rows
