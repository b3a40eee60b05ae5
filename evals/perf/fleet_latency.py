"""The request path on a fleet: ``python -m evals.perf.fleet_latency`` (part of ``make bench``).

A synthetic MCP-like fleet of 527 tools on 70 servers (the size of the real fleets the project
is judged on): each tool named ``server__verb_object``, its description and parameters written
from the demo roster's English vocabulary, so the eval's English messages share words with
dozens of tools, as real requests do with a fleet's; embedded with the bundled model and
published through the client. Its 527 description vectors are within ``EXACT_LIMIT``, so the
store ranks it exactly by default; the ``hits_indexed`` row forces the HNSW index, as a fleet
past the limit is ranked, beside ``hits_exact``.

For every eval message, interleaved so that load falls on all alike:

- the query embedding alone (the bundled model, nothing cached), and its sparse vector (the
  second pass, which the messages in a language the fleet is not in get);
- the ranking statement alone (``VectorStore.rank``, k 12, with the sparse query where the
  message gets one) and a bare ``SELECT 1``;
- the same statement with the message's lexical hits scored in it (``include=``, what hybrid
  sends), and the same forced to rank exactly;
- ``select()`` end to end in dense and in hybrid mode, each message seen for the first time;
- what ranking each clause of the message would add: one more embedding per clause
  (``toolret.recall.studies._fleets.clauses``, sentences and "and"/"then", at least 3 words);
- find_tools through the client (``toolret.retrieval._find_tools.find_each``) with one
  capability and with three, each phrase new to the client: a
  multi-capability call costs one query embedding per capability, ranked concurrently.

The bar: hybrid ``select()`` p50 at most 1.1 × the p50 of each message's floor (its embedding,
its sparse vector where it gets one, and its statement, timed in the same round). Writes
``evals/out/bench_fleet.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.timing import percentiles
from toolret._catalog import Catalog
from toolret.adapters._mcp import catalog_from_mcp
from toolret.demo.roster import TOOLS
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.recall.studies._fleets import SPLITTERS, clauses
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._find_tools import find_each
from toolret.retrieval._hybrid import INCLUDE_LIMIT, lexical_hits
from toolret.retrieval._lexical import catalog_index, tokenize
from toolret.retrieval._sparse import sparse_query, sparse_weight
from toolret.store._read import SparseQuery
from toolret.store._sql import EXACT_LIMIT, CatalogQuery
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_fleet.json"
TOOLS_IN_FLEET = 527
SERVERS = 70
K = 12
BAR = 1.1
ROUNDS = 3
"""Each message is measured this many times, with fresh clients (cold query caches)."""
VERBS = ("get", "list", "search", "create", "update", "delete", "export", "send", "find", "count")


def fleet(seed: int = 17) -> Catalog:
    """527 tools on 70 servers, written from the roster's English words (see the docstring)."""
    rng = np.random.default_rng(seed)
    words = sorted(
        {w for tool in TOOLS for w in tokenize(tool.description) if len(w) > 3 and w.isalpha()}
    )
    servers: dict[str, list[dict[str, Any]]] = {}
    for i in range(TOOLS_IN_FLEET):
        server = f"{words[(i % SERVERS) * 7 % len(words)]}_{i % SERVERS:02d}"
        picked = [str(w) for w in rng.choice(words, size=int(rng.integers(6, 15)))]
        name = f"{VERBS[int(rng.integers(len(VERBS)))]}_{picked[0]}_{i}"
        parameters = {
            str(w): {"type": "string", "description": f"the {w} to use"}
            for w in rng.choice(words, size=int(rng.integers(1, 4)))
        }
        servers.setdefault(server, []).append(
            {
                "name": name,
                "description": f"{name.replace('_', ' ').capitalize()}: " + " ".join(picked),
                "inputSchema": {"type": "object", "properties": parameters},
            }
        )
    return catalog_from_mcp(servers, min_description_length=1)


async def sparse_of(model: BundledE5Embedder, catalog: Catalog, text: str) -> SparseQuery | None:
    """The message's sparse query as the client makes it, or None when it gets no sparse
    signal (its language is one of the catalog's)."""
    profile = model.profile
    weight = sparse_weight(catalog, text, profile)
    if weight <= 0:
        return None
    vector = await sparse_query(model, text, profile)
    return SparseQuery(vector, weight, model.sparse_head.key(profile.sparse_latents))


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return time.perf_counter() - started


