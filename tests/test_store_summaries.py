"""The blended score through summary vectors, against numpy, on real Postgres + pgvector.

Small tables forced through the index path (``exact_limit=0``): the HNSW index over a few
hundred summary vectors returns the true nearest ones, so the statement must give exactly the
blended ranking ``exact_scores`` computes one document at a time — for tools without examples,
with up to five (exact subsets) and with more (bounds, scored from their documents).
"""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import text

from tests.support.fixtures_pg import exact_scores, publish_random, unit_vectors
from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE, MAX_SCORE, RetrievalProfile, ToolScore
from toolret._tool import Tool
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._selection import top_k
from toolret.store._sql import CatalogQuery
from toolret.store._summaries import SUBSET_LIMIT, score_tag, summarize, summary_count
from toolret.store._vector_store import VectorStore

MODEL = "summaries-model@384"
DIM = 384


def _catalog(tools: int = 48) -> Catalog:
    """Tools with 0 to 7 examples each (one in eight without), two of them core."""
    return Catalog(
        [
            Tool(
                f"tool_{i}",
                f"Synthetic tool number {i}, with {i % 8} example requests, to test ranking.",
                examples=tuple(f"tool {i} request {j}" for j in range(i % 8)),
                domain="records",
            )
            for i in range(tools)
        ],
        core=["tool_0", "tool_1"],
    )


