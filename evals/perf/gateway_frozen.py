"""A frozen upstream under ``toolret gateway --http`` with its defaults (``make bench``).

The gateway runs as an operator runs it (its own process, the default ping and backoff); its
one upstream is a real server process (``python -m tests.support.mcp_upstreams beta``), over
stdio or over streamable HTTP. The upstream is frozen with ``SIGSTOP`` while a call to it
is in flight, then continued with ``SIGCONT``. Measured, in seconds from the freeze: when
``/healthz`` first says the server is down, when the call in flight is answered (with an
error), and, from ``SIGCONT``, when ``/healthz`` says it is up again. The guide states the first
two are within ``HEALTH[0] + HEALTH[1]`` (15 s); this checks it on the real thing. Writes
``evals/out/perf_gateway_frozen.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from mcp import Client
from rich.console import Console
from rich.table import Table

from evals.perf.database import database, machine
from evals.perf.gateway import free_port
from toolret.gateway._health import HEALTH

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "evals" / "out" / "perf_gateway_frozen.json"
DEADLINE = 180.0


async def _state(http: httpx.AsyncClient) -> str | None:
    try:
        answer = await http.get("/healthz")
    except httpx.TransportError:
        return None
    state: str = answer.json()["upstreams"]["beta"]["state"]
    return state


async def _until(http: httpx.AsyncClient, state: str) -> float:
    """Poll ``/healthz`` every 20 ms until the upstream is in ``state``; when it was."""
    deadline = time.monotonic() + DEADLINE
    while await _state(http) != state:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the upstream never became {state}")
        await asyncio.sleep(0.02)  # polling the probe with a deadline
    return time.monotonic()


async def one_run(url: str, transport: str, directory: Path) -> dict[str, Any]:
    pidfile = directory / f"{transport}.pid"
    env = {**os.environ, "PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)}
    upstream_process = None
    if transport == "http":
        port = free_port()
        upstream_process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "tests.support.mcp_upstreams", "beta"),
            env={**env, "PORT": str(port)},
            cwd=REPO,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        entry: dict[str, Any] = {"url": f"http://127.0.0.1:{port}/mcp"}
    else:
        entry = {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_upstreams", "beta"],
            "env": {"PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)},
            "cwd": str(REPO),
        }
    config = directory / f"{transport}.json"
    config.write_text(json.dumps({"mcpServers": {"beta": entry}}))
    port = free_port()
    toolret = str(Path(sys.executable).with_name("toolret"))
    gateway = await asyncio.create_subprocess_exec(
        *(toolret, "gateway", "--config", str(config), "--http", "--port", str(port)),
        env={**os.environ, "DATABASE_URL": url},
        stderr=asyncio.subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http, asyncio.timeout(DEADLINE):
            await _until(http, "up")
            pid = int(pidfile.read_text())
            async with Client(f"{base}/mcp") as client:
                call = {"name": "beta__search_mail", "arguments": {"query": "invoices"}}
                frozen = time.monotonic()
                os.kill(pid, signal.SIGSTOP)
                waiting = asyncio.ensure_future(client.call_tool("call_tool", call))
                down = await _until(http, "down")
                answer = await waiting
                answered = time.monotonic()
                os.kill(pid, signal.SIGCONT)
                continued = time.monotonic()
                up = await _until(http, "up")
                again = await client.call_tool("call_tool", call)
    finally:
        if gateway.returncode is None:
            gateway.send_signal(signal.SIGTERM)
        await gateway.wait()
        if upstream_process is not None:
            upstream_process.kill()
            await upstream_process.wait()
    return {
        "marked_down_s": down - frozen,
        "call_answered_s": answered - frozen,
        "call_was_error": bool(answer.is_error),
        "up_again_after_sigcont_s": up - continued,
        "called_again": not again.is_error,
    }


async def measure(url: str, runs: int) -> dict[str, Any]:
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="toolret-frozen-") as directory:
        for transport in ("stdio", "http"):
            report[transport] = [
                await one_run(url, transport, Path(directory)) for _ in range(runs)
            ]
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="freezes per transport")
    args = parser.parse_args(argv)
    with database() as url:
        report = {"machine": machine(), "health": HEALTH, **asyncio.run(measure(url, args.runs))}
    every, within = HEALTH
    title = f"A frozen upstream, ping every {every:g} s within {within:g} s ({report['machine']})"
    table = Table(title=title)
    for column in ("transport", "marked down s", "call answered s", "up again s", "ok"):
        table.add_column(column, justify="right" if column != "transport" else "left")
    bound = every + within
    met = True
    for transport in ("stdio", "http"):
        for run in report[transport]:
            ok = run["call_was_error"] and run["called_again"]
            ok = ok and max(run["marked_down_s"], run["call_answered_s"]) <= bound
            met = met and ok
            table.add_row(
                transport,
                f"{run['marked_down_s']:.2f}",
                f"{run['call_answered_s']:.2f}",
                f"{run['up_again_after_sigcont_s']:.2f}",
                "yes" if ok else "no",
            )
    Console(width=120).print(table)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    print(f"wrote {OUT}; a frozen server down and its call answered within {bound:g} s: {met}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