async def run(url: str, console: Console, rounds: int = ROUNDS) -> dict[str, Any]:
    catalog = fleet()
    messages = list(dict.fromkeys(case.prompt for case in CASES))
    raw = BundledE5Embedder()
    await raw.warm_up()
    splitter = SPLITTERS["sentences, and/then"]
    names = ("embed", "sparse", "statement", "select_1", "dense", "hybrid", "clauses", "find_1")
    names += ("find_3", "floor")
    extra = ("hits_indexed", "hits_exact", "embed_words", "statement_words")
    samples: dict[str, list[float]] = {
        name: [] for name in (*names, *extra, "dense_words", "hybrid_words")
    }
    index = catalog_index(catalog)
    hits = {
        m: {"limit": K, "include": lexical_hits(catalog, index.score_map(m)).first}
        for m in messages
    }
    parts = [clauses(message, splitter, 3) for message in messages]
    query = CatalogQuery.build(catalog, raw.model_id, raw.example_role, raw.profile)
    async with VectorStore.from_url(url) as store:
        started = time.perf_counter()
        await index_catalog(store, raw, catalog)
        indexing = time.perf_counter() - started
    console.print(f"indexed {len(catalog)} tools in {indexing:.0f} s; measuring…")
    async with (
        VectorStore.from_url(url) as store,
        VectorStore.from_url(url, exact_limit=0) as indexed,
        VectorStore.from_url(url, exact_limit=10**9) as exact,
    ):
        for round_ in range(rounds):  # fresh clients each round: every embedding is a first
            async with (
                ToolRetrievalClient(embedder=raw, store=store, mode="dense") as dense,
                ToolRetrievalClient(embedder=raw, store=store, mode="hybrid") as hybrid,
                ToolRetrievalClient(embedder=raw, store=store, mode="hybrid") as finder,
            ):
                for client in (dense, hybrid, finder):  # warm the pool and the statements
                    await client.select(catalog, f"warm up the pool and the statements {round_}")
                for i, message in enumerate(messages):
                    vector = await raw.embed_query(message)
                    sparse = await sparse_of(raw, catalog, message)
                    asked = hits[message]
                    steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
                        ("embed", lambda m=message: raw.embed_query(m)),
                        ("sparse", lambda m=message: raw.embed_sparse([m], "query")),
                        (
                            "statement",
                            lambda v=vector, s=sparse: store.rank(query, v, limit=K, sparse=s),
                        ),
                        ("select_1", store.ping),
                        ("hits_indexed", lambda v=vector, h=asked: indexed.rank(query, v, **h)),
                        ("hits_exact", lambda v=vector, h=asked: exact.rank(query, v, **h)),
                        ("dense", lambda m=message: dense.select(catalog, m)),
                        ("hybrid", lambda m=message: hybrid.select(catalog, m)),
                    ]
                    one = [f"{message} {round_}"]  # phrases the finder has not embedded
                    three = [f"{message} ({part}) {round_}" for part in ("a", "b", "c")]
                    steps += [
                        ("find_1", lambda o=one: find_each(finder, catalog, o)),
                        ("find_3", lambda t=three: find_each(finder, catalog, t)),
                    ]
                    turn = (i + round_) % len(steps)
                    for name, call in steps[turn:] + steps[:turn]:
                        samples[name].append(await timed(call))
                    paid = samples["sparse"][-1] if sparse is not None else 0.0
                    samples["floor"].append(samples["embed"][-1] + paid + samples["statement"][-1])
                    if hits[message]["include"]:
                        for name in ("embed", "statement", "dense", "hybrid"):
                            samples[f"{name}_words"].append(samples[name][-1])
                    clause_cost = 0.0
                    for part in parts[i]:
                        clause_cost += await timed(lambda p=part: raw.embed_query(p))
                    samples["clauses"].append(clause_cost)
                narrowed = [(await hybrid.select(catalog, m)).narrowed for m in messages]
    counts = [len(lexical_hits(catalog, index.score_map(m)).hits) for m in messages]
    report: dict[str, Any] = {
        "machine": machine(),
        "model": raw.model_id,
        "tools": len(catalog),
        "servers": SERVERS,
        "documents": query.documents,
        "statement_kind": "hnsw" if query.documents > EXACT_LIMIT else "exact",
        "messages": len(messages),
        "all_narrowed": all(narrowed),
        "lexical_hits_mean": float(np.mean(counts)),
        "lexical_hits_p90": float(np.percentile(counts, 90)),
        "messages_over_include_limit": sum(h > INCLUDE_LIMIT for h in counts),
        "multi_clause_share": float(np.mean([bool(p) for p in parts])),
        "clauses_mean_when_split": float(np.mean([len(p) for p in parts if p] or [0])),
        "indexing_seconds": indexing,
        **{name: percentiles(values) for name, values in samples.items()},
    }
    floor = report["floor"]["p50_ms"]
    report["floor_p50_ms"] = floor
    report["dense_ratio"] = report["dense"]["p50_ms"] / floor
    report["hybrid_ratio"] = report["hybrid"]["p50_ms"] / floor
    report["find_3_to_find_1"] = report["find_3"]["p50_ms"] / report["find_1"]["p50_ms"]
    report["find_3_to_embeddings"] = report["find_3"]["p50_ms"] / (3 * report["embed"]["p50_ms"])
    words = report["embed_words"]["p50_ms"] + report["statement_words"]["p50_ms"]
    report["words_share"] = len(samples["hybrid_words"]) / len(samples["hybrid"])
    report["dense_ratio_words"] = report["dense_words"]["p50_ms"] / words
    report["hybrid_ratio_words"] = report["hybrid_words"]["p50_ms"] / words
    split = [s for s, p in zip(samples["clauses"], parts * rounds, strict=True) if p]
    report["clauses_when_split"] = percentiles(split) if split else {}
    return report


