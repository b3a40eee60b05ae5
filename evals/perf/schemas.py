"""Checking input schemas: ``python -m evals.perf.schemas [--fleet servers.json]`` (in ``make
bench``).

Every catalog checks each tool's input schema against the JSON Schema metaschema when it is
built (``toolret._input_schema``): in the application at import, in ``toolret serve`` on each
registration and whenever a process rebuilds a catalog, in the gateway on each listing. This
measures that check on a whole fleet with what toolret runs (jsonschema-rs) against
python-jsonschema, its 2020-12 and draft-7 metaschema validators each built once and reused:
the median of ``--repeats`` passes over every schema, the fleet's whole ``catalog_from_mcp``
for scale, and each library's import in a fresh interpreter.

The fleet is the synthetic 527-tool one of ``evals.perf.fleet_latency``, or ``--fleet``: a JSON
file mapping each MCP server to its tools (a benchmark's ``servers.json``). Writes
``evals/out/bench_schemas.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.perf.database import machine
from evals.perf.fleet_latency import fleet
from toolret._input_schema import schema_problem
from toolret.adapters._mcp import catalog_from_mcp

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_schemas.json"
REPEATS = 5


def _timed(check: Callable[[], object], repeats: int) -> float:
    """Median ms of ``repeats`` calls of ``check``."""
    walls = []
    for _ in range(repeats):
        started = time.perf_counter()
        check()
        walls.append((time.perf_counter() - started) * 1000)
    return statistics.median(walls)


def _import_ms(module: str) -> float:
    """Milliseconds to import ``module`` in a fresh interpreter (median of three)."""
    script = (
        f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", script], capture_output=True, check=True,
                             text=True).stdout) * 1000
        for _ in range(3)
    ]  # fmt: skip
    return statistics.median(runs)


def measure(servers: Mapping[str, Any], repeats: int) -> dict[str, Any]:
    from jsonschema import Draft7Validator, Draft202012Validator

    schemas = [
        tool.get("inputSchema") or {"type": "object"}
        for tools in servers.values()
        for tool in (tools["tools"] if isinstance(tools, Mapping) else tools)
    ]
    draft2020 = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    draft7 = Draft7Validator(Draft7Validator.META_SCHEMA)
    rows = {
        "jsonschema-rs (toolret's check)": _timed(
            lambda: [schema_problem(s) for s in schemas], repeats
        ),
        "python-jsonschema, 2020-12 metaschema": _timed(
            lambda: [list(draft2020.iter_errors(s)) for s in schemas], repeats
        ),
        "python-jsonschema, draft-7 metaschema": _timed(
            lambda: [list(draft7.iter_errors(s)) for s in schemas], repeats
        ),
        "catalog_from_mcp, the whole fleet (check included)": _timed(
            lambda: catalog_from_mcp(servers, min_description_length=1), repeats
        ),
    }
    imports = {module: _import_ms(module) for module in ("jsonschema_rs", "jsonschema")}
    return {"machine": machine(), "tools": len(schemas), "ms": rows, "import_ms": imports}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.perf.schemas", description=__doc__)
    parser.add_argument("--fleet", type=Path, help="a JSON file: {server: [MCP tools]}")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args(argv)
    if args.fleet is not None:
        servers = json.loads(args.fleet.read_text(encoding="utf-8"))
    else:
        servers = {}
        for tool in fleet():
            origin = tool.definition
            servers.setdefault(origin.server, []).append(origin.tool)
    report = measure(servers, args.repeats)
    table = Table(title=f"checking {report['tools']} input schemas · {report['machine']}")
    table.add_column("what")
    table.add_column("ms, median", justify="right")
    table.add_column("per schema, µs", justify="right")
    for what, ms in report["ms"].items():
        table.add_row(what, f"{ms:.2f}", f"{ms * 1000 / report['tools']:.1f}")
    for module, ms in report["import_ms"].items():
        table.add_row(f"import {module} (fresh interpreter)", f"{ms:.1f}", "")
    Console(width=120).print(table)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
