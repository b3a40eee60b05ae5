"""Reindex cost with the bundled model: ``python -m evals.perf.reindex``.

For the 44-tool demo roster and a 1,000-tool roster derived from it, measures on a fresh
database: a cold reindex (every document embedded; documents per second), a rerun of the same
catalog (nothing embedded) and a one-description change (one document embedded). A reindex is
what the worker's job runs (``index_catalog``); the raw embedding rate of the same documents,
without the database, is measured beside it so the store's share is visible.

Uses ``DATABASE_URL`` if set (the database should be empty of this model's vectors), otherwise
an embedded Postgres in a temporary directory, deleted afterwards. Writes
``evals/out/bench_reindex.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.demo.roster import catalog as roster
from toolret.embedders._base import Vectors
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import IndexReport, index_catalog
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_reindex.json"


def scaled_roster(size: int) -> Catalog:
    """``size`` tools cycled from the 44-tool roster, each description and example made
    distinct (a workspace module per copy), so every document must be embedded."""
    base = roster.tools
    tools: list[Tool] = []
    for i in range(size):
        tool = base[i % len(base)]
        copy = i // len(base)
        if copy == 0:
            tools.append(tool)
            continue
        module = f"module {copy}"
        tools.append(
            dataclasses.replace(
                tool,
                name=f"{tool.name}_m{copy}"[:64],
                description=f"{tool.description} Works on the records of {module}.",
                examples=tuple(f"{example} ({module})" for example in tool.examples),
            )
        )
    return Catalog(tools, core=[t.name for t in roster.core])


def one_description_changed(catalog: Catalog) -> Catalog:
    """The catalog with one non-core tool's description edited."""
    target = catalog.candidates[len(catalog.candidates) // 2].name
    return Catalog(
        (
            dataclasses.replace(tool, description=tool.description + " Edited for the benchmark.")
            if tool.name == target
            else tool
            for tool in catalog
        ),
        domain_rank=catalog.domain_rank,
    )


class TimedEmbedder(BundledE5Embedder):
    """The bundled model, adding up the seconds spent embedding documents."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return await super().embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - started

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return await super().embed_queries(texts)
        finally:
            self.seconds += time.perf_counter() - started


async def timed_index(
    store: VectorStore, embedder: TimedEmbedder, catalog: Catalog
) -> tuple[IndexReport, float]:
    """Index the catalog; return the report and the seconds spent embedding."""
    embedder.seconds = 0.0
    report = await index_catalog(store, embedder, catalog)
    return report, embedder.seconds


async def raw_embedding_rate(embedder: BundledE5Embedder, catalog: Catalog) -> float:
    """Documents per second for the catalog's documents through the embedder alone."""
    docs = catalog.documents(embedder.example_role)
    started = time.perf_counter()
    for role in ("document", "query"):
        texts = [doc.text for _, doc in docs if doc.role == role]
        if texts:
            if role == "query":
                await embedder.embed_queries(texts)
            else:
                await embedder.embed_documents(texts)
    return len(docs) / (time.perf_counter() - started)


async def bench_size(store: VectorStore, embedder: TimedEmbedder, size: int) -> dict[str, Any]:
    catalog = roster if size == len(roster) else scaled_roster(size)
    cold, cold_embedding = await timed_index(store, embedder, catalog)
    rerun, _ = await timed_index(store, embedder, catalog)
    changed, change_embedding = await timed_index(store, embedder, one_description_changed(catalog))
    if rerun.embedded != 0 or changed.embedded != 1:
        raise RuntimeError(f"expected 0 and 1 embedded, got {rerun.embedded}, {changed.embedded}")
    raw = await raw_embedding_rate(embedder, catalog)
    return {
        "tools": len(catalog),
        "documents": cold.documents,
        "cold_seconds": cold.seconds,
        "cold_embedding_seconds": cold_embedding,
        "cold_embedded": cold.embedded,
        "cold_documents_per_second": cold.embedded / cold.seconds,
        "raw_embedding_documents_per_second": raw,
        "rerun_seconds": rerun.seconds,
        "rerun_embedded": rerun.embedded,
        "one_change_seconds": changed.seconds,
        "one_change_embedding_seconds": change_embedding,
        "one_change_embedded": changed.embedded,
    }


async def run(url: str, sizes: list[int]) -> list[dict[str, Any]]:
    embedder = TimedEmbedder()
    await embedder.embed_documents(["warm up the model"])  # loading is not indexing
    results = []
    store = VectorStore.from_url(url)
    try:
        for size in sizes:
            results.append(await bench_size(store, embedder, size))
    finally:
        await store.aclose()
    return results


def report(results: list[dict[str, Any]], console: Console) -> None:
    table = Table(title=f"reindex with {BundledE5Embedder.model_id}", caption=machine())
    columns = {
        "tools": "tools",
        "documents": "documents",
        "cold s": "cold reindex, s",
        "embed s": "of which embedding, s",
        "docs/s": "cold documents per second",
        "raw docs/s": "embedding alone, documents per second",
        "rerun ms": "unchanged catalog, ms (0 embedded)",
        "change ms": "one description changed, ms (1 embedded)",
        "change embed ms": "of which embedding, ms",
    }
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            str(r["tools"]),
            str(r["documents"]),
            f"{r['cold_seconds']:.1f}",
            f"{r['cold_embedding_seconds']:.1f}",
            f"{r['cold_documents_per_second']:.1f}",
            f"{r['raw_embedding_documents_per_second']:.1f}",
            f"{r['rerun_seconds'] * 1000:.0f}",
            f"{r['one_change_seconds'] * 1000:.0f}",
            f"{r['one_change_embedding_seconds'] * 1000:.0f}",
        )
    table.caption = machine() + "\n" + "; ".join(f"{k}: {v}" for k, v in columns.items())
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[44, 1000])
    args = parser.parse_args()
    with database() as url:
        results = asyncio.run(run(url, args.sizes))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"machine": machine(), "results": results}, indent=2) + "\n")
    report(results, Console(width=140))


if __name__ == "__main__":
    main()
