"""``toolret gateway`` driven by the TypeScript MCP SDK's client (a 2025-11-25 client, over
stdio), in front of the npm reference filesystem and memory servers and a server whose tools
change (``alpha``, in this process over streamable HTTP).

The client (``tests/mcp-peers/gateway-client.mjs``) prints one JSON line per step and waits on
its stdin where this test acts: it adds a tool to ``alpha``, then kills the memory server by
its process id. The client waits for the gateway's ``notifications/tools/list_changed`` after
each, so every wait is on an event.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from mcp.server.subscriptions import InMemorySubscriptionBus

from tests.support.http_serving import serving
from tests.support.mcp_peers import PEERS, reference_server
from tests.support.mcp_upstreams import add_reschedule, alpha_server
from tests.support.typescript import require_node

DEADLINE = 180.0


async def step(process: asyncio.subprocess.Process, name: str) -> dict[str, Any]:
    """The client's next line, which must be step ``name``."""
    assert process.stdout is not None
    async with asyncio.timeout(DEADLINE):
        line = await process.stdout.readline()
    assert line, f"the TypeScript client ended before step {name!r}"
    said: dict[str, Any] = json.loads(line)
    assert said["step"] == name, said
    return said


async def go(process: asyncio.subprocess.Process) -> None:
    assert process.stdin is not None
    process.stdin.write(b"go\n")
    await process.stdin.drain()


async def test_the_typescript_sdk_client_through_the_gateway(
    database_url: str, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "notes.txt").write_text("the launch is on Friday\n")
    pidfile = tmp_path / "memory.pid"
    bus = InMemorySubscriptionBus()
    alpha_mcp = alpha_server(bus)
    async with serving(alpha_mcp.streamable_http_app()) as alpha:
        config = tmp_path / "gateway.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "alpha": {"url": f"{alpha.url}/mcp"},
                        "fs": reference_server("filesystem", tmp_path / "fs.pid", str(files)),
                        "memory": reference_server(
                            "memory", pidfile, MEMORY_FILE_PATH=str(tmp_path / "memory.jsonl")
                        ),
                    },
                    "core": ["fs__read_text_file"],
                }
            )
        )
        process = await asyncio.create_subprocess_exec(
            require_node(),
            str(PEERS / "gateway-client.mjs"),
            str(Path(sys.executable).with_name("toolret")),
            str(config),
            str(files / "notes.txt"),
            cwd=PEERS,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DATABASE_URL": database_url},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        try:
            listed = await step(process, "listed")
            assert listed["server"] == {"name": "toolret-gateway", "version": version("toolret")}
            assert listed["names"] == ["fs__read_text_file", "find_tools", "call_tool"]
            assert listed["annotations"]["readOnlyHint"] is True, "annotations pass through"

            found = await step(process, "found")
            assert found["unavailable"] == []
            assert any(name.startswith("fs__read") for name in found["names"]), found

            read = await step(process, "read")
            assert read == {"step": "read", "isError": False, "text": "the launch is on Friday\n"}

            resources = await step(process, "resources")
            assert "memory__knowledge-graph" in resources["names"]
            assert json.loads(resources["read"]) == {"entities": [], "relations": []}

            await step(process, "waiting")
            await add_reschedule(alpha_mcp, bus)
            await go(process)
            changed = await step(process, "changed")
            assert changed["heard"] >= 1

            await step(process, "waiting")
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
            await go(process)
            killed = await step(process, "killed")
            assert [u["server"] for u in killed["unavailable"]] == ["memory"]
            assert not any(name.startswith("memory__") for name in killed["names"])
            async with asyncio.timeout(DEADLINE):
                assert await process.wait() == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
