"""What a framework integration adds to a turn: PydanticAI's capability and the OpenAI Agents
SDK's gates against a bare ``select()`` (``make bench``).

The demo roster (44 tools) as each framework defines its tools (PydanticAI ``ToolDefinition``s,
the SDK's ``FunctionTool``s), ranked in process (``InMemoryRetriever``, the bundled model, no
reuse between calls). Every message's query embedding is computed once before timing, so each
path pays the same ranking of the same message and nothing else: what differs is the
integration's own work. Per message, interleaved, one caller:

- ``bare``: ``retriever.select(catalog, message)``;
- ``pydantic_ai``: ``ToolRetrieval.prepare_tools`` for a transcript ending in the message (the
  turn's first step: a selection, the catalog looked up, the transcript read, the tools ordered);
  then the same step again (a later step of the turn: the selection reused);
- ``openai_agents``: a run's first model call, as the SDK drives it (``on_start``,
  ``on_llm_start``, then ``Agent.get_all_tools``, which calls ``is_enabled`` on all 44 tools), less
  the bare select plus ``get_all_tools`` of the same agent without toolret (the SDK's own cost).

The figure is the median of the paired differences in milliseconds; the bar is ``TARGET_MS``.
Writes ``evals/out/perf_integrations.json`` and prints a table. Compare figures from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from evals.perf.database import machine
from evals.perf.load import messages

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agents import Agent, FunctionTool, RunContextWrapper
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelRequest
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RunUsage

from toolret.demo.roster import catalog as roster
from toolret.integrations import openai_agents, pydantic_ai
from toolret.retrieval._memory import InMemoryRetriever

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "evals" / "out" / "perf_integrations.json"
TARGET_MS = 1.0
"""The bar: an integration's turn at most this much above a bare select of the same message."""
CORE = [tool.name for tool in roster.core]


def definitions() -> list[ToolDefinition]:
    """The roster as PydanticAI defines tools."""
    return [ToolDefinition(name=tool.name, parameters_json_schema=dict(tool.input_schema or {}),
                           description=tool.description) for tool in roster]  # fmt: skip


def function_tools() -> list[FunctionTool]:
    """The roster as the OpenAI Agents SDK defines tools."""

    async def run(context: Any, arguments: str) -> str:
        return "ok"

    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=dict(tool.input_schema or {}),
            on_invoke_tool=run,
        )
        for tool in roster
    ]


async def measure(count: int) -> dict[str, Any]:
    texts = messages(count + 10)
    async with InMemoryRetriever(k=12, reuse=0, time_budget=60) as retriever:
        catalog = pydantic_ai.catalog_from_pydantic_ai(definitions(), core=CORE)
        await retriever.index(catalog)
        for text in texts:  # every query embedding cached: both paths rank, neither embeds
            await retriever.select(catalog, text)
        capability = pydantic_ai.ToolRetrieval(retriever, core=CORE)
        gates = openai_agents.ToolRetrieval(retriever, core=CORE)
        gated = Agent(name="bench", tools=gates.tools(function_tools()), hooks=gates)
        plain = Agent(name="bench", tools=list(function_tools()))
        tool_defs = definitions()

        async def bare(text: str) -> object:
            return await retriever.select(catalog, text)

        def step(text: str) -> Callable[[], Awaitable[object]]:
            request = ModelRequest.user_text_prompt(text)
            ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage(), messages=[request],
                             run_id=text, conversation_id=text)  # fmt: skip
            return lambda: capability.prepare_tools(ctx, list(tool_defs))

        async def agents_call(text: str) -> object:
            context = RunContextWrapper(None, turn_input=[{"role": "user", "content": text}])
            await gates.on_start(context, gated)
            await gates.on_llm_start(context, gated, None, list(context.turn_input))
            return await gated.get_all_tools(context)

        async def agents_baseline(text: str) -> object:
            await retriever.select(catalog, text)
            context = RunContextWrapper(None, turn_input=[{"role": "user", "content": text}])
            return await plain.get_all_tools(context)

        paths: dict[str, Callable[[str], Awaitable[object]]] = {
            "bare": bare,
            "agents_baseline": agents_baseline,
            "agents_first": agents_call,
        }
        wall: dict[str, list[float]] = {name: [] for name in [*paths, *STEPS]}
        cpu: dict[str, list[float]] = {name: [] for name in [*paths, *STEPS]}
        for index, text in enumerate(texts):
            prepare = step(text)
            calls = {name: functools.partial(path, text) for name, path in paths.items()}
            calls["pydantic_ai_first"] = calls["pydantic_ai_later"] = prepare
            for name in ("bare", "pydantic_ai_first", "pydantic_ai_later", "agents_baseline",
                         "agents_first"):  # fmt: skip
                took_wall, took_cpu = await _timed(calls[name])
                if index >= 10:  # warm-up
                    wall[name].append(took_wall)
                    cpu[name].append(took_cpu)
    report: dict[str, Any] = {"messages": count, "tools": len(roster), "k": 12}
    report["bare_select_p50_ms"] = float(np.percentile(wall["bare"], 50))
    zero = [0.0] * len(wall["bare"])
    pairs = {
        "pydantic_ai, first step": ("pydantic_ai_first", "bare"),
        "pydantic_ai, later step": ("pydantic_ai_later", None),
        "openai_agents, first call": ("agents_first", "agents_baseline"),
    }
    for label, (path, against) in pairs.items():
        report[label] = {
            "p50_ms": float(np.percentile(wall[path], 50)),
            "baseline_p50_ms": float(np.percentile(wall[against] if against else zero, 50)),
            "overhead_ms": _paired(wall[path], wall[against] if against else zero),
            "overhead_cpu_ms": _paired(cpu[path], cpu[against] if against else zero),
        }
    return report


STEPS = ("pydantic_ai_first", "pydantic_ai_later")


def _paired(values: Sequence[float], against: Sequence[float]) -> float:
    return float(np.median(np.asarray(values) - np.asarray(against)))


async def _timed(call: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Milliseconds of wall time and of this process's CPU time."""
    wall, cpu = time.perf_counter(), time.process_time()
    await call()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200, help="distinct messages")
    args = parser.parse_args(argv)
    report = {"machine": machine(), **asyncio.run(measure(args.messages))}
    title = f"integrations: a turn against a bare select, 44 tools ({report['machine']})"
    table = Table(title=title)
    columns = ("path", "p50 ms", "baseline p50 ms", "overhead ms", "overhead CPU ms")
    for column in columns:
        table.add_column(column, justify="left" if column == "path" else "right")
    for name in ("pydantic_ai, first step", "pydantic_ai, later step", "openai_agents, first call"):
        row = report[name]
        table.add_row(name, f"{row['p50_ms']:.3f}", f"{row['baseline_p50_ms']:.3f}",
                      f"{row['overhead_ms']:.3f}", f"{row['overhead_cpu_ms']:.3f}")  # fmt: skip
    Console(width=120).print(table)
    print(f"bare select p50 (ranking, embedding cached): {report['bare_select_p50_ms']:.3f} ms")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2))
    firsts = ("pydantic_ai, first step", "openai_agents, first call")
    worst = max(report[name]["overhead_cpu_ms"] for name in firsts)
    print(
        f"wrote {OUT}; target overhead < {TARGET_MS} ms: {'met' if worst < TARGET_MS else 'missed'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
