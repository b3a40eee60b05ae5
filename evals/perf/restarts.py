"""Postgres restarted under a client: ``python -m evals.perf.restarts`` (part of ``make bench``).

- Postgres restarted while nothing was asked (fast shutdown, then immediate): every pooled
  connection was closed by the old server; the mode and latency of the first selection after.
- What the pool's check for a connection the server closed costs a selection, against
  SQLAlchemy's ``pool_pre_ping`` (a round trip per checkout; three on asyncpg: a transaction is
  opened for pgbouncer, ``;`` runs, it is rolled back): one cached message, the two clients
  interleaved so load falls on both alike, p50 per selection.

The query embedding is computed once beforehand, as in ``evals.perf.faults``. Writes
``evals/out/bench_restarts.json``; ``docs/decisions.md``, "Connections after a Postgres restart".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from sqlalchemy import event

from evals.perf.database import machine
from evals.perf.faults import (
    BUDGET_MS,
    MESSAGES,
    Row,
    Server,
    _row,
    _timed,
    _traffic,
    client_on,
    print_table,
)
from toolret._catalog import Catalog
from toolret.demo.roster import catalog_without_examples
from toolret.embedders._base import Embedder
from toolret.embedders._cache import with_query_cache
from toolret.embedders._e5 import BundledE5Embedder
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._migrate import upgrade_database
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_restarts.json"
ROUNDS = 400
"""Selections per client when the checkout's cost is measured."""


async def restarted_between_selections(
    server: Server, url: str, catalog: Catalog, embedder: Embedder
) -> list[Row]:
    """Selections on a warm pool, then a restart while nothing is asked, then the first one."""
    rows = []
    async with client_on(url, embedder, reuse=0) as client:
        for mode in ("fast", "immediate"):
            await _traffic(client, catalog, 16)  # the pool holds open connections
            await asyncio.to_thread(server.stop, mode)
            await asyncio.to_thread(server.start)
            first = await _timed(client, catalog, MESSAGES[1])
            rows.append(_row(f"Postgres restarted between selections ({mode} shutdown)", [first]))
    return rows


async def checkout_cost(url: str, catalog: Catalog, embedder: Embedder, rounds: int) -> Row:
    """p50 of a selection (cached message) with no check at checkout (the listener removed),
    with the pool's closed-connection check, and with ``pool_pre_ping`` added to it."""
    walls: dict[str, list[float]] = {"none": [], "check": [], "pre_ping": []}
    pinged_store = VectorStore.from_url(  # the client's own timeouts: a quarter, a half
        url, pool_timeout=BUDGET_MS / 4000, statement_timeout=BUDGET_MS / 2000, pool_pre_ping=True
    )
    async with (
        pinged_store as pinged,
        client_on(url, embedder, reuse=0) as unchecked,
        client_on(url, embedder, reuse=0) as check,
        client_on(url, embedder, reuse=0, store=pinged) as pre_ping,
    ):
        store = unchecked.store
        event.remove(store.engine.sync_engine, "checkout", store._on_checkout)
        clients = {"none": unchecked, "check": check, "pre_ping": pre_ping}
        for client in clients.values():
            await _traffic(client, catalog, 16, concurrency=1)  # warm: connections, statements
        order = list(clients)
        for round_ in range(rounds):  # each client first in turn: no order favours one
            for name in order[round_ % 3 :] + order[: round_ % 3]:
                walls[name].append((await _timed(clients[name], catalog, MESSAGES[0]))[1] * 1000)
        event.listen(store.engine.sync_engine, "checkout", store._on_checkout)  # for aclose
    p50 = {name: statistics.median(values) for name, values in walls.items()}
    return Row(
        "a selection's checkout: nothing, the closed check, pool_pre_ping",
        len(clients) * rounds,
        {"narrowed": len(clients) * rounds},
        max(max(values) for values in walls.values()),
        p50["check"],
        f"p50 {p50['none']:.3f} / {p50['check']:.3f} / {p50['pre_ping']:.3f} ms: the check "
        f"{p50['check'] / p50['none']:.2f}x, pre-ping {p50['pre_ping'] / p50['none']:.2f}x",
    )


async def run(server: Server, rounds: int) -> list[Row]:
    embedder = with_query_cache(BundledE5Embedder())
    for message in MESSAGES:
        await embedder.embed_query(message)  # what is measured is the database path
    catalog = catalog_without_examples
    url = server.create("restarts")
    await asyncio.to_thread(upgrade_database, url)
    async with ToolRetrievalClient(url, embedder=embedder) as indexer:
        await indexer.index(catalog)
    rows = await restarted_between_selections(server, url, catalog, embedder)
    rows.append(await checkout_cost(url, catalog, embedder, rounds))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.perf.restarts", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="toolret-restarts-"))
    server = Server(directory / "pg")
    try:
        rows = asyncio.run(run(server, args.rounds))
    finally:
        server.cleanup()
        shutil.rmtree(directory, ignore_errors=True)
    print_table(rows, Console(width=200))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"machine": machine(), "rows": [asdict(r) for r in rows]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
