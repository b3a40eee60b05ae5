"""Request-path benchmark: ``python -m evals.perf.select`` (``make bench``).

For 44, 1,000, 10,000 and 100,000 tools in the vector table, in one run:

- ``select()`` end to end (query embedding + one SQL round trip) p50/p99, for the 44-tool
  roster (a workspace's catalog inside the large table: key look-ups + exact sort) and for the
  whole table as one catalog (exact up to ``EXACT_LIMIT`` documents, HNSW above); again with
  the query embedding cached; and as a later round of the same turn (the selection reused);
- the database step alone (``VectorStore.rank``) p50/p99 and its ratio to a bare ``SELECT 1``
  on the same pooled connection path, and its throughput at 1 and 8 concurrent callers;
- the same top-12 computed in process: exact numpy cosine over the same vectors (each tool
  scored as the bundled model's profile says) and BM25 (``toolret.retrieval._lexical``) over the
  same tools;
- recall@12 of the indexed query against the exact numpy ranking;
- at 1,000 and 10,000 rows, both ranking statements forced on the whole catalog (where the
  exact/HNSW switch belongs);
- example vectors (``evals.perf.blended``): 44 tools with and without, 10,000 and 100,000
  synthetic tools with three examples each — the blended statement against the max statement
  and its recall against the exact blend; with ``--million``, a 1,000,000-vector level
  (``evals.perf.million``).

The 44 real tools (``toolret.demo.roster``, with their example requests) are embedded with the
bundled model; the rest are synthetic, one vector each, drawn from the bundled model's own shape
(the mean and 32 main directions of its embeddings of the roster and the eval messages, see
``Sampler``; uniformly random 384-dimensional vectors have no neighbourhood structure, so no
approximate index, or real catalog, looks like them). Queries are the eval cases' messages,
embedded once (the embedding cost is measured separately). Uses ``DATABASE_URL`` if set, else
an embedded Postgres (2 GB of shared buffers, ``evals.perf.database``) in a temporary
directory. Writes ``evals/out/bench_select.json`` and prints tables.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from rich.console import Console
from rich.table import Table
from sqlalchemy import text

from evals.data.cases import CASES
from evals.perf.blended import EXAMPLE_SIZES, rows_for_table, with_and_without_examples
from evals.perf.database import database, machine
from evals.perf.million import million
from evals.perf.synthetic import DIM, Sampler, load, synthetic_tools
from evals.perf.timing import percentiles, throughput, timed, timed_sync
from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE
from toolret._tool import Tool
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._lexical import BM25Index
from toolret.retrieval._memory import DenseIndex
from toolret.retrieval._reuse import REUSE_SECONDS
from toolret.retrieval._selection import top_k
from toolret.store._read import ranking_statement
from toolret.store._sql import EXACT_LIMIT, CatalogQuery, exact_sql
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_select.json"
LEVELS = (44, 1_000, 10_000, 100_000)
K = 12


class Exact:
    """The in-process baseline: every document vector of a catalog, each tool scored as the
    bundled model's profile scores it (``toolret.retrieval._memory.DenseIndex``)."""

    def __init__(self, catalog: Catalog, vectors: dict[str, np.ndarray], example_role: Any) -> None:
        self.names = [tool.name for tool in catalog.candidates]
        candidates = set(self.names)
        pairs = [(n, d) for n, d in catalog.documents(example_role) if n in candidates]
        score = BundledE5Embedder.profile.score
        self.index = DenseIndex.from_vectors(self.names, pairs, vectors, score)

    def top(self, query: np.ndarray, k: int = K) -> list[str]:
        best = self.index.score_array(query)
        chosen = np.argpartition(-best, k)[:k]
        return [self.names[i] for i in chosen[np.argsort(-best[chosen])]]


