"""``toolret serve``: selections over HTTP, for agents in any language."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

__all__ = ["serve"]


def serve(
    host: Annotated[
        str | None,
        typer.Option(
            help="Address to listen on [TOOLRET_SERVE_HOST; default 127.0.0.1]. Anything but "
            "loopback needs tokens."
        ),
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", "-p", help="Port [TOOLRET_SERVE_PORT; default 8080].")
    ] = None,
    tokens: Annotated[
        Path | None,
        typer.Option(
            help="A JSON file mapping each bearer token to the catalog names it may use "
            '({"tok": ["crm"]}; "*" for all) [TOOLRET_SERVE_TOKENS, inline or @file].',
            exists=True,
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Serve selections over HTTP, for agents in any language.

    POST /v1/select, /v1/find_tools, /v1/catalogs/NAME and /v1/feedback; GET /healthz,
    /readyz, /metrics and /openapi.json (the API, for generating a client). Catalogs are
    registered over HTTP and kept in Postgres [DATABASE_URL; else the embedded Postgres], so
    any number of these processes behind a load balancer answer alike. A selection answers
    200 on every failure, with mode full and the reason. With REDIS_URL registered catalogs
    are indexed by the worker, otherwise inline. Without tokens it listens on localhost only.
    SIGTERM drains requests, then flushes queued feedback and reindex requests
    (TOOLRET_SERVE_DRAIN_SECONDS) before it exits.
    """
    import asyncio

    from toolret.service._runner import bind, check_address, run, startup_notice
    from toolret.service._settings import ServiceSettings
    from toolret.store.embedded import resolve_database_url

    overrides: dict[str, Any] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    if tokens is not None:
        overrides["tokens"] = f"@{tokens}"
    from toolret._settings import Settings, check_embedder

    settings = ServiceSettings(**overrides)
    check_embedder(Settings())  # a misconfigured embedder is one line, before anything starts
    check_address(settings)
    sock = bind(settings)  # a port in use is one line, before anything starts
    url = asyncio.run(asyncio.to_thread(resolve_database_url))
    Console(stderr=True, soft_wrap=True).print(startup_notice(settings), markup=False)
    run(settings, database_url=url, sock=sock)
