"""Registered catalogs: stored in Postgres, built once per content hash in each process.

A registration is stored as one JSON text (``toolret_catalogs.source``, a ``json`` column, which
keeps the text as written), with the SHA-256 of exactly that text. Every process, the registering
one included, builds its catalog from that text, so every process and every restart builds the
same tools byte for byte: the order of a tool's parameters is part of its documents, and a store
that reorders object keys (``jsonb``) would give other processes documents that have no vectors.
A process serves a catalog it has built for ``recheck`` seconds (one by default:
``TOOLRET_SERVE_RECHECK_SECONDS``), then reads the stored hash again in one short statement (the
row's source only when the hash changed), so a catalog replaced through any process is served
by every process within that second, and no process holds anything a restart would lose. The
process that registers it serves the new one at once. Checking on every request instead would
cost each selection a second database round trip: on a shared 2-core machine most of what
HTTP adds (``evals.perf.http``).

Requests for a catalog this process has not built (or whose recheck is due) share one look-up
and one build (single-flight): the first requests after a start, however many, take one pooled
connection between them, rather than each waiting for one of a few and timing out.

When the database cannot answer within a quarter of the time budget, the catalog this process
built last is used as it is: its selection then falls open like any other (``store_error``).
A catalog this process never saw cannot be answered without the database: 503.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from sqlalchemy.ext.asyncio import AsyncEngine

from toolret._catalog import Catalog
from toolret.errors import CatalogError, StoreError
from toolret.retrieval._selection import DEFAULT_TIME_BUDGET
from toolret.service._http import ApiError
from toolret.service._models import CatalogRegistration
from toolret.store._pool import StorePool
from toolret.store._schema import VERSION_TABLE

__all__ = [
    "CACHED_CATALOGS",
    "DEFAULT_RECHECK",
    "LOOKUP_SHARE",
    "CatalogRegistry",
    "build_catalog",
    "content_hash",
    "from_stored",
    "stored_text",
]

log = logging.getLogger("toolret.serve")

CACHED_CATALOGS = 1024
"""Catalogs one process keeps built (least recently used beyond that are built again)."""
DEFAULT_RECHECK = 1.0
"""Seconds a process serves a catalog it built before it reads the stored hash again."""
LOOKUP_SHARE = 0.25
"""Of the time budget, how long a request waits for its catalog's row."""

_LOOKUP = (
    "SELECT content_hash, CASE WHEN content_hash = $2 THEN NULL ELSE source::text END "
    "FROM toolret_catalogs WHERE name = $1"
)
_NAMES = "SELECT name FROM toolret_catalogs ORDER BY name"
_UPSERT = (
    "INSERT INTO toolret_catalogs AS c (name, format, source, content_hash) "
    "VALUES ($1, $2, $3::json, $4) "
    "ON CONFLICT (name) DO UPDATE SET format = EXCLUDED.format, source = EXCLUDED.source, "
    "content_hash = EXCLUDED.content_hash, updated_at = now() "
    "WHERE c.content_hash <> EXCLUDED.content_hash "
    "RETURNING (xmax = 0) AS created"
)
_INSUFFICIENT_PRIVILEGE = "42501"
WRITER_ROLE = "toolret_catalog_writer"


@dataclass(frozen=True)
class _Built:
    content_hash: str
    catalog: Catalog
    checked_at: float


