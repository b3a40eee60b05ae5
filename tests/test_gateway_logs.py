"""``toolret gateway``'s log, over stdio as over ``--http``: one format (each line its message,
as docs/gateway.md shows it), and each warning once per start per cause: a thin tool however
often the catalog is built, a server's failing resource listing however often it is asked.

Three servers: ``noisy`` logs an error when called; ``patient`` lists a thin tool at once;
``gated`` lists another thin tool only once the test creates its gate file, after the first
catalog was built, so the gateway builds its catalog at least twice while it starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.server import Server

from tests.support.http_serving import serving
from tests.test_gateway import REPO
from tests.test_gateway_health import free_port
from tests.test_gateway_losses import listening
from tests.test_gateway_notices import lines_of
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._server import Downstream
from toolret.retrieval._client import ToolRetrievalClient


def server(name: str, **env: str) -> dict[str, object]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_upstreams", name],
        "env": {"PYTHONPATH": str(REPO), **env},
        "cwd": str(REPO),
    }


@asynccontextmanager
async def gateway(
    transport: str, config: Path, stderr: Path, database_url: str
) -> AsyncIterator[Client]:
    """``toolret gateway`` over ``transport`` as a process, its stderr to ``stderr``."""
    toolret = str(Path(sys.executable).with_name("toolret"))
    command = [toolret, "gateway", "--config", str(config)]
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(REPO)}
    with stderr.open("w") as errlog:
        if transport == "stdio":
            params = StdioServerParameters(command=toolret, args=command[1:], env=env, cwd=REPO)
            async with Client(stdio_client(params, errlog=errlog)) as client:
                yield client
            return
        port = free_port()
        process = await asyncio.to_thread(
            subprocess.Popen, [*command, "--http", "--port", str(port)], env=env, stderr=errlog
        )
        try:
            await listening(port)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                yield client
        finally:
            process.terminate()
            await asyncio.to_thread(process.wait)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_one_log_format_and_each_warning_once(
    database_url: str, tmp_path: Path, transport: str
) -> None:
    gate = tmp_path / "gate"
    config = tmp_path / "gateway.json"
    servers = {"noisy": server("noisy"), "patient": server("patient"), "gated": server("gated")}
    servers["gated"]["env"] = {"PYTHONPATH": str(REPO), "GATE": str(gate)}
    config.write_text(json.dumps({"mcpServers": servers, "readyTimeout": 3}))
    stderr = tmp_path / "stderr.txt"
    async with gateway(transport, config, stderr, database_url) as client:
        await lines_of(stderr, "patient__peek")  # the first catalog, without gated's tools
        gate.touch()
        await lines_of(stderr, "gated__poke")  # gated listed: the catalog built again
        checked = await client.call_tool("call_tool", {"name": "noisy__check_disks"})
        assert not checked.is_error, checked.content
        lines = await lines_of(stderr, "97% full")
    assert "toolret gateway: noisy [error]: the disk /srv is 97% full" in lines, lines
    assert len([line for line in lines if "patient__peek" in line]) == 1, lines
    assert len([line for line in lines if "gated__poke" in line]) == 1, lines
    assert not [line for line in lines if line.startswith(("WARNING:", "ERROR:", "INFO:"))]


def failing_resources() -> Server[Any]:
    """A server that offers resources but fails every listing of them."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tool = types.Tool(
            name="archive",
            description="Archive the current folder into a compressed file in the backups.",
            input_schema={"type": "object"},
        )
        return types.ListToolsResult(tools=[tool])

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        raise RuntimeError("the resource index is corrupt")

    return Server("broken", on_list_tools=list_tools, on_list_resources=list_resources)


async def test_a_failing_listing_is_logged_once_not_per_request(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with serving(failing_resources().streamable_http_app()) as broken:
        config = parse_config({"mcpServers": {"broken": {"url": f"{broken.url}/mcp"}}})
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            downstream = Downstream(gateway)
            running = await gateway.start()
            try:
                with caplog.at_level(logging.WARNING, logger="toolret.gateway"):
                    async with Client(downstream.server) as client:
                        for _ in range(3):
                            assert (await client.list_resources()).resources == []
            finally:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
    said = [r.getMessage() for r in caplog.records if "listing resources" in r.getMessage()]
    assert len(said) == 1, said
    assert said[0].startswith("toolret gateway: listing resources of broken failed")
