"""Running the gateway: over stdio for a desktop or IDE client, or over HTTP behind a balancer.

Over stdio the client starts ``toolret gateway --config servers.json`` itself and nothing but
MCP may reach stdout: logs go to stderr. Over HTTP the same address rules as ``toolret serve``
hold: without tokens it listens on a loopback address only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Sequence
from typing import Literal

from toolret._extras import require
from toolret.errors import ConfigurationError, StoreError
from toolret.gateway._config import GatewayConfig

__all__ = ["run"]

log = logging.getLogger("toolret.gateway")

Transport = Literal["stdio", "http"]


def run(
    config: GatewayConfig,
    *,
    transport: Transport = "stdio",
    database_url: str,
    host: str = "127.0.0.1",
    port: int = 8090,
    tokens: Sequence[str] = (),
    sessions: bool = False,
) -> None:
    """Serve the gateway until the client closes stdio, or SIGTERM/SIGINT over HTTP
    (``sessions``: see ``http_app``)."""
    require("gateway", "mcp", "uvicorn", purpose="toolret gateway")
    from toolret.service._runner import configure_logging

    configure_logging("warning", "%(message)s")  # one format over either transport, as the
    # guide shows it: `toolret gateway: fs is down: …`
    if transport == "http":
        from toolret.service._runner import exit_cleanly, is_loopback

        if not tokens and not is_loopback(host):
            raise ConfigurationError(
                f"no tokens are configured (TOOLRET_GATEWAY_TOKENS), so toolret gateway "
                f"listens on a loopback address only, not {host}: configure tokens to listen there"
            )
        signal.signal(signal.SIGTERM, exit_cleanly)  # after uvicorn's graceful stop: status 0
        _serve_http(
            config,
            database_url=database_url,
            host=host,
            port=port,
            tokens=tokens,
            sessions=sessions,
        )
    else:
        asyncio.run(_serve_stdio(config, database_url))


async def _serve_stdio(config: GatewayConfig, database_url: str) -> None:
    from toolret.gateway._gateway import Gateway
    from toolret.gateway._server import run_stdio
    from toolret.retrieval._client import ToolRetrievalClient

    async with ToolRetrievalClient(database_url) as client:
        await run_stdio(Gateway(config, client))


def _serve_http(
    config: GatewayConfig,
    *,
    database_url: str,
    host: str,
    port: int,
    tokens: Sequence[str],
    sessions: bool,
) -> None:
    import uvicorn

    from toolret.gateway._gateway import Gateway
    from toolret.gateway._http import http_app
    from toolret.retrieval._client import ToolRetrievalClient

    async def serve() -> None:
        async with ToolRetrievalClient(database_url) as client:
            gateway = Gateway(config, client)
            running = await gateway.start()  # a configuration error ends here, before serving

            async def database_check() -> str:
                try:
                    async with asyncio.timeout(client.time_budget):
                        await client.store.ping()
                except (StoreError, TimeoutError) as error:
                    return str(error) or type(error).__name__
                return "ok"

            app = http_app(
                gateway,
                host=host,
                tokens=tokens,
                database_check=database_check,
                run_gateway=False,
                sessions=sessions,
            )
            server = uvicorn.Server(
                uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
            )
            try:
                await server.serve()
            finally:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running

    asyncio.run(serve())
