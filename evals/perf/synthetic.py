"""Synthetic catalogs for the request-path benchmark: vectors shaped like the bundled model's,
stand-in tools, and a loader that writes, publishes and indexes them in bulk."""

from __future__ import annotations

import time
from typing import Any

import asyncpg
import numpy as np

from toolret._catalog import Catalog
from toolret._profile import ToolScore
from toolret._tool import Tool
from toolret.embedders._e5 import BundledE5Embedder
from toolret.store._schema import hnsw_index_name, summary_index_name
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore

__all__ = ["DIM", "Sampler", "load", "synthetic_tools"]

DIM = BundledE5Embedder.dimension


class Sampler:
    """Unit vectors shaped like the bundled model's: its mean, its 32 main directions (with
    their variances), and a little isotropic noise for the rest.

    Fitted to real embeddings of the roster and the eval messages. Text embeddings occupy a
    low-dimensional part of their space; uniformly random 384-dimensional vectors do not (HNSW
    recall at 10,000 of them is about 0.6, a worst case no real catalog resembles).
    """

    def __init__(self, real: np.ndarray, rank: int = 32, noise: float = 0.3, seed: int = 7) -> None:
        self.mean = real.mean(axis=0)
        _, singular, basis = np.linalg.svd(real - self.mean, full_matrices=False)
        deviation = singular / np.sqrt(len(real) - 1)
        self.scale = deviation[:rank, None] * basis[:rank]
        self.noise = noise * float(np.sqrt((deviation[rank:] ** 2).sum() / real.shape[1]))
        self.rng = np.random.default_rng(seed)

    def __call__(self, count: int) -> np.ndarray:
        latent = self.rng.standard_normal((count, self.scale.shape[0])).astype(np.float32)
        isotropic = self.rng.standard_normal((count, self.mean.shape[0])).astype(np.float32)
        vectors = self.mean + latent @ self.scale + self.noise * isotropic
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def synthetic_tools(start: int, stop: int, examples: int = 0) -> list[Tool]:
    return [
        Tool(
            f"synthetic_{i}",
            f"Synthetic tool {i}, standing in for a real tool of a large catalog in a benchmark.",
            domain="catalog",
            examples=tuple(f"synthetic request {j} for tool {i}" for j in range(examples)),
        )
        for i in range(start, stop)
    ]


async def load(
    url: str,
    catalog: Catalog,
    model_id: str,
    vectors: dict[str, np.ndarray],
    example_role: Any,
    *,
    maintenance_work_mem: str = "2GB",
    scores: tuple[ToolScore, ...] = (BundledE5Embedder.profile.score,),
) -> dict[str, float]:
    """Write the missing vectors, publish the catalog (with the bundled model's summary
    vectors), rebuild the model's HNSW index for each of ``scores`` in bulk (the summary
    vectors' for a blend, the documents' for ``max``); their build time and sizes."""
    indexes = (hnsw_index_name(model_id), summary_index_name(model_id))
    connection = await asyncpg.connect(url)
    try:
        for index in indexes:
            await connection.execute(f"DROP INDEX IF EXISTS {index}")
    finally:
        await connection.close()
    timings: dict[str, float] = {}
    async with VectorStore.from_url(url) as store:
        documents = catalog.documents(example_role)
        started = time.perf_counter()
        rows = list(
            {
                doc.key: VectorRow(doc.key, name, doc.role, doc.kind, doc.text, vectors[doc.key])
                for name, doc in documents
            }.values()
        )
        for i in range(0, len(rows), 5000):
            await store.write(model_id, rows[i : i + 5000])
        await store.publish(
            model_id,
            catalog.corpus_hash(model_id, example_role),
            [(name, doc.key) for name, doc in documents],
            score=BundledE5Embedder.profile.score,
        )
        timings["load_seconds"] = time.perf_counter() - started
        timings["hnsw_build_seconds"] = 0.0
        for score in scores:
            started = time.perf_counter()
            await store.ensure_index(
                model_id, DIM, maintenance_work_mem=maintenance_work_mem, score=score
            )
            seconds = time.perf_counter() - started
            kind = "summary" if score.kind == "blend" else "documents"
            timings[f"{kind}_build_seconds"] = seconds
            timings["hnsw_build_seconds"] += seconds
    connection = await asyncpg.connect(url)
    try:
        for name, index in zip(("hnsw_mb", "summary_hnsw_mb"), indexes, strict=True):
            size = await connection.fetchval("SELECT pg_relation_size(to_regclass($1))", index)
            timings[name] = (size or 0) / 2**20
    finally:
        await connection.close()
    return timings
