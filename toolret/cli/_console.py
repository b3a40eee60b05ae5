"""``toolret console``: the operator's console on this machine, against the embedded Postgres."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer

from toolret.cli._errors import load_or_exit
from toolret.cli._options import console as out

if TYPE_CHECKING:
    from toolret._catalog import Catalog

__all__ = ["catalog_name", "console"]

DEFAULT_PORT = 8765


def console(
    catalog: Annotated[
        list[str] | None,
        typer.Option(
            "--catalog",
            "-c",
            help="A catalog spec, as for search, registered under its module's or file's name; "
            "repeat for several [TOOLRET_CATALOGS; default: the demo roster].",
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", "-p", help="Port on 127.0.0.1.")] = DEFAULT_PORT,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the console in the browser.")
    ] = True,
) -> None:
    """Open the operator's console: why each tool was chosen, catalogs, misses, health.

    Registers the catalogs (unchanged ones are left as they are) in DATABASE_URL, else the
    embedded Postgres, indexes what is missing, then serves the console and the API on
    127.0.0.1 (no tokens: this machine only) and prints its URL. Ctrl+C stops it.
    """
    import asyncio
    import webbrowser

    from toolret._settings import Settings, check_embedder
    from toolret.service._runner import bind, run
    from toolret.service._settings import ServiceSettings
    from toolret.store.embedded import resolve_database_url

    settings = Settings()
    specs = catalog or settings.catalogs or ["toolret.demo.roster:catalog"]
    catalogs = {catalog_name(spec): load_or_exit(spec) for spec in specs}
    check_embedder(settings)
    service = ServiceSettings(host="127.0.0.1", port=port, tokens={})
    sock = bind(service)  # a port in use is one line, before anything starts
    url = asyncio.run(asyncio.to_thread(resolve_database_url))
    asyncio.run(_register(url, catalogs))
    address = f"http://127.0.0.1:{port}/console/playground"
    out.print(f"toolret console on {address} (this machine only; Ctrl+C stops it)")
    if open_browser:
        webbrowser.open(address)
    run(service, database_url=url, sock=sock)


def catalog_name(spec: str) -> str:
    """The name a spec is registered under: ``pkg.roster:catalog`` → ``roster``,
    ``tools/crm.json`` → ``crm``."""
    stem = spec.split(":", 1)[0].replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem.removesuffix(".json").rsplit(".", 1)[-1]
    return re.sub(r"[^A-Za-z0-9_.-]", "-", stem).strip("-._") or "catalog"


async def _register(url: str, catalogs: dict[str, Catalog]) -> None:
    from toolret.adapters import to_openai
    from toolret.cli._search import indexed_client
    from toolret.service._catalogs import CatalogRegistry
    from toolret.service._models import CatalogRegistration

    registry = CatalogRegistry.open(url, time_budget=30.0)
    try:
        for name, loaded in catalogs.items():
            registration = CatalogRegistration(
                format="openai",
                tools=to_openai(list(loaded.tools)),
                core=[tool.name for tool in loaded.core],
                examples={t.name: list(t.examples) for t in loaded.tools if t.examples},
            )
            built, _ = await registry.put(name, registration)
            async with indexed_client(built):
                pass
            out.print(f"catalog {name}: {len(built)} tools, {len(built.core)} core")
    finally:
        await registry.aclose()
