"""The base every store class stands on: one connection pool, and what goes wrong on it.

``StorePool`` wraps one SQLAlchemy ``AsyncEngine`` (asyncpg) and its pool. It hands out the raw
asyncpg connection of a pooled connection for the request path (``_connection``: one prepared
statement, no ORM layer) and SQLAlchemy Core transactions for maintenance (``transaction``),
takes advisory locks, and maps every driver error to the error tree: ``StoreError``,
``SchemaMissingError`` for a database without toolret's tables, ``TimeoutError`` for a
statement timeout. An error the server reports leaves the pooled connection in use; a broken
or abandoned one (the server gone, a caller cancelled mid-query) is thrown away.

A connection the server closed while it sat in the pool (Postgres restarted) is never handed
out: asyncpg marks it closed as soon as the server's goodbye arrives, so checking out looks at
that mark — no round trip — and on finding it throws away every pooled connection at least as
old and opens a new one (SQLAlchemy's ``InvalidatePoolError``). The first statement after a
restart therefore runs on a live connection. A round-trip ping per checkout (``pool_pre_ping``)
would also catch a connection whose peer vanished without closing it, at the cost of three
round trips per checkout (``docs/decisions.md``, "Connections after a Postgres restart").

The reader (``read``), the writer (``write``), the operator (``ops``) and the feedback store
(``toolret.feedback._store``) all build on it; nothing here imports them.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Self

import asyncpg
from pgvector.asyncpg import register_vector
from sqlalchemy import event, text
from sqlalchemy.exc import (
    InvalidatePoolError,
    SQLAlchemyError,
    TimeoutError as PoolTimeoutError,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.util import greenlet_spawn

from toolret.errors import SchemaMissingError, StoreError, StoreUnavailableError
from toolret.store._sql import EXACT_LIMIT
from toolret.store._types import asyncpg_url

__all__ = [
    "CONNECT_FIX",
    "DEFAULT_EF_SEARCH",
    "DISCONNECTS",
    "READ_ONLY_FIX",
    "SCHEMA_FIX",
    "SCHEMA_SQLSTATES",
    "StorePool",
    "lock_key",
    "rowcount",
    "unreachable",
    "xact_lock",
]

log = logging.getLogger("toolret.store")

DEFAULT_EF_SEARCH = 200
"""``hnsw.ef_search``: candidates an HNSW scan keeps; chosen for recall against the exact
blended top 12 on the largest catalogs (``docs/decisions.md``, "The summary index and
``hnsw.ef_search``", re-created by ``python -m evals.perf.select``)."""
DISCONNECTS = (
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.AdminShutdownError,
    asyncpg.CannotConnectNowError,
    # A pooled connection the server dropped while it sat idle: the server's farewell arrived
    # before the socket closed, so the next statement finds the protocol busy with it.
    asyncpg.InternalClientError,
    OSError,
)
SCHEMA_SQLSTATES = frozenset({"42P01", "42703", "42704", "42883"})
"""Undefined table, column, object (the ``vector`` type) or function (its operators): the
database is not migrated, or is older than the statements this toolret runs."""
SCHEMA_FIX = "run `toolret db upgrade` (or `alembic upgrade head`) against it"
CONNECT_FIX = (
    "check the database URL (TOOLRET_DATABASE_URL, else DATABASE_URL) and that Postgres runs there"
)
READ_ONLY_FIX = (
    "this role may only read toolret's tables (like toolret_reader): index and migrate with "
    "the owner's URL"
)


class StorePool:
    """One Postgres connection pool with toolret's session settings and error mapping.

    Create it with ``from_url(url)`` (it then owns its engine) or around an ``AsyncEngine``
    you manage. ``statement_timeout`` (seconds) bounds every request-path statement on the
    server; maintenance statements run without it. Catalogs of up to ``exact_limit`` candidate
    documents are ranked exactly; larger ones through HNSW with ``ef_search`` candidates per
    scan.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        exact_limit: int = EXACT_LIMIT,
        ef_search: int = DEFAULT_EF_SEARCH,
        statement_timeout: float | None = None,
        connect_timeout: float = 5.0,
        owns_engine: bool = False,
    ) -> None:
        self.engine = engine
        self._connect_timeout = connect_timeout
        self.exact_limit = exact_limit
        self._owns_engine = owns_engine
        self._closed = False
        timeout_ms = None if statement_timeout is None else max(1, round(statement_timeout * 1000))
        self._session_sql = "; ".join(
            [
                "SET jit = off",
                f"SET hnsw.ef_search = {int(ef_search)}",
                "SET hnsw.iterative_scan = relaxed_order",
                f"SET statement_timeout = {timeout_ms or 0}",
            ]
        )
        self._indexed_models: set[tuple[str, int]] = set()
        self._schema_reported = False
        self.copies: bool | None = None
        """Whether the database has migration 0010's per-corpus copies of small corpora's
        vectors (``toolret_corpus_vectors``): read once, at the first ranking or publication
        that needs to know. Without them (a database one migration behind) corpora are ranked by
        a probe per document and published without a copy; nothing falls open for it."""
        self.without_copy: dict[tuple[str, str], float] = {}
        """Corpora (model id, corpus hash) found without a copy, and when (``time.monotonic``):
        they are ranked by the statement that reads either (``member_sql``) and asked again for
        a copy after ``COPY_RECHECK`` seconds; every other one is first asked of its copy alone
        (``copy_sql``)."""
        # What a failed connect raises through the pool: the dialect's DB-API errors, which
        # SQLAlchemy wraps only on its own Connection, not on a raw pool checkout.
        self._connect_errors = (SQLAlchemyError, engine.dialect.loaded_dbapi.Error, *DISCONNECTS)
        event.listen(engine.sync_engine, "connect", self._on_connect)
        event.listen(engine.sync_engine, "checkout", self._on_checkout)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        pool_size: int = 5,
        max_overflow: int = 5,
        pool_timeout: float = 2.0,
        connect_timeout: float = 5.0,
        exact_limit: int = EXACT_LIMIT,
        ef_search: int = DEFAULT_EF_SEARCH,
        statement_timeout: float | None = None,
        **engine_options: Any,
    ) -> Self:
        """A store with its own connection pool on ``url`` (any ``postgresql://`` URL).

        ``pool_timeout`` is how long a caller waits for a pooled connection before the pool
        counts as exhausted; ``connect_timeout`` bounds opening a new connection.
        """
        engine = create_async_engine(
            asyncpg_url(url),
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_timeout=pool_timeout,
            connect_args={"timeout": connect_timeout},
            **engine_options,
        )
        return cls(
            engine,
            exact_limit=exact_limit,
            ef_search=ef_search,
            statement_timeout=statement_timeout,
            connect_timeout=connect_timeout,
            owns_engine=True,
        )

    async def aclose(self) -> None:
        """Close the pool (if this store created it). Idempotent."""
        if self._closed:
            return
        self._closed = True
        event.remove(self.engine.sync_engine, "connect", self._on_connect)
        event.remove(self.engine.sync_engine, "checkout", self._on_checkout)
        if self._owns_engine:
            await self.engine.dispose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.engine.url.render_as_string(hide_password=True)!r})"

    @asynccontextmanager
    async def _connection(self, purpose: str) -> AsyncIterator[Any]:
        """A pooled connection's asyncpg driver connection.

        Errors become ``StoreError`` (``TimeoutError`` for a statement timeout,
        ``SchemaMissingError`` for a missing table or type). After an error the server
        reported (a statement timeout), the session is intact and the connection goes back to
        the pool; after any other failure — the connection lost, the caller cancelled
        mid-query (asyncpg is then left waiting for the server to acknowledge the cancel), a
        schema error (see ``_session_intact``) — it is thrown away.
        """
        if self._closed:
            raise StoreError(f"this {type(self).__name__} is closed")
        try:
            proxied = await self.engine.raw_connection()
        except PoolTimeoutError as error:
            raise StoreError(f"connection pool exhausted: {error}") from error
        except self._connect_errors as error:
            kind = StoreUnavailableError if unreachable(error) else StoreError
            raise kind(f"cannot connect to the database ({error}): {CONNECT_FIX}") from error
        connection = proxied.driver_connection
        try:
            yield connection
        except BaseException as error:
            if _session_intact(error, connection):
                await greenlet_spawn(proxied.close)
            else:
                await greenlet_spawn(proxied.invalidate)
                if isinstance(error, DISCONNECTS):
                    await self.engine.dispose(close=False)  # the server went away: drop idle ones
            if isinstance(error, asyncpg.QueryCanceledError):
                raise TimeoutError(f"statement timeout: {error}") from error
            if getattr(error, "sqlstate", None) in SCHEMA_SQLSTATES:
                raise self._schema_missing(error) from error
            if isinstance(error, DISCONNECTS):
                raise StoreUnavailableError(f"{purpose} failed: {error}") from error
            if isinstance(error, asyncpg.PostgresError):
                raise StoreError(f"{purpose} failed: {error}") from error
            raise
        else:
            # In SQLAlchemy's greenlet, like the checkout: a connection the full pool does not
            # take back is closed, which is I/O (outside it: MissingGreenlet, and a leak).
            await greenlet_spawn(proxied.close)
            self._schema_reported = False

    def _schema_missing(self, error: object) -> SchemaMissingError:
        """The error for a database without toolret's schema, logged once (not per request)
        until a statement succeeds again."""
        database = self.engine.url.render_as_string(hide_password=True)
        if not self._schema_reported:
            self._schema_reported = True
            log.error(
                "toolret: the database %s has no toolret tables, or an older schema (%s): %s. "
                "Until then every selection sends the full roster (schema_missing).",
                database,
                error,
                SCHEMA_FIX,
            )
        return SchemaMissingError(
            f"the toolret schema is missing or outdated in this database ({error}): {SCHEMA_FIX}",
            database=database,
        )

    def _on_connect(self, dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.run_async(self._prepare_session)

    def _on_checkout(self, _dbapi_connection: Any, _record: Any, proxy: Any) -> None:
        """A connection the server has closed (a restart, ``pg_terminate_backend``) is not
        handed out: the pool replaces it and every pooled connection as old."""
        if proxy.driver_connection.is_closed():
            raise InvalidatePoolError("the server closed this pooled connection")

    async def _prepare_session(self, connection: Any) -> None:
        """Session settings for the ranking query, and pgvector's binary codec."""
        await connection.execute(self._session_sql)
        try:
            await register_vector(connection)
        except ValueError:  # no vector type yet: a database before its first migration
            log.debug("toolret: pgvector is not installed in this database yet")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A maintenance transaction: no statement timeout; errors become ``StoreError``."""
        if self._closed:
            raise StoreError(f"this {type(self).__name__} is closed")
        try:
            async with self.engine.begin() as connection:
                await connection.execute(text("SET LOCAL statement_timeout = 0"))
                yield connection
        except SQLAlchemyError as error:
            cause = getattr(error, "orig", None)
            sqlstate = getattr(cause, "sqlstate", None)
            if sqlstate in SCHEMA_SQLSTATES:
                raise self._schema_missing(cause) from error
            detail = str(cause or error).strip().splitlines()[0]  # not the SQL and the link
            if sqlstate == "42501":  # insufficient privilege
                raise StoreError(f"{detail}: {READ_ONLY_FIX}") from error
            kind = StoreUnavailableError if unreachable(error) else StoreError
            raise kind(f"database operation failed: {detail}") from error
        except OSError as error:
            raise StoreUnavailableError(
                f"cannot reach the database ({error}): {CONNECT_FIX}"
            ) from error


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` (or what it wraps) says the server cannot be reached, rather than
    that it refused the work: a lost or refused connection, a server starting or stopping."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, (*DISCONNECTS, TimeoutError)):
            return True
        if getattr(seen, "connection_invalidated", False):  # SQLAlchemy saw a disconnect
            return True
        seen = seen.__cause__ or getattr(seen, "orig", None)
    return False


def _session_intact(error: BaseException, connection: Any) -> bool:
    """Whether the server reported ``error`` and the session can serve the next statement:
    an ``ERROR`` (not ``FATAL``), on an open connection, outside any transaction.

    Not after a schema error: the connection may predate the migration that fixes it, and a
    session opened before ``CREATE EXTENSION vector`` has no codec for the query vector.
    """
    return (
        isinstance(error, asyncpg.PostgresError)
        and getattr(error, "severity_en", None) == "ERROR"
        and error.sqlstate not in SCHEMA_SQLSTATES
        and not connection.is_closed()
        and not connection.is_in_transaction()
    )


async def xact_lock(connection: AsyncConnection, *parts: str) -> None:
    """Take the transaction-scoped advisory lock named by ``parts`` (released at commit)."""
    await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(*parts)})


def lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for a tuple of strings."""
    digest = hashlib.sha256("\x00".join(("toolret", *parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def rowcount(result: Any) -> int:
    """Rows a statement touched (0 where the driver does not say)."""
    return int(getattr(result, "rowcount", 0) or 0)
