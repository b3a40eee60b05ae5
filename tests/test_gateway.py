"""``toolret gateway``: an MCP server in front of two real MCP servers, driven by the MCP SDK's
client over streamable HTTP and over stdio.

``alpha`` (in this process, streamable HTTP) adds a tool while the test runs; ``beta`` (its own
process, stdio) is killed. Every wait is on an event: the gateway's ``ready``, or the
``tools/list_changed`` notification the gateway sends once it has re-listed and re-indexed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus

from tests.support.http_serving import Serving, serving
from tests.support.mcp_upstreams import add_reschedule, alpha_server
from toolret.gateway._config import GatewayConfig, UpstreamConfig, parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.retrieval._client import ToolRetrievalClient

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 180.0
"""A bound on each wait for an event, so a regression fails instead of hanging."""


def beta_entry(pidfile: Path) -> dict[str, Any]:
    """mcpServers entry starting ``beta`` over stdio, writing its pid to ``pidfile``."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_upstreams", "beta"],
        "env": {"PIDFILE": str(pidfile), "PYTHONPATH": str(REPO)},
        "cwd": str(REPO),
    }


@asynccontextmanager
async def alpha() -> AsyncIterator[tuple[Serving, Any, InMemorySubscriptionBus]]:
    bus = InMemorySubscriptionBus()
    server = alpha_server(bus)
    async with serving(server.streamable_http_app()) as served:
        yield served, server, bus


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    payload: dict[str, Any] = result.structured_content or json.loads(result.content[0].text)
    return payload


async def find(client: Client, capability: str) -> dict[str, Any]:
    """find_tools for one capability: the answer, its tools beside it."""
    answer = structured(await client.call_tool("find_tools", {"capabilities": [capability]}))
    return {**answer, "tools": answer["results"][0]["tools"]}


async def until(client: Client, condition: Any) -> None:
    """Wait on the gateway's tools/list_changed notifications until ``condition()`` holds."""
    async with asyncio.timeout(DEADLINE), client.listen(tools_list_changed=True) as changes:
        if await condition():
            return
        async for _ in changes:
            if await condition():
                return


async def exercise(
    client: Client, alpha_server: Any, bus: InMemorySubscriptionBus, pidfile: Path
) -> None:
    """What both transports must do: list, find, call, follow a change, survive a kill."""
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["alpha__list_events", "find_tools", "call_tool"]

    found = await find(client, "email the whole team about the launch")
    assert found["tools"][0]["name"] == "beta__send_email"
    assert found["tools"][0]["inputSchema"]["required"] == ["to", "subject", "body"]
    assert found["unavailable"] == []
    sent = await client.call_tool(
        "call_tool",
        {
            "name": "beta__send_email",
            "arguments": {"to": ["team"], "subject": "Launch", "body": "!"},
        },
    )
    assert not sent.is_error
    assert "sent 'Launch' to team" in sent.content[0].text
    listed = await client.call_tool("alpha__list_events", {"start": "mon", "end": "fri"})
    assert listed.content[0].text == "no events between mon and fri"

    async def rescheduled() -> bool:
        found = await find(client, "move my meeting with Sam to Friday afternoon")
        return "alpha__reschedule_event" in [tool["name"] for tool in found["tools"]]

    assert not await rescheduled()
    await add_reschedule(alpha_server, bus)
    await until(client, rescheduled)

    pid = int(await asyncio.to_thread(pidfile.read_text))
    os.kill(pid, signal.SIGKILL)

    async def beta_down() -> bool:
        return bool((await find(client, "send an email"))["unavailable"])

    await until(client, beta_down)
    found = await find(client, "send an email to the team")
    assert [u["server"] for u in found["unavailable"]] == ["beta"]
    assert found["unavailable"][0]["error"]
    assert all(not tool["name"].startswith("beta__") for tool in found["tools"])
    refused = await client.call_tool(
        "call_tool",
        {"name": "beta__send_email", "arguments": {"to": ["x"], "subject": "s", "body": "b"}},
    )
    assert refused.is_error
    assert "'beta' is unavailable" in refused.content[0].text
    still = await client.call_tool("alpha__list_events", {"start": "mon", "end": "fri"})
    assert not still.is_error, "a dead upstream never takes the gateway down"


async def test_the_gateway_over_streamable_http(database_url: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "beta.pid"
    async with alpha() as (alpha_http, alpha_mcp, bus):
        config = parse_config(
            {
                "mcpServers": {
                    "alpha": {"url": f"{alpha_http.url}/mcp"},
                    "beta": beta_entry(pidfile),
                },
                "core": ["alpha__list_events"],
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served:
                async with asyncio.timeout(DEADLINE):
                    await gateway.ready.wait()
                async with Client(f"{served.url}/mcp") as client:
                    await exercise(client, alpha_mcp, bus, pidfile)
                async with httpx.AsyncClient(base_url=served.url) as http:
                    ready = await http.get("/readyz")
                assert ready.status_code == 503, "not every upstream is up"
                assert ready.json()["upstreams"]["beta"]["state"] == "down"
                assert ready.json()["upstreams"]["alpha"] == {
                    "state": "up",
                    "transport": "http",
                    "tools": 4,
                }


async def test_the_gateway_over_stdio(database_url: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "beta.pid"
    async with alpha() as (alpha_http, alpha_mcp, bus):
        config = tmp_path / "servers.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "alpha": {"url": f"{alpha_http.url}/mcp"},
                        "beta": beta_entry(pidfile),
                    },
                    "core": ["alpha__list_events"],
                }
            )
        )
        gateway = StdioServerParameters(
            command=str(Path(sys.executable).with_name("toolret")),
            args=["gateway", "--config", str(config)],
            env={"DATABASE_URL": database_url, "PYTHONPATH": str(REPO)},
            cwd=str(REPO),
        )
        async with Client(gateway) as client:

            async def listed() -> bool:  # both servers up, and their tools indexed
                found = await find(client, "send an email")
                return bool(found["tools"]) and not found["unavailable"]

            await until(client, listed)
            await exercise(client, alpha_mcp, bus, pidfile)


