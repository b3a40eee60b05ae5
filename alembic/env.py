"""Alembic environment for toolret's tables: async (asyncpg), its own version table.

The database URL comes from, in order: ``config.attributes["database_url"]`` (set by
``toolret.store._schema.upgrade_database``), ``alembic -x url=...``, ``TOOLRET_DATABASE_URL``, then
``DATABASE_URL`` (the same precedence as ``toolret._settings``), and ``sqlalchemy.url`` in
``alembic.ini``. Any ``postgresql://`` URL
is accepted and driven through asyncpg. Concurrent runs (two deploys migrating at once) are
serialized by a transaction-level advisory lock.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from logging.config import fileConfig

from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from alembic import context
from toolret.store._schema import VERSION_TABLE, metadata
from toolret.store._types import asyncpg_url

MIGRATION_LOCK = 7_302_519_884_113_021_001
"""Advisory lock key held while migrating (any constant unique to toolret)."""

config = context.config
# An application's own alembic.ini (script_location = toolret:migrations) may have no logging.
if (
    config.config_file_name is not None
    and config.file_config.has_section("loggers")
    and not config.attributes.get("skip_logging")
):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    url = (
        config.attributes.get("database_url")
        or context.get_x_argument(as_dictionary=True).get("url")
        or os.environ.get("TOOLRET_DATABASE_URL")
        or os.environ.get("DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
    )
    if not url:
        raise SystemExit(
            "toolret migrations need a database: set DATABASE_URL or pass -x url=postgresql://..."
        )
    return asyncpg_url(url)


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    """Autogenerate looks at toolret's own tables only, never the per-model HNSW indexes."""
    if type_ == "table":
        return bool(name) and str(name).startswith("toolret_")
    if type_ == "index":
        return not str(name).startswith("toolret_hnsw_")
    return True


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        version_table=VERSION_TABLE,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        include_name=include_name,
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        connection.execute(text("SET LOCAL statement_timeout = 0"))
        connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_async_engine(database_url(), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    """Run on an event loop of Alembic's own; in a thread when the caller's thread runs one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(run_async_migrations())
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolret-migrate") as pool:
        pool.submit(lambda: asyncio.run(run_async_migrations())).result()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