def _near_their_tools(catalog: Catalog, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each example a perturbation of its tool's description, as real examples are."""
    vectors: dict[str, np.ndarray] = {}
    for tool in catalog.tools:
        description, *examples = tool.documents("query")
        base = unit_vectors(rng, 1, DIM)[0]
        vectors[description.key] = base
        for example in examples:
            mixed = 0.7 * base + 0.7 * unit_vectors(rng, 1, DIM)[0]
            vectors[example.key] = (mixed / np.linalg.norm(mixed)).astype(np.float32)
    return vectors


def _probes(vectors: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """Messages near some document (as real ones are), and some anywhere."""
    keys = sorted(vectors)
    near = np.stack([vectors[keys[i]] for i in rng.choice(len(keys), 12, replace=False)])
    near = near + 0.4 * unit_vectors(rng, 12, DIM)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    return np.concatenate([near.astype(np.float32), unit_vectors(rng, 6, DIM)])


def test_a_tools_best_subset_vector_is_its_blended_score() -> None:
    """The identity the statement stands on, in numpy: max over subset vectors = the blend;
    over per-example bounds, at least the blend."""
    rng = np.random.default_rng(1)
    score = ToolScore()
    for examples in range(9):
        description = unit_vectors(rng, 1, DIM)[0]
        example_vectors = list(unit_vectors(rng, examples, DIM)) if examples else []
        summary = summarize("d", [f"e{i}" for i in range(examples)], score)
        assert len(summary.keys) == summary_count(examples, score)
        assert summary.exact == (examples <= 2 or math.comb(examples, 2) <= SUBSET_LIMIT)
        vectors = np.stack(summary.vectors(description, example_vectors, 0.5))
        for query in unit_vectors(rng, 5, DIM):
            cosines = sorted((e @ query for e in example_vectors), reverse=True)[:2]
            blend = 0.5 * description @ query + 0.5 * np.mean(cosines) if cosines else None
            best = float((vectors @ query).max())
            truth = float(description @ query) if blend is None else float(blend)
            if summary.exact:
                assert best == pytest.approx(truth, abs=1e-5)
            else:
                assert best >= truth - 1e-5


async def test_the_summary_statement_ranks_exactly_as_the_blend(database_url: str) -> None:
    catalog = _catalog()
    rng = np.random.default_rng(21)
    query = CatalogQuery.build(catalog, MODEL, "query", DEFAULT_PROFILE)
    assert query.max_summaries_per_tool == 10  # five examples: ten pairs
    async with VectorStore.from_url(
        database_url, exact_limit=0, pool_size=1, max_overflow=0
    ) as store:
        vectors = await publish_random(
            store, catalog, MODEL, rng, vectors=_near_their_tools(catalog, rng)
        )
        before = await _summary_scans(store)
        for probe in _probes(vectors, rng):
            expected = exact_scores(catalog, vectors, probe)
            for limit, exclude in ((12, frozenset()), (5, frozenset({"tool_9", "tool_20"}))):
                ranking = await store.rank(query, probe, limit=limit, exclude=exclude)
                assert ranking.published
                assert ranking.unranked == ()
                assert not set(ranking.scores) & {"tool_0", "tool_1", *exclude}
                want = top_k(catalog, expected, limit, exclude=exclude)
                assert top_k(catalog, ranking.scores, limit, exclude=exclude) == want
                for name in want:
                    assert ranking.scores[name] == pytest.approx(expected[name], abs=1e-5)
        assert await _summary_scans(store) > before  # through the summary index


async def test_indexing_writes_the_summaries_as_it_embeds_and_they_rank_exactly(
    database_url: str,
) -> None:
    """``index_catalog`` writes each tool's summary vectors while the model embeds the next
    batch; publication files them (and makes none twice); the corpus then ranks through them
    exactly as numpy over the vectors the model wrote."""
    catalog = _catalog(16)
    embedder = BundledE5Embedder()
    async with VectorStore.from_url(
        database_url, exact_limit=0, pool_size=1, max_overflow=0
    ) as store:
        report = await index_catalog(store, embedder, catalog, batch_size=8)
        assert report.published
        async with store.engine.connect() as connection:
            rows = await connection.execute(
                text("SELECT doc_key, embedding FROM toolret_vectors WHERE model_id = :m"),
                {"m": embedder.model_id},
            )
            vectors = {key: np.asarray(v.to_numpy(), dtype=np.float32) for key, v in rows}
        stored = await _count(store, "SELECT count(*) FROM toolret_summary_vectors")
        score = DEFAULT_PROFILE.score  # every tool's, core ones too: the corpus holds them
        assert stored == sum(summary_count(len(t.examples), score) for t in catalog.tools)
        query = CatalogQuery.build(catalog, embedder.model_id, "query", DEFAULT_PROFILE)
        rng = np.random.default_rng(25)
        for probe in _probes(vectors, rng):
            expected = exact_scores(catalog, vectors, probe)
            ranking = await store.rank(query, probe, limit=12)
            assert ranking.published
            assert top_k(catalog, ranking.scores, 12) == top_k(catalog, expected, 12)
        assert await _summary_scans(store) > 0


async def test_a_corpus_published_without_summaries_is_ranked_exactly_until_summarized(
    database_url: str,
) -> None:
    """Published by a toolret from before summary vectors: ranked exactly and reported as not
    published (so the client asks the worker), until ``summarize`` files them."""
    catalog = _catalog(24)
    rng = np.random.default_rng(22)
    score = DEFAULT_PROFILE.score
    query = CatalogQuery.build(catalog, MODEL, "query", DEFAULT_PROFILE)
    async with VectorStore.from_url(database_url, exact_limit=0) as store:
        vectors = await publish_random(store, catalog, MODEL, rng, score=MAX_SCORE)
        probe = unit_vectors(rng, 1, DIM)[0]
        expected = top_k(catalog, exact_scores(catalog, vectors, probe), 12)
        ranking = await store.rank(query, probe, limit=12)
        assert not ranking.published
        assert top_k(catalog, ranking.scores, 12) == expected

        assert await store.summarize(MODEL, query.corpus_hash, score) > 0
        assert await store.summarize(MODEL, query.corpus_hash, score) == 0  # idempotent
        ranking = await store.rank(query, probe, limit=12)
        assert ranking.published
        assert top_k(catalog, ranking.scores, 12) == expected


async def test_summaries_are_shared_between_corpora_and_collected_with_them(
    database_url: str,
) -> None:
    catalog = _catalog(16)
    edited = Catalog(
        [
            Tool(t.name, t.description + " Edited.", examples=t.examples, domain=t.domain)
            if t.name == "tool_5"
            else t
            for t in catalog.tools
        ],
        core=["tool_0", "tool_1"],
    )
    rng = np.random.default_rng(23)
    async with VectorStore.from_url(database_url) as store:
        vectors = await publish_random(store, catalog, MODEL, rng)
        first = await _count(store, "SELECT count(*) FROM toolret_summary_vectors")
        await publish_random(store, edited, MODEL, rng, vectors=vectors)
        second = await _count(store, "SELECT count(*) FROM toolret_summary_vectors")
        assert second - first == summary_count(5, DEFAULT_PROFILE.score)  # only tool_5's

        tag = score_tag(DEFAULT_PROFILE.score)
        filed = await _count(
            store,
            f"SELECT count(DISTINCT corpus_id) FROM toolret_corpus_summaries WHERE score = '{tag}'",
        )
        assert filed == 2
        await store.gc(timedelta(0))  # every corpus and every vector expired
        assert await _count(store, "SELECT count(*) FROM toolret_summary_vectors") == 0
        assert await _count(store, "SELECT count(*) FROM toolret_corpus_summaries") == 0


async def test_a_max_score_is_ranked_through_the_documents_not_the_summaries(
    database_url: str,
) -> None:
    catalog = _catalog(24)
    rng = np.random.default_rng(24)
    profile = RetrievalProfile(score=MAX_SCORE)
    query = CatalogQuery.build(catalog, MODEL, "query", profile)
    async with VectorStore.from_url(
        database_url, exact_limit=0, pool_size=1, max_overflow=0
    ) as store:
        vectors = await publish_random(store, catalog, MODEL, rng)
        before = await _summary_scans(store)
        for probe in unit_vectors(rng, 4, DIM):
            expected = exact_scores(catalog, vectors, probe, score=MAX_SCORE)
            ranking = await store.rank(query, probe, limit=12)
            assert top_k(catalog, ranking.scores, 12) == top_k(catalog, expected, 12)
        assert await _summary_scans(store) == before


async def _count(store: VectorStore, statement: str) -> int:
    async with store.engine.connect() as connection:
        return int((await connection.execute(text(statement))).scalar_one())


async def _summary_scans(store: VectorStore) -> int:
    """How often the store's only pooled connection ran a statement over summary vectors."""
    proxied = await store.engine.raw_connection()
    try:
        connection = proxied.driver_connection
        assert connection is not None
        runs = await connection.fetchval(
            "SELECT coalesce(sum(generic_plans + custom_plans), 0) FROM pg_prepared_statements "
            "WHERE statement LIKE '%nearest_1 AS MATERIALIZED%' "
            "AND statement NOT LIKE '%pg_prepared_statements%'"
        )
        return int(runs)
    finally:
        proxied.close()
