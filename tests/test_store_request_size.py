"""What a selection sends the database does not grow with the catalog.

The exact ranking statement reads a registered corpus's documents from the database
(``toolret.store._member_sql``) instead of receiving every document key and tool name as
arrays on each request: on a few hundred documents, encoding those arrays cost the request path
more than scoring them. Measured on the wire: a byte-counting proxy between the client and
Postgres (a small local server, the network edge) counts what each selection sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlsplit

from tests.support.embedders import HashEmbedder
from tests.support.fixtures_pg import synthetic_catalog
from toolret import Catalog, Mode
from toolret._settings import Settings
from toolret.retrieval._client import ToolRetrievalClient

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