def print_report(report: dict[str, Any], console: Console) -> None:
    table = Table(title=f"a {report['tools']}-tool fleet ({report['machine']})")
    for column in ("step", "p50 ms", "p99 ms"):
        table.add_column(column, justify="left" if column == "step" else "right")
    for name, label in (
        ("embed", "query embedding (bundled model)"),
        ("sparse", "the query's sparse vector (a second pass)"),
        ("statement", f"ranking statement ({report['statement_kind']}, k {K}, sparse as asked)"),
        ("floor", "embedding + sparse vector where asked + statement, per message"),
        ("hits_indexed", "the same, the lexical hits scored in it (hybrid's statement)"),
        ("hits_exact", "the same forced exact, the lexical hits scored in it"),
        ("select_1", "SELECT 1"),
        ("dense", "select(), dense"),
        ("hybrid", "select(), hybrid (the default)"),
        ("dense_words", "select(), dense, messages sharing words with the fleet"),
        ("hybrid_words", "select(), hybrid, messages sharing words with the fleet"),
        ("clauses", "per clause: the extra embeddings, every message"),
        ("clauses_when_split", "per clause: the extra embeddings, split messages"),
        ("find_1", "find_tools, one capability (client, hybrid)"),
        ("find_3", "find_tools, three capabilities in one call"),
    ):
        if report.get(name):
            table.add_row(label, f"{report[name]['p50_ms']:.2f}", f"{report[name]['p99_ms']:.2f}")
    console.print(table)
    verdict = "meets" if report["hybrid_ratio"] <= BAR else "misses"
    console.print(
        f"hybrid select p50 / (embedding + sparse where asked + statement) = "
        f"{report['hybrid_ratio']:.3f} "
        f"({verdict} the {BAR}x bar); dense {report['dense_ratio']:.3f}. Lexical hits per "
        f"message: mean {report['lexical_hits_mean']:.0f}, p90 {report['lexical_hits_p90']:.0f} "
        f"({report['messages_over_include_limit']} over {INCLUDE_LIMIT}). "
        f"{100 * report['multi_clause_share']:.0f}% of messages split into clauses "
        f"({report['clauses_mean_when_split']:.1f} on average). Messages sharing words with the "
        f"fleet ({100 * report['words_share']:.0f}%): hybrid {report['hybrid_ratio_words']:.3f}, "
        f"dense {report['dense_ratio_words']:.3f} of their own floor. find_tools with three "
        f"capabilities: {report['find_3_to_find_1']:.2f} x one capability, "
        f"{report['find_3_to_embeddings']:.2f} x three query embeddings."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="times each message is timed")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 160))
    with database() as url:
        report = asyncio.run(run(url, console, args.rounds))
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0 if report["all_narrowed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