async def bench_level(
    url: str,
    level: int,
    whole: Catalog,
    vectors: dict[str, np.ndarray],
    queries: np.ndarray,
    messages: list[str],
    embedder: BundledE5Embedder,
    rounds: int,
) -> dict[str, Any]:
    role = embedder.example_role
    model = embedder.model_id
    result: dict[str, Any] = {"tools": level, "documents": len(whole.documents(role))}
    async with VectorStore.from_url(url, pool_size=8, max_overflow=0) as store:
        workspace_query = CatalogQuery.build(roster, model, role)
        whole_query = CatalogQuery.build(whole, model, role)
        sample = [queries[i % len(queries)] for i in range(rounds)]

        result["select_1"] = percentiles(await timed([store.ping] * rounds))
        for name, query in (("workspace", workspace_query), ("whole", whole_query)):
            samples = await timed(
                [lambda q=q, query=query: store.rank(query, q, limit=K) for q in sample]
            )
            result[f"db_{name}"] = percentiles(samples)
            result[f"db_{name}"]["statement"] = (
                "hnsw" if query.documents > store.exact_limit else "exact"
            )
        ping = result["select_1"]["p50_ms"]
        for name in ("workspace", "whole"):
            result[f"db_{name}"]["ratio_to_select_1"] = result[f"db_{name}"]["p50_ms"] / ping

        # recall of what the store returns against exact numpy over the same vectors
        exact = Exact(whole, vectors, role)
        hits = 0
        for q in queries:
            ranking = await store.rank(whole_query, q, limit=K)
            hits += len(set(top_k(whole, ranking.scores, K)) & set(exact.top(q)))
        result["recall_at_12_whole"] = hits / (K * len(queries))

        result["numpy_whole"] = percentiles(timed_sync([lambda q=q: exact.top(q) for q in sample]))
        small = Exact(roster, vectors, role)
        result["numpy_workspace"] = percentiles(
            timed_sync([lambda q=q: small.top(q) for q in sample])
        )
        bm25 = BM25Index(whole.tools)
        texts = [messages[i % len(messages)] for i in range(rounds)]
        result["bm25_whole"] = percentiles(
            timed_sync([lambda t=t: bm25.search(t, K) for t in texts])
        )

        for workers in (1, 8):
            result[f"db_whole_per_second_{workers}"] = await throughput(
                lambda i: store.rank(whole_query, queries[i % len(queries)], limit=K),
                workers,
                rounds * 2,
            )

    # select() end to end: the first pass embeds every message; the second finds the embedding
    # cached (a client without reuse: the statement runs again); the third is a later round
    # of the same turn (the selection reused)
    for name, catalog in (("workspace", roster), ("whole", whole)):
        for reuse in (0.0, REUSE_SECONDS):
            async with ToolRetrievalClient(
                url, embedder=embedder, k=K, time_budget=30, reuse=reuse
            ) as client:
                await client.select(catalog, "warm up the pool and the statement")
                calls = [lambda m=m, c=catalog: client.select(c, m) for m in messages]
                cold = await timed(calls, 0)
                again = await timed(calls, 0)
                selection = await client.select(catalog, messages[0])
                assert selection.narrowed, selection
            if reuse:
                result[f"select_{name}_repeat"] = percentiles(again)
            else:
                result[f"select_{name}"] = percentiles(cold)
                result[f"select_{name}_cached_embedding"] = percentiles(again)
    return result


async def forced_statements(
    url: str, whole: Catalog, queries: np.ndarray, embedder: BundledE5Embedder, rounds: int
) -> dict[str, Any]:
    """The whole catalog ranked by each statement, whichever the store would choose."""
    out: dict[str, Any] = {}
    query = CatalogQuery.build(whole, embedder.model_id, embedder.example_role)
    sample = [queries[i % len(queries)] for i in range(rounds)]
    for statement, limit in (("exact", 10**9), ("hnsw", 0)):
        async with VectorStore.from_url(url, exact_limit=limit) as store:
            samples = await timed([lambda q=q: store.rank(query, q, limit=K) for q in sample])
        out[statement] = percentiles(samples)
    return out


async def core_versus_raw(
    url: str, queries: np.ndarray, embedder: BundledE5Embedder, rounds: int
) -> dict[str, Any]:
    """The 44-tool ranking statement through SQLAlchemy Core and through the raw asyncpg
    connection of the same pool (what ``VectorStore.rank`` does)."""
    query = CatalogQuery.build(roster, embedder.model_id, embedder.example_role)
    score = DEFAULT_PROFILE.score
    statement = ranking_statement(embedder.model_id, DIM, score, None, False)
    casts = {"query": "vector", "tools": "text[]", "keys": "text[]"}
    named = exact_sql(  # the same statement with SQLAlchemy's named parameters
        embedder.model_id,
        DIM,
        score,
        lambda name: f"CAST(:{name} AS {casts[name]})" if name in casts else f":{name}",
    )
    values = {"tools": list(query.tools), "keys": list(query.keys), "limit": K}
    sample = [queries[i % len(queries)] for i in range(rounds)]
    out: dict[str, Any] = {}
    async with VectorStore.from_url(url) as store:

        async def core(vector: np.ndarray) -> Any:
            async with store.engine.connect() as connection:
                result = await connection.execute(
                    text(named), {"query": vector, "corpus_hash": query.corpus_hash, **values}
                )
                return result.all()

        async def raw(vector: np.ndarray) -> Any:
            proxied = await store.engine.raw_connection()
            try:
                connection = proxied.driver_connection
                assert connection is not None
                arguments = statement.arguments(
                    query=vector, corpus_hash=query.corpus_hash, **values
                )
                return await connection.fetch(statement.sql, *arguments)
            finally:
                proxied.close()

        out["core"] = percentiles(await timed([lambda q=q: core(q) for q in sample]))
        out["raw_asyncpg"] = percentiles(await timed([lambda q=q: raw(q) for q in sample]))
        out["store_rank"] = percentiles(
            await timed([lambda q=q: store.rank(query, q, limit=K) for q in sample])
        )
    return out


