"""``toolret gateway``: one MCP server in front of many, answering find_tools through toolret."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["gateway"]


def gateway(
    config: Annotated[
        Path,
        typer.Option(
            help="The mcpServers JSON your MCP client uses (command: stdio; url: streamable "
            'HTTP), optionally with "core": ["server__tool", ...].',
            exists=True,
            dir_okay=False,
        ),
    ],
    core: Annotated[
        list[str] | None,
        typer.Option(help="Also always expose this tool (server__tool); repeat for several."),
    ] = None,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[
        str, typer.Option(help="With --http: the address (anything but loopback needs tokens).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="With --http: the port.")] = 8090,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions",
            help="With --http: keep a session per client of the older MCP protocol, so it "
            "hears list_changed and can cancel calls (a balancer must then be sticky).",
        ),
    ] = False,
    pass_env: Annotated[
        list[str] | None,
        typer.Option(
            "--pass-env",
            help="Also give every stdio server this variable of the gateway's environment (a "
            "name, or a glob such as 'AWS_*'); repeat for several. They get HOME, LOGNAME, PATH, "
            'SHELL, TERM and USER, the file\'s "passEnv" and their own "env" besides.',
        ),
    ] = None,
    ready_timeout: Annotated[
        float | None,
        typer.Option(
            help="Seconds the first requests wait for every server's first listing "
            '(default: the file\'s "readyTimeout", else 30).',
            min=0.001,
        ),
    ] = None,
) -> None:
    """An MCP server in front of the MCP servers of an mcpServers JSON file.

    It lists every server's tools into one catalog, indexes it [DATABASE_URL; else the embedded
    Postgres; REDIS_URL: through the worker], and re-indexes when a server's tool list changes.
    Clients see the core tools, find_tools (ranked by meaning, any language) and call_tool
    (routed to the tool's server). A server that is down is reported in find_tools and
    /readyz; it never takes the gateway down. Over stdio (the default) an MCP client starts
    it; with --http it serves /mcp, /healthz and /readyz, bearer tokens from
    TOOLRET_GATEWAY_TOKENS (comma-separated).
    """
    import asyncio
    import dataclasses

    from toolret._settings import Settings, check_embedder
    from toolret.gateway._config import check_names, read_config
    from toolret.gateway._runner import run
    from toolret.store.embedded import resolve_database_url

    check_embedder(Settings())  # a misconfigured embedder is one line, before anything starts
    servers = read_config(config)
    if core:
        servers = dataclasses.replace(servers, core=(*servers.core, *core))
        check_names(servers)
    if ready_timeout is not None:
        servers = dataclasses.replace(servers, ready_timeout=ready_timeout)
    if pass_env:
        passing = tuple(
            dataclasses.replace(u, pass_env=(*u.pass_env, *pass_env)) for u in servers.upstreams
        )
        servers = dataclasses.replace(servers, upstreams=passing)
    tokens = [t.strip() for t in os.environ.get("TOOLRET_GATEWAY_TOKENS", "").split(",")]
    with _stdout_to_stderr(not http):  # over stdio nothing but MCP may reach stdout
        url = asyncio.run(asyncio.to_thread(resolve_database_url))
    run(
        servers,
        transport="http" if http else "stdio",
        database_url=url,
        host=host,
        port=port,
        tokens=[t for t in tokens if t],
        sessions=sessions,
    )


@contextlib.contextmanager
def _stdout_to_stderr(active: bool) -> Iterator[None]:
    """Send file descriptor 1 (and the child processes' output) to stderr for a while."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
