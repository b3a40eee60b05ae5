"""The gateway ready on first use, and a lost upstream noticed at once.

- A server that has not listed when ``readyTimeout`` passes is named in ``unavailable``, and a
  call to it says it is still connecting; when it lists, clients hear ``list_changed``.
- Before the catalog's vectors are stored (the worker has not run), find_tools ranks the whole
  fleet by BM25 and says so; after, by meaning.
- Right after a restart over a fleet whose vectors are stored, the first find_tools, in Arabic,
  ranks by meaning: it waits for the vectors to be read, never answering by BM25 meanwhile.
- The npm memory server (the older protocol: no change stream) killed by PID: find_tools names
  it unavailable through the gateway's own notification, though the periodic re-listing is an
  hour away.
- A Python SDK client of the older protocol over stdio sees the core tools on its first
  ``tools/list`` and hears ``notifications/tools/list_changed`` when an upstream's tools change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arq.worker import Worker
from mcp import Client, StdioServerParameters, types
from mcp.server import Server
from mcp.server.subscriptions import InMemorySubscriptionBus

from tests.support.http_serving import serving
from tests.support.mcp_peers import reference_server
from tests.support.mcp_upstreams import add_reschedule, alpha_server, beta_server
from tests.test_gateway import beta_entry, find, until
from toolret import BundledE5Embedder, Settings
from toolret.gateway._config import parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._http import http_app
from toolret.gateway._server import Downstream
from toolret.retrieval._client import ToolRetrievalClient
from toolret.store._vector_store import VectorStore

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 180.0
HOUR = 3600.0


def held_server(release: asyncio.Event) -> Server[Any]:
    """A server whose first ``tools/list`` waits for ``release``: one still connecting."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        await release.wait()
        tool = types.Tool(
            name="ping",
            description="Check that the slow server answers, and how long it takes to.",
            input_schema={"type": "object", "properties": {}},
        )
        return types.ListToolsResult(tools=[tool])

    return Server("slow", on_list_tools=list_tools)