def stored_text(registration: CatalogRegistration) -> str:
    """The JSON text a registration is stored as: its fields in the model's order, and inside
    them every key in the order it was sent (a tool's parameters keep theirs)."""
    data = registration.model_dump(mode="json", exclude_none=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def content_hash(text: str) -> str:
    """The SHA-256 of a registration's stored text: what decides whether it changed."""
    return hashlib.sha256(text.encode()).hexdigest()


def from_stored(text: str) -> Catalog:
    """The catalog a stored registration describes: what every process builds."""
    return build_catalog(CatalogRegistration.model_validate(json.loads(text)))


def build_catalog(registration: CatalogRegistration) -> Catalog:
    """The catalog a registration describes; a 422 naming the field when it cannot be built."""
    from toolret.adapters import catalog_from_anthropic, catalog_from_mcp, catalog_from_openai

    options: dict[str, Any] = {"core": registration.core}
    if registration.examples:
        options["examples"] = registration.examples
    if registration.keywords:
        options["keywords"] = registration.keywords
    if registration.third_party is not None:
        options["third_party"] = registration.third_party
    source = "servers" if registration.format == "mcp" else "tools"
    given = registration.servers if source == "servers" else registration.tools
    if given is None:
        raise ApiError(
            422,
            "invalid_request",
            f"format {registration.format} needs {source!r}",
            field=source,
        )
    try:
        if registration.format == "openai":
            return catalog_from_openai(registration.tools or [], **options)
        if registration.format == "anthropic":
            return catalog_from_anthropic(registration.tools or [], **options)
        return catalog_from_mcp(registration.servers or {}, **options)
    except CatalogError as error:
        field = _field_of(error, source)
        raise ApiError(422, "invalid_catalog", str(error), field=field) from error


class CatalogRegistry(StorePool):
    """Registered catalogs, on a small connection pool of their own (``open``).

    Look-ups run on the request path: one prepared statement, under the pool's statement
    timeout and within a quarter of the time budget.
    """

    @classmethod
    def open(
        cls,
        url: str,
        *,
        time_budget: float,
        recheck: float = DEFAULT_RECHECK,
        clock: Callable[[], float] = time.monotonic,
    ) -> CatalogRegistry:
        """A registry on ``url`` (any ``postgresql://`` URL) for requests of ``time_budget``,
        re-reading a built catalog's hash after ``recheck`` seconds of ``clock``."""
        registry = cls.from_url(
            url,
            pool_size=2,
            max_overflow=3,
            pool_timeout=time_budget * LOOKUP_SHARE,
            statement_timeout=time_budget * LOOKUP_SHARE,
        )
        registry.lookup_timeout = time_budget * LOOKUP_SHARE
        registry.recheck = recheck
        registry._clock = clock
        return registry

    def __init__(self, engine: AsyncEngine, **options: Any) -> None:
        super().__init__(engine, **options)
        self.lookup_timeout = DEFAULT_TIME_BUDGET * LOOKUP_SHARE
        """Seconds a request waits for its catalog's row before using the one last built."""
        self.recheck = DEFAULT_RECHECK
        """Seconds a built catalog is served before its stored hash is read again."""
        self._clock: Callable[[], float] = time.monotonic
        self._built: LRUCache[str, _Built] = LRUCache(maxsize=CACHED_CATALOGS)
        self._looking: dict[str, asyncio.Task[Catalog]] = {}

    async def get(self, name: str) -> Catalog:
        """The catalog registered as ``name``: 404 when none is, 503 when the database cannot
        say and this process never built it. Concurrent requests share one look-up."""
        built = self._built.get(name)
        if built is not None and self._clock() - built.checked_at < self.recheck:
            return built.catalog
        task = self._looking.get(name)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._look_up(name))
            self._looking[name] = task
            task.add_done_callback(functools.partial(self._looked_up, name))
        # Shielded: a caller that gives up (its client went away) leaves it to the others.
        return await asyncio.shield(task)

    def _looked_up(self, name: str, task: asyncio.Task[Catalog]) -> None:
        if self._looking.get(name) is task:
            del self._looking[name]
        if not task.cancelled():
            task.exception()  # retrieved here too: every waiter may have gone

    async def _look_up(self, name: str) -> Catalog:
        built = self._built.get(name)
        now = self._clock()
        try:
            async with asyncio.timeout(self.lookup_timeout):
                row = await self._fetch_row(name, built.content_hash if built else "")
        except (StoreError, TimeoutError) as error:
            if built is not None:
                log.debug("toolret: catalog %s served as last built (%r)", name, error)
                return built.catalog
            raise ApiError(
                503,
                "catalog_unavailable",
                "the database cannot be reached to read this catalog; try again shortly",
                field="catalog",
                headers={"Retry-After": "1"},
            ) from error
        if row is None:
            self._built.pop(name, None)
            raise ApiError(
                404,
                "unknown_catalog",
                "no catalog is registered under that name; register it with "
                "POST /v1/catalogs/{name}",
                field="catalog",
            )
        stored_hash, source = row
        if built is not None and source is None:
            self._built[name] = _Built(stored_hash, built.catalog, now)
            return built.catalog
        assert source is not None  # NULL only when the hash matched the one built
        catalog = from_stored(source)
        self._built[name] = _Built(stored_hash, catalog, now)
        return catalog

    async def put(self, name: str, registration: CatalogRegistration) -> tuple[Catalog, bool]:
        """Store ``registration`` as ``name`` (built first: a catalog that cannot be built is
        never stored). Returns the catalog and whether the name was new."""
        text = stored_text(registration)
        catalog = from_stored(text)  # as every other process will build it
        digest = content_hash(text)
        try:
            async with self._connection("registering a catalog") as connection:
                created = await connection.fetchval(
                    _UPSERT, name, registration.format, text, digest
                )
        except StoreError as error:
            if getattr(error.__cause__, "sqlstate", None) == _INSUFFICIENT_PRIVILEGE:
                raise ApiError(
                    403,
                    "read_only",
                    "this service's database role may not register catalogs: give it "
                    f"{WRITER_ROLE} (or register through a service that has it)",
                ) from error
            raise
        self._built[name] = _Built(digest, catalog, self._clock())
        return catalog, bool(created)

    async def names(self) -> list[str]:
        """Every registered catalog's name, sorted (what the console lists, cut to a token's
        catalogs)."""
        async with self._connection("listing catalogs") as connection:
            return [row["name"] for row in await connection.fetch(_NAMES)]

    async def schema_revision(self) -> str | None:
        """The database's toolret schema revision (None: not migrated); raises
        ``StoreError`` when the database cannot be reached."""
        from toolret.errors import SchemaMissingError

        try:
            async with self._connection("reading the schema revision") as connection:
                revision = await connection.fetchval(f"SELECT version_num FROM {VERSION_TABLE}")
        except SchemaMissingError:
            return None
        return None if revision is None else str(revision)

    async def _fetch_row(self, name: str, known_hash: str) -> tuple[str, str | None] | None:
        async with self._connection("catalog look-up") as connection:
            row = await connection.fetchrow(_LOOKUP, name, known_hash)
        return None if row is None else (str(row[0]), row[1])


def _field_of(error: CatalogError, source: str) -> str:
    """The request field a catalog error is about: ``core`` for an unknown core tool, the
    mapping it names for examples or keywords, else the tool listings."""
    from toolret.errors import UnknownCoreToolError

    if isinstance(error, UnknownCoreToolError):
        return "core"
    message = str(error)
    for field in ("examples", "keywords"):
        if message.startswith(field):
            return field
    return source
