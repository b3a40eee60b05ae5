"""``toolret demo``: the 44-tool demo roster, messages in three languages."""

from __future__ import annotations

import asyncio

from toolret.cli._output import show_table
from toolret.cli._search import indexed_client

__all__ = ["demo"]


def demo() -> None:
    """Selections for English, Arabic and Turkish messages on the 44-tool demo roster.

    Runs on the defaults with nothing to install and no key: the bundled multilingual model and
    an embedded Postgres with pgvector (or DATABASE_URL). The first run embeds the roster
    (about half a minute on two cores); later runs reuse the stored vectors.
    """
    from toolret.demo._run import demo_catalog, run_demo

    async def go() -> None:
        catalog = demo_catalog()
        async with indexed_client(catalog) as client:
            show_table(await run_demo(client, catalog))

    asyncio.run(go())
