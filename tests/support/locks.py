"""A table held locked, as a migration holds it: every statement on it waits until release."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from sqlalchemy.engine import make_url

__all__ = ["locked_table"]


@asynccontextmanager
async def locked_table(database_url: str, table: str = "toolret_corpora") -> AsyncIterator[None]:
    """Hold ``table`` in ``ACCESS EXCLUSIVE`` mode on a connection of its own until the block
    ends (closing that connection releases the lock). By default the corpora, which every
    ranking statement reads (a copied corpus's reads no ``toolret_vectors``)."""
    url = make_url(database_url).set(drivername="postgresql").render_as_string(False)
    locker = await asyncpg.connect(url)
    try:
        await locker.execute(f"BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        yield
    finally:
        await locker.close()
