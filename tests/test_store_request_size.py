"""What a selection sends the database does not grow with the catalog.

The exact ranking statements (dense, and with the sparse signal) read a registered corpus's
documents from the database (``toolret.store._member_sql``, ``_sparse_member_sql``) instead
of receiving every document key and tool name as arrays on each request: on a few hundred
documents, encoding those arrays cost the request path more than scoring them. Measured on
the wire: a byte-counting proxy between the client and Postgres (a small local server, the
network edge) counts what each selection sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlsplit

import numpy as np

from tests.support.embedders import HashEmbedder
from tests.support.fixtures_pg import publish_random, synthetic_catalog, unit_vectors
from toolret import Catalog, Mode
from toolret._settings import Settings
from toolret.embedders._sparse import SparseVector
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._sparse_read import SparseQuery
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

MESSAGES = tuple(f"a request about synthetic records, number {i}" for i in range(5))


class CountingProxy:
    """Forwards TCP connections on ``127.0.0.1`` to a Postgres unix socket, counting the bytes
    the client sends."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.sent = 0
        self.port = 0

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, count: bool
    ) -> None:
        try:
            while data := await reader.read(65536):
                if count:
                    self.sent += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_unix_connection(self.socket_path)
        await asyncio.gather(
            self._pipe(reader, upstream_writer, count=True),
            self._pipe(upstream_reader, writer, count=False),
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[CountingProxy]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        async with server:
            yield self


def _proxied(database_url: str, port: int) -> tuple[str, str]:
    """The unix socket behind ``database_url`` and the same database through ``port``."""
    parts = urlsplit(database_url)
    query = parse_qs(parts.query)
    socket_path = f"{query['host'][0]}/.s.PGSQL.{query['port'][0]}"
    return socket_path, f"postgresql://{parts.username}@127.0.0.1:{port}{parts.path}"


async def _sent_per_selection(database_url: str, catalog: Catalog) -> float:
    """Bytes one dense selection sends the database, on a warm connection (its statements
    prepared), averaged over ``MESSAGES``."""
    embedder = HashEmbedder()
    settings = Settings(companions=False)  # the co-usage read is once a minute, not per call
    async with ToolRetrievalClient(database_url, embedder=embedder, settings=settings) as direct:
        await direct.index(catalog)
    socket_path, _ = _proxied(database_url, 0)
    proxy = CountingProxy(socket_path)
    async with proxy.running():
        _, url = _proxied(database_url, proxy.port)
        async with ToolRetrievalClient(
            url, embedder=embedder, settings=settings, mode="dense", pool_size=1, max_overflow=0
        ) as client:
            warm = await client.select(catalog, "warm the connection and its statements")
            assert warm.mode is Mode.NARROWED
            before = proxy.sent
            for message in MESSAGES:
                assert (await client.select(catalog, message)).mode is Mode.NARROWED
            return (proxy.sent - before) / len(MESSAGES)


async def test_a_selection_sends_the_same_bytes_for_30_tools_as_for_300(database_url: str) -> None:
    small = await _sent_per_selection(database_url, synthetic_catalog(30, prefix="small"))
    large = await _sent_per_selection(database_url, synthetic_catalog(300, prefix="large"))
    # The query vector (1.5 KB) and a few names; not 300 document keys and tool names (~30 KB).
    assert large < 4096, f"a selection over 300 tools sent {large:.0f} bytes"
    assert large - small < 512, f"30 tools: {small:.0f} bytes a selection; 300: {large:.0f}"


SPARSE_MODEL = "request-size-sparse@384"
SPARSE_HEAD = "latents@1024/16"


def _sparse(rng: np.random.Generator) -> SparseVector:
    return SparseVector.of(rng.choice(1024, size=16, replace=False), rng.random(16) + 0.05, 1024)


async def _sent_per_sparse_ranking(database_url: str, catalog: Catalog) -> float:
    """Bytes one exact ranking with the sparse signal sends the database, on a warm connection,
    averaged over five messages."""
    rng = np.random.default_rng(len(catalog.tools))
    async with VectorStore.from_url(database_url) as direct:
        await publish_random(direct, catalog, SPARSE_MODEL, rng)
        keys = sorted({doc.key for _, doc in catalog.documents("query")})
        await direct.write_sparse(SPARSE_MODEL, SPARSE_HEAD, [(k, _sparse(rng)) for k in keys])
        assert await direct.mark_sparse(
            SPARSE_MODEL, catalog.corpus_hash(SPARSE_MODEL, "query"), SPARSE_HEAD
        )
    query = CatalogQuery.build(catalog, SPARSE_MODEL, "query")
    socket_path, _ = _proxied(database_url, 0)
    proxy = CountingProxy(socket_path)
    async with proxy.running():
        _, url = _proxied(database_url, proxy.port)
        async with VectorStore.from_url(url, pool_size=1, max_overflow=0) as store:
            probes = unit_vectors(rng, 6, 384)
            sent = []
            for probe in probes:
                before = proxy.sent
                sparse = SparseQuery(_sparse(rng), 0.4, SPARSE_HEAD)
                ranking = await store.rank(query, probe, limit=5, sparse=sparse)
                assert ranking.sparse_ready
                assert len(ranking.sparse) >= 5
                sent.append(proxy.sent - before)
            return sum(sent[1:]) / len(sent[1:])  # the first prepares the statement


async def test_a_ranking_with_the_sparse_signal_sends_the_same_bytes_for_30_tools_as_for_300(
    database_url: str,
) -> None:
    small = await _sent_per_sparse_ranking(database_url, synthetic_catalog(30, prefix="small"))
    large = await _sent_per_sparse_ranking(database_url, synthetic_catalog(300, prefix="large"))
    assert large < 4096, f"a sparse ranking over 300 tools sent {large:.0f} bytes"
    assert large - small < 512, f"30 tools: {small:.0f} bytes a ranking; 300: {large:.0f}"
