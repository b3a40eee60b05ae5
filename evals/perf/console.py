"""What the console costs the request path: ``python -m evals.perf.console`` (``make bench``).

Two ``toolret serve`` processes on one database, as an operator runs them (no tokens, no
worker): one with the console mounted at ``/console`` (the default), one without
(``TOOLRET_SERVE_CONSOLE=0``).
``POST /v1/select`` is timed on each, interleaved message by message over messages neither has
seen (each embeds each message once), and, as a second figure, the same with ``explain: true``
(what the Playground asks) against the plain request on the console's process. The roster is
registered and indexed from this process before either service starts, so both start alike.

The bar: select p50 with the console mounted at most 1.02 × without, taken as the median of the
per-message ratios (each message is sent to both processes one after the other, so a shared
machine's drifting load falls on both alike; the ratio of the two p50s is printed beside it and
moves by ±20% between runs on a loaded 2-core machine). Writes
``evals/out/perf_console.json`` and prints a table; compare ratios from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from evals.perf.http import _free_port, registration, start_service, wait_ready
from evals.perf.load import messages

OUT = Path(__file__).resolve().parents[1] / "out" / "perf_console.json"
BAR = 1.02


async def _select(http: httpx.AsyncClient, text: str, *, explain: bool = False) -> float:
    started = time.perf_counter()
    body = {"catalog": "roster", "message": text, "explain": explain}
    response = await http.post("/v1/select", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    if response.json()["mode"] != "narrowed":
        raise SystemExit("a selection fell open: the numbers would not compare")
    return elapsed


async def register(url: str) -> None:
    """The roster registered as ``roster`` and indexed, as the service would do it."""
    from toolret.retrieval._client import ToolRetrievalClient
    from toolret.service._catalogs import CatalogRegistry
    from toolret.service._models import CatalogRegistration

    registry = CatalogRegistry.open(url, time_budget=30.0)
    try:
        catalog, _ = await registry.put(
            "roster", CatalogRegistration.model_validate(registration())
        )
    finally:
        await registry.aclose()
    async with ToolRetrievalClient(url) as client:
        await client.index(catalog)


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    await register(url)
    texts = messages(2 * args.messages + 4)
    ports = {"with": _free_port(), "without": _free_port()}
    with tempfile.TemporaryDirectory(prefix="toolret-perf-console-") as directory:
        processes = {
            name: start_service(
                url,
                port,
                Path(directory) / f"{name}.log",
                args.budget,
                **({} if name == "with" else {"TOOLRET_SERVE_CONSOLE": "0"}),
            )
            for name, port in ports.items()
        }
        try:
            clients = {
                name: httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60)
                for name, port in ports.items()
            }
            for name, http in clients.items():
                await wait_ready(http, processes[name])
            (
                await clients["with"].post("/v1/catalogs/roster", json=registration())
            ).raise_for_status()
            assert (await clients["without"].get("/console/health.json")).status_code == 404
            for http in clients.values():  # neither pays first use
                for warm in texts[:2]:
                    await _select(http, warm)
            times: dict[str, list[float]] = {"with": [], "without": [], "explain": []}
            for i, text in enumerate(texts[4 : 4 + args.messages]):
                order = ("with", "without") if i % 2 == 0 else ("without", "with")
                for name in order:
                    times[name].append(await _select(clients[name], text))
            for text in texts[4 + args.messages :]:  # plain then explained, on new messages
                times["explain"].append(await _select(clients["with"], text, explain=True))
            for http in clients.values():
                await http.aclose()
        finally:
            for process in processes.values():
                process.terminate()
                process.wait(timeout=60)
    p50 = {name: float(np.percentile(values, 50)) for name, values in times.items()}
    pairs = list(zip(times["with"], times["without"], strict=True))
    paired = [a - b for a, b in pairs]
    return {
        "p50_ms": p50,
        "ratio": float(np.median([a / b for a, b in pairs])),
        "p50_ratio": p50["with"] / p50["without"],
        "paired_difference_ms": float(np.median(paired)),
        "explain_ratio": p50["explain"] / p50["with"],
        "messages": args.messages,
        "bar": BAR,
        "machine": machine(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, write the JSON, print the table; 1 when the ratio is over the bar."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=120, help="distinct messages per path")
    parser.add_argument("--budget", type=float, default=10.0, help="time budget, seconds")
    args = parser.parse_args(argv)
    with database() as url:
        result = asyncio.run(measure(url, args))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2))
    table = Table(title=f"POST /v1/select, {args.messages} messages each (p50, ms)")
    columns = ("console mounted", "without", "paired ratio", "p50 ratio", "paired diff")
    for column in (*columns, "explain / plain"):
        table.add_column(column, justify="right")
    p50 = result["p50_ms"]
    table.add_row(
        f"{p50['with']:.1f}",
        f"{p50['without']:.1f}",
        f"{result['ratio']:.3f} (bar {BAR})",
        f"{result['p50_ratio']:.3f}",
        f"{result['paired_difference_ms']:+.2f}",
        f"{result['explain_ratio']:.2f}",
    )
    Console().print(table)
    return 0 if result["ratio"] <= BAR else 1


if __name__ == "__main__":
    raise SystemExit(main())