async def test_a_server_still_connecting_at_the_ready_timeout_is_named_and_joins_later(
    database_url: str,
) -> None:
    release = asyncio.Event()
    async with (
        serving(alpha_server(InMemorySubscriptionBus()).streamable_http_app()) as alpha,
        serving(held_server(release).streamable_http_app()) as slow,
    ):
        config = parse_config(
            {
                "mcpServers": {
                    "alpha": {"url": f"{alpha.url}/mcp"},
                    "slow": {"url": f"{slow.url}/mcp"},
                },
                "core": ["alpha__list_events"],
                "readyTimeout": 5,
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
                listed = (await client.list_tools()).tools
                names = [tool.name for tool in listed]
                assert names == ["alpha__list_events", "find_tools", "call_tool"]
                said = re.search(
                    r"Server 'slow' is still connecting: trying for (\d+) s\.$",
                    listed[1].description or "",
                )
                assert said is not None, listed[1].description
                assert int(said.group(1)) >= 5, "at least the ready timeout"
                found = await find(client, "check that the slow server answers")
                (unavailable,) = found["unavailable"]
                assert unavailable["server"] == "slow"
                trying = re.fullmatch(r"still connecting: trying for (\d+) s", unavailable["error"])
                assert trying is not None, unavailable["error"]
                assert int(trying.group(1)) >= 5, "at least the ready timeout"
                called = await client.call_tool("call_tool", {"name": "slow__ping"})
                assert called.is_error
                text = called.content[0].text
                assert text.startswith("server 'slow' is unavailable: still connecting"), text
                assert "its tools are not listed yet" in text

                release.set()

                async def joined() -> bool:
                    answer = await find(client, "check that the slow server answers")
                    return not answer["unavailable"] and any(
                        tool["name"] == "slow__ping" for tool in answer["tools"]
                    )

                await until(client, joined)


async def test_find_tools_ranks_by_bm25_until_the_vectors_are_stored_and_says_so(
    database_url: str, redis_url: str, worker: Callable[..., Worker]
) -> None:
    """The gateway queues its catalog for the worker; until the worker has run, find_tools
    still finds the tool by its words, marked ``"ranking": "bm25"``."""
    embedder = BundledE5Embedder()
    async with serving(beta_server().streamable_http_app()) as beta:
        config = parse_config({"mcpServers": {"beta": {"url": f"{beta.url}/mcp"}}})
        async with (
            VectorStore.from_url(database_url) as store,
            ToolRetrievalClient(
                store=store, embedder=embedder, settings=Settings(redis_url=redis_url)
            ) as retrieval,
        ):
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
                async with asyncio.timeout(DEADLINE):
                    await gateway.indexed.wait()
                assert gateway.indexing == "queued"
                before = await find(client, "send an email to the team")
                assert before["tools"][0]["name"] == "beta__send_email"
                assert before["ranking"] == "bm25"
                assert "ranked by their words (BM25)" in before["note"]

                indexing = worker(ctx={"store": store, "embedder": embedder})
                await indexing.main()
                assert indexing.jobs_failed == 0
                after = await find(client, "tell the whole team by mail that we launched")
    assert after["tools"][0]["name"] == "beta__send_email"
    assert "ranking" not in after, after


async def test_a_killed_server_of_the_older_protocol_is_unavailable_at_once(
    database_url: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "memory.pid"
    memory = reference_server("memory", pidfile, MEMORY_FILE_PATH=str(tmp_path / "memory.jsonl"))
    config = parse_config({"mcpServers": {"memory": memory}})
    async with ToolRetrievalClient(database_url) as retrieval:
        gateway = Gateway(config, retrieval, list_interval=HOUR, retry=(HOUR, HOUR))
        async with serving(http_app(gateway)) as served, Client(f"{served.url}/mcp") as client:
            async with asyncio.timeout(DEADLINE):
                await gateway.indexed.wait()
            up = await find(client, "remember that Sam prefers tea")
            assert up["unavailable"] == []
            assert up["tools"]
            assert all(t["name"].startswith("memory__") for t in up["tools"])
            assert gateway.upstreams["memory"].state.value == "up"

            os.kill(int(pidfile.read_text()), signal.SIGKILL)

            async def gone() -> bool:
                return bool((await find(client, "remember that Sam prefers tea"))["unavailable"])

            await until(client, gone)
            down = await find(client, "remember that Sam prefers tea")
    assert [u["server"] for u in down["unavailable"]] == ["memory"]
    assert "process exited" in down["unavailable"][0]["error"]
    assert down["tools"] == []


async def test_a_client_of_the_older_protocol_sees_core_tools_at_once_and_hears_changes(
    database_url: str, tmp_path: Path
) -> None:
    heard: asyncio.Queue[object] = asyncio.Queue()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.put_nowait(message)

    bus = InMemorySubscriptionBus()
    alpha_mcp = alpha_server(bus)
    async with serving(alpha_mcp.streamable_http_app()) as alpha:
        config = tmp_path / "servers.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "alpha": {"url": f"{alpha.url}/mcp"},
                        "beta": beta_entry(tmp_path / "beta.pid"),
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
        async with Client(gateway, mode="legacy", message_handler=on_message) as client:
            assert client.protocol_version == "2025-11-25"
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert names == ["alpha__list_events", "find_tools", "call_tool"]
            first = await find(client, "email the whole team about the launch")
            assert first["unavailable"] == []
            assert first["tools"][0]["name"] == "beta__send_email"

            await add_reschedule(alpha_mcp, bus)
            async with asyncio.timeout(DEADLINE):
                while True:
                    await heard.get()
                    found = await find(client, "move my meeting with Sam to Friday afternoon")
                    if "alpha__reschedule_event" in [tool["name"] for tool in found["tools"]]:
                        break
            moved = await client.call_tool(
                "call_tool",
                {
                    "name": "alpha__reschedule_event",
                    "arguments": {"event_id": "e1", "new_start": "fri"},
                },
            )
    assert structured_text(moved) == "moved e1 to fri"


def structured_text(result: Any) -> str:
    assert not result.is_error, result.content
    text: str = result.content[0].text
    return text


async def test_right_after_a_restart_the_first_arabic_find_tools_ranks_by_meaning(
    database_url: str,
) -> None:
    """The fleet's vectors are stored by a first gateway; a second one over the same fleet
    (a restart) answers its very first find_tools, in Arabic, by meaning."""
    async with serving(beta_server().streamable_http_app()) as beta:
        config = parse_config({"mcpServers": {"beta": {"url": f"{beta.url}/mcp"}}})
        async with ToolRetrievalClient(database_url) as retrieval:
            first = Gateway(config, retrieval, retry=(600.0, 600.0))
            running = await first.start()
            try:
                async with asyncio.timeout(DEADLINE):
                    await first.indexed.wait()
            finally:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
            assert first.indexing == "indexed"

            restarted = Gateway(config, retrieval, retry=(600.0, 600.0))
            downstream = Downstream(restarted)
            running = await restarted.start()
            try:
                async with Client(downstream.server) as client:
                    found = await find(client, "أرسل رسالة بريد إلكتروني إلى الفريق كله")
            finally:
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
    assert "ranking" not in found, found
    assert found["tools"][0]["name"] == "beta__send_email", found
