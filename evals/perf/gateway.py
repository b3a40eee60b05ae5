"""What the gateway costs: find_tools through ``toolret gateway`` against ``client.find_tools`` in
process (``make bench``).

The gateway runs as an MCP client starts it (``toolret gateway --config``, its own process,
over stdio) and as an operator runs it (``--http``, its own process); the MCP SDK's client
calls its ``find_tools`` tool. Behind each, one upstream it starts over stdio
(``python -m evals.perf.gateway --upstream``) lists the 44-tool demo roster. The in-process
client ranks the catalog the gateway builds from that listing (``catalog_from_mcp``), on the
same database, once the gateway has indexed it.

Latency, one caller: p50 over distinct capability phrases (each path embeds each phrase once),
the three paths interleaved phrase by phrase, and the difference as the median of the paired
differences; beside it, each transport's MCP round trip alone (``call_tool`` of a name no tool
has, answered without ranking). Writes ``evals/out/perf_gateway.json`` and prints a table;
the bar is a gateway p50 within ``TARGET_MS`` of the client's. Compare figures from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from mcp import Client, StdioServerParameters, types
from mcp.server import Server
from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from evals.perf.load import messages
from toolret.adapters._mcp import catalog_from_mcp
from toolret.demo.roster import catalog as roster
from toolret.retrieval._client import ToolRetrievalClient

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "evals" / "out" / "perf_gateway.json"
TARGET_MS = 3.0
"""The bar: the gateway's find_tools p50 at most this much above the in-process client's."""
STARTUP_DEADLINE = 300.0
SERVER = "demo"


def fleet() -> list[types.Tool]:
    """The demo roster as one MCP server lists it."""
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=dict(tool.input_schema or {"type": "object", "properties": {}}),
        )
        for tool in roster
    ]


async def serve_upstream() -> None:
    """The upstream, over stdio: the demo roster, listed."""
    from mcp.server.stdio import stdio_server

    tools = fleet()

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    server: Server[Any] = Server(SERVER, on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def find(client: Client, capability: str) -> dict[str, Any]:
    result = await client.call_tool("find_tools", {"capabilities": [capability]})
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    answer: dict[str, Any] = result.structured_content or json.loads(content.text)
    return answer


async def settled(client: Client) -> None:
    """Until the gateway ranks by meaning with its upstream up (polled: a benchmark's wait)."""
    deadline = time.monotonic() + STARTUP_DEADLINE
    while True:
        answer = await find(client, "send an email")
        if "ranking" not in answer and not answer["unavailable"]:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"the gateway did not settle: {answer}")
        await asyncio.sleep(0.2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def measure(url: str, count: int) -> dict[str, Any]:
    toolret = str(Path(sys.executable).with_name("toolret"))
    env = {"DATABASE_URL": url, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}  # this checkout
    phrases = messages(count + 10)
    entry = {
        "command": sys.executable,
        "args": ["-m", "evals.perf.gateway", "--upstream"],
        "env": {"PYTHONPATH": str(REPO)},
        "cwd": str(REPO),
    }
    with tempfile.TemporaryDirectory() as directory:
        config = Path(directory) / "gateway.json"
        config.write_text(json.dumps({"mcpServers": {SERVER: entry}}))
        port = free_port()
        process = await asyncio.create_subprocess_exec(
            *(toolret, "gateway", "--config", str(config), "--http", "--port", str(port)),
            env=env,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await _healthy(f"http://127.0.0.1:{port}")
            stdio = StdioServerParameters(
                command=toolret, args=["gateway", "--config", str(config)], env=env
            )
            async with (
                Client(stdio) as over_stdio,
                Client(f"http://127.0.0.1:{port}/mcp") as over_http,
                ToolRetrievalClient(url) as retrieval,
            ):
                await settled(over_stdio)
                await settled(over_http)
                catalog = catalog_from_mcp({SERVER: fleet()})
                await retrieval.index(catalog)  # the gateway's corpus: nothing to embed

                async def in_process(text: str) -> object:
                    return await retrieval.find_tools(catalog, text)

                paths: dict[str, Callable[[str], Awaitable[object]]] = {
                    "in_process": in_process,
                    "stdio": lambda text: find(over_stdio, text),
                    "http": lambda text: find(over_http, text),
                }
                samples = await _interleaved(paths, phrases)
                trips = await _interleaved(
                    {
                        "stdio": lambda _: over_stdio.call_tool("call_tool", {"name": "none"}),
                        "http": lambda _: over_http.call_tool("call_tool", {"name": "none"}),
                    },
                    phrases,
                )
        finally:
            process.terminate()
            await process.wait()
    base = np.asarray(samples["in_process"])
    report: dict[str, Any] = {"phrases": count, "tools": len(fleet())}
    report["in_process_p50_ms"] = float(np.percentile(base, 50))
    for path in ("stdio", "http"):
        values = np.asarray(samples[path])
        report[path] = {
            "p50_ms": float(np.percentile(values, 50)),
            "ratio": float(np.percentile(values, 50) / np.percentile(base, 50)),
            "paired_difference_ms": float(np.median(values - base)),
            "round_trip_p50_ms": float(np.percentile(trips[path], 50)),
        }
    return report


async def _healthy(base: str) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    async with httpx.AsyncClient(base_url=base) as http:
        while time.monotonic() < deadline:
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit(f"toolret gateway --http did not answer /healthz at {base}")


async def _interleaved(
    paths: dict[str, Callable[[str], Awaitable[object]]], phrases: Sequence[str]
) -> dict[str, list[float]]:
    """Milliseconds per call, each phrase through every path in turn; 10 phrases of warm-up."""
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for index, phrase in enumerate(phrases):
        for name, call in paths.items():
            started = time.perf_counter()
            await call(phrase)
            if index >= 10:
                samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phrases", type=int, default=100, help="distinct phrases per path")
    parser.add_argument("--upstream", action="store_true", help="serve the upstream over stdio")
    args = parser.parse_args(argv)
    if args.upstream:
        asyncio.run(serve_upstream())
        return 0
    with database() as url:
        report = {"machine": machine(), **asyncio.run(measure(url, args.phrases))}
    table = Table(title=f"find_tools: the gateway against client.find_tools ({report['machine']})")
    for column in ("path", "p50 ms", "ratio", "paired difference ms", "round trip p50 ms"):
        table.add_column(column, justify="right" if column != "path" else "left")
    in_process = f"{report['in_process_p50_ms']:.2f}"
    table.add_row("in process (client.find_tools)", in_process, "1", "", "")
    for path, label in (("stdio", "toolret gateway, stdio"), ("http", "toolret gateway --http")):
        row = report[path]
        table.add_row(
            label,
            f"{row['p50_ms']:.2f}",
            f"{row['ratio']:.2f}",
            f"{row['paired_difference_ms']:+.2f}",
            f"{row['round_trip_p50_ms']:.2f}",
        )
    Console(width=120).print(table)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    worst = max(report[path]["p50_ms"] - report["in_process_p50_ms"] for path in ("stdio", "http"))
    verdict = "met" if worst <= TARGET_MS else "missed"
    print(f"wrote {OUT}; target gateway p50 <= client's + {TARGET_MS:g} ms: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
