"""What tools used together cost ``select()``: ``python -m evals.perf.companions`` (``make bench``).

The 527-tool fleet of ``evals.perf.fleet_latency``, published through the client, with every
tool given a usual companion (each pair counted in two turns, so every selection binds some).
For every eval message, interleaved so that load falls on all alike, hybrid ``select()`` with
each message seen for the first time:

- **off**: ``TOOLRET_COMPANIONS=0`` (the ranking alone);
- **in use**: the counts read once a minute (``REFRESH_SECONDS``): a selection pays only for
  placing companions;
- **read every time**: ``companion_refresh=0``, the worst case, each selection reading the
  catalog's counts beside its query embedding.

Reported as ratios to **off** in the same run. Writes ``evals/out/bench_companions.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.fleet_latency import fleet
from evals.perf.timing import percentiles
from toolret._settings import Settings
from toolret.embedders._e5 import BundledE5Embedder
from toolret.feedback._companion_store import CompanionStore
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_companions.json"
ROUNDS = 2
KINDS = ("off", "in_use", "every_time")


async def run(url: str, rounds: int = ROUNDS) -> dict[str, Any]:
    catalog = fleet()
    messages = list(dict.fromkeys(case.prompt for case in CASES))
    raw = BundledE5Embedder()
    await raw.warm_up()
    candidates = [tool.name for tool in catalog.candidates]
    samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
    bound: dict[str, int] = dict.fromkeys(KINDS, 0)
    async with VectorStore.from_url(url) as store:
        await index_catalog(store, raw, catalog)
        together = CompanionStore(store)
        for a, b in zip(candidates[::2], candidates[1::2], strict=False):
            for _ in range(2):
                await together.record([a, b])
        for round_ in range(rounds):  # fresh clients each round: every embedding is a first
            async with (
                ToolRetrievalClient(
                    embedder=raw, store=store, settings=Settings(companions=False)
                ) as off,
                ToolRetrievalClient(embedder=raw, store=store) as in_use,
                ToolRetrievalClient(embedder=raw, store=store, companion_refresh=0.0) as every,
            ):
                clients = dict(zip(KINDS, (off, in_use, every), strict=True))
                for client in clients.values():
                    await client.select(catalog, f"warm up the pool and the statements {round_}")
                for i, message in enumerate(messages):
                    order = list(KINDS[i % 3 :] + KINDS[: i % 3])
                    for kind in order:
                        client = clients[kind]
                        started = time.perf_counter()
                        await client.select(catalog, message)
                        samples[kind].append(time.perf_counter() - started)
                        selection = await client.select(catalog, message)  # reused: no cost
                        bound[kind] += len(selection.companions)
    report: dict[str, Any] = {
        "machine": machine(),
        "tools": len(catalog),
        "messages": len(messages),
        "rounds": rounds,
        "companions_bound_per_selection": {
            kind: bound[kind] / (len(messages) * rounds) for kind in KINDS
        },
        **{kind: percentiles(values) for kind, values in samples.items()},
    }
    for kind in KINDS[1:]:
        report[f"{kind}_ratio"] = report[kind]["p50_ms"] / report["off"]["p50_ms"]
    return report


def print_report(report: dict[str, Any], console: Console) -> None:
    table = Table(title=f"select() with tools used together, {report['tools']} tools")
    for column in ("selection", "p50 ms", "p99 ms", "× off", "companions bound"):
        table.add_column(column, justify="left" if column == "selection" else "right")
    labels = ("off", "in use (read once a minute)", "read every time")
    for kind, label in zip(KINDS, labels, strict=True):
        ratio = report.get(f"{kind}_ratio", 1.0)
        table.add_row(
            label,
            f"{report[kind]['p50_ms']:.1f}",
            f"{report[kind]['p99_ms']:.1f}",
            f"{ratio:.3f}",
            f"{report['companions_bound_per_selection'][kind]:.2f}",
        )
    console.print(table)
    console.print(report["machine"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    console = Console()
    with database() as url:
        report = asyncio.run(run(url, args.rounds))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print_report(report, console)
    console.print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