async def run(
    levels: Sequence[int],
    rounds: int,
    console: Console,
    examples: tuple[int, ...] = EXAMPLE_SIZES,
    with_million: bool = False,
) -> dict[str, Any]:
    embedder = BundledE5Embedder()
    messages = [case.prompt for case in CASES]
    await embedder.embed_query("warm up the model")
    embed_samples = []
    query_rows = []
    for message in messages:
        started = time.perf_counter()
        query_rows.append(await embedder.embed_query(message))
        embed_samples.append(time.perf_counter() - started)
    queries = np.stack(query_rows)
    report: dict[str, Any] = {
        "machine": machine(),
        "model": embedder.model_id,
        "exact_limit": EXACT_LIMIT,
        "embed_query": percentiles(embed_samples),
        "levels": [],
    }
    with database() as url:
        async with VectorStore.from_url(url) as store:
            started = time.perf_counter()
            await index_catalog(store, embedder, roster)
            report["roster_index_seconds"] = time.perf_counter() - started
        connection = await asyncpg.connect(url)
        try:
            rows = await connection.fetch(
                "SELECT doc_key, embedding::real[] FROM toolret_vectors WHERE model_id = $1",
                embedder.model_id,
            )
        finally:
            await connection.close()
        vectors = {row[0]: np.asarray(row[1], dtype=np.float32) for row in rows}
        sampler = Sampler(np.concatenate([np.stack(list(vectors.values())), queries]))
        synthetic: list[Tool] = []
        for level in levels:
            console.print(f"[bold]{level:,} tools[/bold]: loading…")
            synthetic += synthetic_tools(len(synthetic), level - len(roster))
            whole = Catalog([*roster.tools, *synthetic]) if synthetic else roster
            fresh = [
                doc.key
                for _, doc in whole.documents(embedder.example_role)
                if doc.key not in vectors
            ]
            vectors.update(zip(fresh, sampler(len(fresh)), strict=True))
            timings = (
                await load(url, whole, embedder.model_id, vectors, embedder.example_role)
                if fresh
                else {}
            )
            console.print(f"  loaded {timings}; measuring…")
            level_result = await bench_level(
                url, level, whole, vectors, queries, messages, embedder, rounds
            )
            level_result.update(timings)
            if level in (1_000, 10_000):
                level_result["forced"] = await forced_statements(
                    url, whole, queries, embedder, rounds
                )
            report["levels"].append(level_result)
            console.print(f"  done: select p50 {level_result['select_whole']['p50_ms']:.1f} ms")
        report["core_versus_raw"] = await core_versus_raw(url, queries, embedder, rounds)
        report["examples"] = await with_and_without_examples(
            url, sampler, queries, embedder, rounds, examples
        )
        if with_million:
            console.print("[bold]1,000,000 tools[/bold]: loading and indexing (tens of minutes)…")
            report["million"] = await million(url, sampler, queries, rounds)
    return report


# -- output -----------------------------------------------------------------------------------