def test_mcp_servers_json_is_read_as_mcp_clients_write_it() -> None:
    config = parse_config(
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "env": {"A": "1"}},
                "linear": {"type": "http", "url": "https://x/mcp", "headers": {"X": "y"}},
            },
            "core": ["fs__read_file"],
        }
    )
    assert config == GatewayConfig(
        (
            UpstreamConfig("fs", command="npx", args=("-y", "server-fs", "/tmp"), env={"A": "1"}),
            UpstreamConfig("linear", url="https://x/mcp", headers={"X": "y"}),
        ),
        ("fs__read_file",),
    )
    assert "y" not in repr(config.upstreams[1]), "headers hold secrets"


def test_a_configuration_that_cannot_work_is_one_line_naming_the_server(tmp_path: Path) -> None:
    cases = {
        "both": {"mcpServers": {"x": {"command": "a", "url": "http://h/mcp"}}},
        "sse": {"mcpServers": {"x": {"type": "sse", "url": "http://h/sse"}}},
        "none": {"mcpServers": {}},
        "url": {"mcpServers": {"x": {"url": "ftp://h"}}},
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        result = subprocess.run(
            [str(Path(sys.executable).with_name("toolret")), "gateway", "--config", str(path)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 1, (name, result.stderr)
        assert result.stderr.startswith("error: "), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert "mcpServers" in result.stderr


async def test_an_upstream_down_from_the_start_is_reported_and_tokens_guard_mcp(
    database_url: str,
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there
    config = parse_config({"mcpServers": {"gone": {"url": f"http://127.0.0.1:{port}/mcp"}}})
    async with ToolRetrievalClient(database_url) as retrieval:
        gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
        async with serving(http_app(gateway, tokens=["sesame"])) as served:
            async with asyncio.timeout(DEADLINE):
                await gateway.ready.wait()
            async with httpx.AsyncClient(base_url=served.url) as http:
                ready = await http.get("/readyz", headers={"Authorization": "Bearer sesame"})
                refused = await http.post("/mcp", json={})
            assert ready.status_code == 503
            assert ready.json()["upstreams"]["gone"]["state"] == "down"
            error = ready.json()["upstreams"]["gone"]["error"]
            assert error.startswith(f"cannot connect to http://127.0.0.1:{port}/mcp ("), error
            assert "; reconnecting in " in error
            assert refused.status_code == 401
            headers = {"Authorization": "Bearer sesame"}
            transport = streamable_http_client(
                f"{served.url}/mcp", http_client=httpx2.AsyncClient(headers=headers)
            )
            async with Client(transport) as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                assert names == ["find_tools", "call_tool"]
                found = await find(client, "anything at all")
            assert found["tools"] == []
            assert found["unavailable"][0]["server"] == "gone"


def test_the_gateway_over_http_as_a_process(database_url: str, tmp_path: Path) -> None:
    """``toolret gateway --http``: a refused public address, then probes and a clean SIGTERM."""
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"gone": {"url": "http://127.0.0.1:9/mcp"}}}))
    toolret = str(Path(sys.executable).with_name("toolret"))
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("TOOLRET_GATEWAY_TOKENS", None)
    refused = subprocess.run(
        [toolret, "gateway", "--config", str(config), "--http", "--host", "0.0.0.0"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: no tokens are configured (TOOLRET_GATEWAY_TOKENS)")

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [toolret, "gateway", "--config", str(config), "--http", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + DEADLINE
        while True:  # polling a condition with a deadline
            assert process.poll() is None
            try:
                ready = httpx.get(f"http://127.0.0.1:{port}/readyz")
                if ready.json()["upstreams"]["gone"]["state"] == "down":
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert ready.status_code == 503, "its one upstream is down"
        assert ready.json()["database"] == "ok"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=DEADLINE) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_a_server_without_a_change_stream_is_listed_again_every_list_interval(
    database_url: str,
) -> None:
    """A server that does not serve subscriptions/listen: the gateway re-lists it on its own
    interval (short here), and a new tool reaches find_tools and the client's notification."""
    server = MCPServer("gamma", subscriptions=False, log_level="WARNING")

    @server.tool(description="Look up the current weather for a city, in metric units.")
    def weather(city: str) -> str:
        return f"sunny in {city}"

    async with serving(server.streamable_http_app()) as gamma:
        config = parse_config({"mcpServers": {"gamma": {"url": f"{gamma.url}/mcp"}}})
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, list_interval=0.5, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served:
                async with asyncio.timeout(DEADLINE):
                    await gateway.ready.wait()
                async with Client(f"{served.url}/mcp") as client:

                    def translate(text: str, language: str) -> str:
                        return text

                    server.add_tool(
                        translate, description="Translate a text into another language."
                    )

                    async def translatable() -> bool:
                        found = await find(client, "translate this paragraph into French")
                        return "gamma__translate" in [tool["name"] for tool in found["tools"]]

                    await until(client, translatable)
                assert gateway.upstreams["gamma"].state.value == "up"
