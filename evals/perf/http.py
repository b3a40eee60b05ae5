"""What HTTP costs: ``POST /v1/select`` against ``client.select`` in process (``make bench``).

The service runs as an operator runs it (``toolret serve``, its own process, no tokens, no
worker); the 44-tool roster with its examples is registered through it and indexed inline. The
in-process client ranks the very catalog the registration builds, on the same database.

1. **Latency, one caller**: p50 over distinct messages (each path embeds each message once),
   the two paths interleaved message by message; and over one message repeated (the query
   embedding cached, so the difference is what HTTP, the catalog look-up and JSON add). The
   difference is also given as the median of the paired differences.
2. **Throughput, 24 concurrent callers**: narrowed selections per second over messages neither
   path has seen, in-process and over HTTP (httpx, kept-alive connections), in short
   alternating rounds (in-process then HTTP, then HTTP then in-process, ...); the ratio is the
   median over each HTTP round against the in-process round beside it. Both paths get the
   same time budget, 10 s by default: with 1.5 s, a shared 2-core machine makes the 24th
   caller in line fall open, and what is measured is the budget.
3. **CPU time per selection** under that load, in this process (the caller; in process, all
   of it) and in the service's: the measure a shared machine's drifting load moves least.

Writes ``evals/out/perf_http.json`` and prints a table; the bars are a p50 within 2 ms of the
client's and at least 90% of its throughput. Compare ratios from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psutil
from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from evals.perf.load import messages
from toolret import to_openai
from toolret._catalog import Catalog
from toolret.demo.roster import catalog as roster
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration

OUT = Path(__file__).resolve().parents[1] / "out" / "perf_http.json"
CONCURRENCY = 24
STARTUP_DEADLINE = 300.0


def registration() -> dict[str, Any]:
    """The roster as a registration: OpenAI JSON, its core tools, examples and keywords."""
    return {
        "format": "openai",
        "tools": to_openai(roster),
        "core": [tool.name for tool in roster.core],
        "examples": {tool.name: list(tool.examples) for tool in roster if tool.examples},
        "keywords": {tool.name: list(tool.keywords) for tool in roster if tool.keywords},
    }


def start_service(
    url: str, port: int, log: Path, budget: float, **more: str
) -> subprocess.Popen[bytes]:
    """``toolret serve`` on ``url`` and ``port``, its stderr to ``log``; ``more`` environment."""
    toolret = str(Path(sys.executable).with_name("toolret"))
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "TOOLRET_SERVE_PORT": str(port),
        "TOOLRET_TIME_BUDGET_MS": str(round(budget * 1000)),
        **more,
    }
    env.pop("REDIS_URL", None)
    with log.open("wb") as err:
        return subprocess.Popen([toolret, "serve"], env=env, stderr=err)


async def wait_ready(http: httpx.AsyncClient, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"toolret serve exited with {process.returncode}")
        try:
            if (await http.get("/healthz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)  # polling a condition with a deadline
    raise SystemExit("toolret serve did not start")


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    catalog = build_catalog(CatalogRegistration.model_validate(registration()))
    texts = messages(args.latency + 2 * args.rounds * args.load)
    latency_texts, load_texts = texts[: args.latency], texts[args.latency :]
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="toolret-perf-http-") as directory:
        process = start_service(url, port, Path(directory) / "serve.log", args.budget)
        try:
            limits = httpx.Limits(
                max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY
            )
            async with (
                httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}", timeout=60, limits=limits
                ) as http,
                ToolRetrievalClient(url, time_budget=args.budget) as client,
            ):
                await wait_ready(http, process)
                registered = await http.post("/v1/catalogs/roster", json=registration())
                registered.raise_for_status()
                server = psutil.Process(process.pid)
                return await compare(client, http, server, catalog, latency_texts, load_texts, args)
        finally:
            process.terminate()
            process.wait(timeout=60)


async def compare(
    client: ToolRetrievalClient,
    http: httpx.AsyncClient,
    server: psutil.Process,
    catalog: Catalog,
    latency_texts: Sequence[str],
    load_texts: Sequence[str],
    args: argparse.Namespace,
) -> dict[str, Any]:
    async def direct(text: str) -> str:
        return (await client.select(catalog, text)).mode.value

    async def served(text: str) -> str:
        response = await http.post("/v1/select", json={"catalog": "roster", "message": text})
        response.raise_for_status()
        mode: str = response.json()["mode"]
        return mode

    for warm in ("warm up the model", "and the connections"):  # neither path pays first-use
        await direct(warm)
        await served(warm)
    distinct: dict[str, list[float]] = {"client": [], "http": []}
    for text in latency_texts:  # interleaved, message by message
        for name, path in (("client", direct), ("http", served)):
            distinct[name].append(await timed(path, text))
    repeated: dict[str, list[float]] = {"client": [], "http": []}
    floor: list[float] = []
    for _ in range(args.repeats):
        for name, path in (("client", direct), ("http", served)):
            repeated[name].append(await timed(path, latency_texts[0]))
        started = time.perf_counter()
        (await http.get("/healthz")).raise_for_status()
        floor.append((time.perf_counter() - started) * 1000)
    load: dict[str, list[dict[str, float]]] = {"client": [], "http": []}
    paths = [("client", direct), ("http", served)]
    for number in range(args.rounds):  # alternating rounds, ABBA: a shared machine's load drifts
        for name, path in paths if number % 2 == 0 else paths[::-1]:
            start = (2 * number + (name == "http")) * args.load
            batch = load_texts[start : start + args.load]
            load[name].append(await throughput(path, batch, server))
    return {
        "latency_distinct": _latency(distinct),
        "latency_cached": _latency(repeated),
        "http_round_trip": _p50(floor),
        "load_ratio": float(
            np.median(
                [
                    h["per_second"] / c["per_second"]
                    for c, h in zip(load["client"], load["http"], strict=True)
                ]
            )
        ),
        "load_rounds": load,
        "load": {
            name: {
                "per_second": float(np.median([run["per_second"] for run in runs])),
                "narrowed": sum(run["narrowed"] for run in runs),
                "selections": sum(run["selections"] for run in runs),
                "caller_cpu_ms": float(np.median([run["caller_cpu_ms"] for run in runs])),
                "service_cpu_ms": float(np.median([run["service_cpu_ms"] for run in runs])),
            }
            for name, runs in load.items()
        },
    }


async def timed(path: Callable[[str], Awaitable[str]], text: str) -> float:
    started = time.perf_counter()
    mode = await path(text)
    elapsed = (time.perf_counter() - started) * 1000
    if mode != Mode.NARROWED.value:
        raise SystemExit(f"a selection fell open ({mode}): the numbers would not compare")
    return elapsed


async def throughput(
    path: Callable[[str], Awaitable[str]], texts: Sequence[str], server: psutil.Process
) -> dict[str, float]:
    """Narrowed selections per second with ``CONCURRENCY`` callers sharing ``texts``, and the
    CPU time per selection of this process (the caller, and the in-process client's model)
    and of the service's."""
    queue = list(texts)
    narrowed = 0

    async def caller() -> None:
        nonlocal narrowed
        while queue:
            mode = await path(queue.pop())
            narrowed += mode == Mode.NARROWED.value

    started, own, served = time.perf_counter(), time.process_time(), _cpu(server)
    await asyncio.gather(*(caller() for _ in range(CONCURRENCY)))
    seconds = time.perf_counter() - started
    count = len(texts)
    return {
        "per_second": narrowed / seconds,
        "narrowed": narrowed,
        "selections": count,
        "caller_cpu_ms": (time.process_time() - own) * 1000 / count,
        "service_cpu_ms": (_cpu(server) - served) * 1000 / count,
    }


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def print_report(report: dict[str, Any], console: Console) -> None:
    table = Table(title=f"POST /v1/select against client.select ({report['machine']})")
    for column in ("measure", "client.select", "POST /v1/select", "HTTP − client", "HTTP / client"):
        table.add_column(column, justify="right" if column != "measure" else "left")
    for key, label in (
        ("latency_distinct", "p50 ms, distinct messages"),
        ("latency_cached", "p50 ms, query embedding cached"),
    ):
        client, http = report[key]["client"], report[key]["http"]
        paired = report[key]["paired_difference"]
        table.add_row(
            label, f"{client:.2f}", f"{http:.2f}", f"{paired:+.2f} (paired)", f"{http / client:.2f}"
        )
    table.add_row(
        "p50 ms, GET /healthz (an HTTP round trip)", "", f"{report['http_round_trip']:.2f}"
    )
    client, http = report["load"]["client"], report["load"]["http"]
    table.add_row(
        f"narrowed selections/s at {CONCURRENCY} callers",
        f"{client['per_second']:.1f}",
        f"{http['per_second']:.1f}",
        f"{http['per_second'] - client['per_second']:+.1f}",
        f"{report['load_ratio']:.2f} (paired rounds)",
    )
    cpu = Table(title="CPU time per selection under load, ms (median of rounds)")
    for column in ("path", "this process (caller; in-process: everything)", "toolret serve"):
        cpu.add_column(column, justify="right" if column != "path" else "left")
    for name in ("client", "http"):
        run = report["load"][name]
        cpu.add_row(name, f"{run['caller_cpu_ms']:.1f}", f"{run['service_cpu_ms']:.1f}")
    console.print(table)
    console.print(cpu)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=60, help="distinct messages, one caller")
    parser.add_argument("--repeats", type=int, default=60, help="samples of one cached message")
    parser.add_argument("--load", type=int, default=48, help="messages per throughput round")
    parser.add_argument("--rounds", type=int, default=6, help="throughput rounds per path")
    parser.add_argument(
        "--budget",
        type=float,
        default=10.0,
        help="time budget of both paths, seconds: long, so that a loaded machine measures "
        "throughput rather than falling open",
    )
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 120))
    with database() as url:
        report = {
            "machine": machine(),
            "concurrency": CONCURRENCY,
            **asyncio.run(measure(url, args)),
        }
    print_report(report, console)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    console.print(f"wrote {OUT}")
    return 0


def _latency(samples: dict[str, list[float]]) -> dict[str, float]:
    """Each path's p50, and the median of the paired differences (the two paths measured one
    right after the other), which a drifting machine load moves least."""
    paired = np.asarray(samples["http"]) - np.asarray(samples["client"])
    return {
        "client": _p50(samples["client"]),
        "http": _p50(samples["http"]),
        "paired_difference": float(np.median(paired)),
    }


def _p50(samples: Sequence[float]) -> float:
    return float(np.percentile(np.asarray(samples), 50))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


if __name__ == "__main__":
    raise SystemExit(main())