def print_report(report: dict[str, Any], console: Console) -> None:
    e = report["embed_query"]
    console.print(
        f"query embedding ({report['model']}): p50 {e['p50_ms']:.2f} ms, p99 {e['p99_ms']:.2f} ms"
        f" · roster indexed in {report['roster_index_seconds']:.1f} s · {report['machine']}"
    )
    table = Table(title="request path, p50 / p99 ms (throughput: calls per second)")
    for column in (
        "tools",
        "SELECT 1",
        "DB 44-tool catalog",
        "DB whole table",
        "DB ÷ SELECT 1",
        "DB q/s ×1 / ×8",
        "recall@12",
        "numpy whole",
        "BM25 whole",
        "select() 44",
        "select() whole",
        "select() cached",
        "select() repeat",
        "HNSW build s",
    ):
        table.add_column(column, justify="right")
    for r in report["levels"]:

        def pp(key: str, r: dict[str, Any] = r) -> str:
            return f"{r[key]['p50_ms']:.2f} / {r[key]['p99_ms']:.2f}"

        table.add_row(
            f"{r['tools']:,}",
            pp("select_1"),
            pp("db_workspace"),
            f"{pp('db_whole')} {r['db_whole']['statement']}",
            f"{r['db_workspace']['ratio_to_select_1']:.1f} / "
            f"{r['db_whole']['ratio_to_select_1']:.1f}",
            f"{r['db_whole_per_second_1']:.0f} / {r['db_whole_per_second_8']:.0f}",
            f"{r['recall_at_12_whole']:.3f}",
            pp("numpy_whole"),
            pp("bm25_whole"),
            pp("select_workspace"),
            pp("select_whole"),
            pp("select_whole_cached_embedding"),
            f"{pp('select_workspace_repeat')} · {pp('select_whole_repeat')}",
            f"{r.get('hnsw_build_seconds', float('nan')):.1f}",
        )
    console.print(table)
    forced = Table(title="whole table as one catalog, each statement forced (p50 / p99 ms)")
    for column in ("tools", "exact (b-tree + sort)", "hnsw"):
        forced.add_column(column, justify="right")
    for r in report["levels"]:
        if "forced" in r:
            f = r["forced"]
            forced.add_row(
                f"{r['tools']:,}",
                f"{f['exact']['p50_ms']:.2f} / {f['exact']['p99_ms']:.2f}",
                f"{f['hnsw']['p50_ms']:.2f} / {f['hnsw']['p99_ms']:.2f}",
            )
    console.print(forced)
    c = report["core_versus_raw"]
    console.print(
        "44-tool ranking statement, p50 ms: SQLAlchemy Core "
        f"{c['core']['p50_ms']:.3f}, raw asyncpg on the same pool {c['raw_asyncpg']['p50_ms']:.3f}"
        f", VectorStore.rank {c['store_rank']['p50_ms']:.3f}"
    )
    examples = Table(title="example vectors: DB step p50 / p99 ms (blended, and max beside it)")
    for column in (
        "catalog",
        "documents",
        "summaries",
        "p50 / p99",
        "recall@12 vs exact blend",
        "index build s",
        "index MB (documents / summaries)",
    ):
        examples.add_column(column, justify="right")
    for row in rows_for_table(report["examples"]):
        examples.add_row(*row)
    console.print(examples)
    for name, r in report["examples"].items():
        for ef, at in r.get("ef_search", {}).items():
            console.print(
                f"{name}, hnsw.ef_search {ef}: p50 / p99 {at['p50_ms']:.2f} / "
                f"{at['p99_ms']:.2f} ms, recall@12 {at['recall_at_12']:.3f}"
            )
    for size in (10_000, 100_000):
        blend = report["examples"].get(f"{size}_with")
        best = report["examples"].get(f"{size}_with_max")
        if blend and best:
            console.print(
                f"{size:,} tools with examples, blended statement / max statement (same run, "
                f"interleaved): p50 {blend['p50_ms'] / best['p50_ms']:.2f}x, "
                f"p99 {blend['p99_ms'] / best['p99_ms']:.2f}x"
            )
    if "million" in report:
        m = report["million"]
        console.print(
            f"{m['tools']:,} tools, one vector each: loaded in {m['load_seconds']:.0f} s, HNSW "
            f"(summary vectors) built in {m['hnsw_build_seconds']:.0f} s "
            f"({m['summary_hnsw_mb']:.0f} MB); whole table "
            f"p50 / p99 {m['db_whole']['p50_ms']:.2f} / {m['db_whole']['p99_ms']:.2f} ms, "
            f"recall@12 {m['recall_at_12']:.3f}; the 44-tool roster in it "
            f"{m['db_workspace']['p50_ms']:.2f} / {m['db_workspace']['p99_ms']:.2f} ms"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)))
    parser.add_argument("--rounds", type=int, default=300, help="queries per measurement")
    parser.add_argument(
        "--examples",
        default=",".join(map(str, EXAMPLE_SIZES)),
        help="synthetic catalogs with three examples a tool (sizes)",
    )
    parser.add_argument(
        "--million", action="store_true", help="add a 1,000,000-vector level (tens of minutes)"
    )
    args = parser.parse_args(argv)
    # A terminated run still stops and deletes its embedded Postgres (finally blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    console = Console(width=max(Console().width, 200))
    levels = sorted(int(level) for level in args.levels.split(",") if level)
    sizes = tuple(sorted(int(size) for size in args.examples.split(",") if size))
    report = asyncio.run(run(levels, args.rounds, console, sizes, args.million))
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
