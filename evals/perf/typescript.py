"""What the TypeScript client adds: a select through ``ToolretClient`` against the same
``POST /v1/select`` with bare ``fetch``, in one node process, one caller (``make bench``); and
each framework integration's per-turn work (``@toolret/client/ai-sdk``'s ``prepareStep``,
``@toolret/client/langchain``'s ``wrapModelCall``) against a bare ``select``.

The service runs as an operator runs it (``toolret serve``, its own process; the 44-tool roster
registered and indexed inline, as in ``evals.perf.http``). Both client paths are timed in
``clients/typescript/scripts/bench.mjs``, interleaved ABBA: over distinct messages (each path
its own, so neither reuses the other's query embedding), and over one message repeated (the
embedding cached: what is left is HTTP, JSON and the client's own work). The bar is a client
p50 at most 1.1x bare fetch's. The integrations are timed in ``scripts/bench-integrations.mjs``:
a turn of three model calls for a message the integration has not seen (one select inside),
paired ABBA with a bare select of the same message (the service's query cache holds both); the
bar is a median paired difference (turn - select) under 1 ms. Writes
``evals/out/perf_typescript.json``; compare ratios from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import tempfile
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

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "typescript"
OUT = ROOT / "evals" / "out" / "perf_typescript.json"
TARGET = 1.1
OVERHEAD_TARGET_MS = 1.0
INTEGRATIONS = ("ai-sdk", "langchain")


def build() -> None:
    """Compile the package to ``dist/`` (``make bench`` installs its packages first)."""
    if subprocess.run(["npm", "run", "--silent", "build"], cwd=PACKAGE).returncode != 0:
        raise SystemExit("the TypeScript client did not build: run make bench (it runs npm ci)")


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    texts = messages(2 * args.latency + 1)
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="toolret-perf-ts-") as directory:
        process = start_service(url, port, Path(directory) / "serve.log", args.budget)
        try:
            base = f"http://127.0.0.1:{port}"
            async with httpx.AsyncClient(base_url=base, timeout=300) as http:
                await wait_ready(http, process)
                registered = await http.post("/v1/catalogs/roster", json=registration())
                registered.raise_for_status()
            payload = {
                "url": base,
                "registration": registration(),
                "distinct": texts[1:],
                "repeated": texts[0],
                "repeats": args.repeats,
            }
            source = Path(directory) / "input.json"
            source.write_text(json.dumps(payload), encoding="utf-8")
            samples = await _node("scripts/bench.mjs", source)
            turns = await _node("scripts/bench-integrations.mjs", source)
        finally:
            process.terminate()
            process.wait(timeout=60)
    report: dict[str, Any] = {
        kind: {
            "client_p50_ms": _p50(samples["client"][kind]),
            "fetch_p50_ms": _p50(samples["fetch"][kind]),
            "ratio": _p50(samples["client"][kind]) / _p50(samples["fetch"][kind]),
            "samples": len(samples["client"][kind]),
        }
        for kind in ("distinct", "repeated")
    }
    report["integrations"] = {
        name: {
            "select_p50_ms": _p50(turns[name]["bare"]),
            "turn_p50_ms": _p50(turns[name]["turn"]),
            "overhead_ms": _p50(
                [t - b for t, b in zip(turns[name]["turn"], turns[name]["bare"], strict=True)]
            ),
            "cached_turn_p50_ms": _p50(turns[name]["cached"]),
            "samples": len(turns[name]["turn"]),
        }
        for name in INTEGRATIONS
    }
    return report


async def _node(script: str, source: Path) -> dict[str, Any]:
    """Run a bench script of the package on ``source``; the JSON it prints."""
    bench = await asyncio.create_subprocess_exec(
        "node", script, str(source), cwd=PACKAGE, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await bench.communicate()
    if bench.returncode != 0:
        raise SystemExit(f"{script} failed")
    result: dict[str, Any] = json.loads(out)
    return result


def _p50(values: Sequence[float]) -> float:
    return float(np.percentile(np.asarray(values), 50))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=100, help="distinct messages per path")
    parser.add_argument("--repeats", type=int, default=300, help="samples of one cached message")
    parser.add_argument("--budget", type=float, default=10.0, help="the service's time budget, s")
    args = parser.parse_args(argv)
    build()
    with database() as url:
        report = {"machine": machine(), **asyncio.run(measure(url, args))}
    table = Table(title=f"select: ToolretClient against bare fetch ({report['machine']})")
    for column in ("messages", "client p50 ms", "fetch p50 ms", "client / fetch"):
        table.add_column(column, justify="right" if column != "messages" else "left")
    for kind, label in (("distinct", "distinct"), ("repeated", "one, repeated (cached)")):
        row = report[kind]
        table.add_row(
            label,
            f"{row['client_p50_ms']:.2f}",
            f"{row['fetch_p50_ms']:.2f}",
            f"{row['ratio']:.3f}",
        )
    Console(width=120).print(table)
    turns = Table(
        title="a turn of three model calls through each integration, against a bare select"
    )
    for column in (
        "integration",
        "select p50 ms",
        "turn p50 ms",
        "turn - select ms",
        "cached turn ms",
    ):
        turns.add_column(column, justify="right" if column != "integration" else "left")
    for name, row in report["integrations"].items():
        turns.add_row(
            name,
            f"{row['select_p50_ms']:.2f}",
            f"{row['turn_p50_ms']:.2f}",
            f"{row['overhead_ms']:.3f}",
            f"{row['cached_turn_p50_ms']:.3f}",
        )
    Console(width=120).print(turns)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    worst = max(report["distinct"]["ratio"], report["repeated"]["ratio"])
    print(
        f"wrote {OUT}; target client / fetch <= {TARGET}: {'met' if worst <= TARGET else 'missed'}"
    )
    over = max(row["overhead_ms"] for row in report["integrations"].values())
    met = "met" if over < OVERHEAD_TARGET_MS else "missed"
    print(f"target integration turn - select < {OVERHEAD_TARGET_MS} ms: {met}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
