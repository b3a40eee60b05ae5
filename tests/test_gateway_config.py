"""The gateway's configuration fails early: unknown keys, names that match nothing, and the
per-tool metadata ``catalog_from_mcp`` takes (examples, keywords), read and applied.

A name that names no configured server is refused when the file is read; one of a configured
server that its first listing lacks is refused as the gateway starts, before it serves, as one
``error:`` line from ``toolret gateway``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.subscriptions import InMemorySubscriptionBus

from tests.support.http_serving import serving
from tests.support.mcp_upstreams import alpha_server
from toolret.errors import ConfigurationError
from toolret.gateway._config import READY_TIMEOUT, parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._server import Downstream
from toolret.retrieval._client import ToolRetrievalClient

REPO = Path(__file__).resolve().parent.parent
TOOLRET = str(Path(sys.executable).with_name("toolret"))
DEADLINE = 180.0
URL = {"url": "http://127.0.0.1:1/mcp"}


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigurationError) as caught:
        parse_config(data)
    return str(caught.value)


def test_an_unknown_key_is_an_error_naming_it() -> None:
    top = refused({"mcpServers": {"a": URL}, "cores": ["a__x"]})
    assert "'cores'" in top
    assert "the gateway does not know" in top
    inner = refused({"mcpServers": {"a": {**URL, "header": {"X": "y"}}}})
    assert "mcpServers.a" in inner
    assert "'header'" in inner


def test_a_name_of_no_configured_server_is_an_error_naming_it() -> None:
    for key, value in (
        ("core", ["b__read"]),
        ("examples", {"read_file": ["open the report"]}),
        ("keywords", {"b__read": ["file"]}),
    ):
        message = refused({"mcpServers": {"a": URL}, key: value})
        assert f'"{key}" names' in message, message
        assert "server one of 'a'" in message


def test_keywords_examples_and_the_ready_timeout_are_read() -> None:
    config = parse_config(
        {
            "mcpServers": {"alpha": URL, "my.server": URL},
            "keywords": {"alpha__list_events": ["agenda", "schedule"]},
            "examples": {"my_server__open": ["open the report"]},
            "readyTimeout": 2.5,
        }
    )
    assert config.keywords == {"alpha__list_events": ("agenda", "schedule")}
    assert config.server_of("my_server__open") == "my.server", "the catalog's sanitized name"
    assert config.ready_timeout == 2.5
    assert parse_config({"mcpServers": {"a": URL}}).ready_timeout == READY_TIMEOUT
    assert "readyTimeout" in refused({"mcpServers": {"a": URL}, "readyTimeout": 0})
    assert "keywords" in refused({"mcpServers": {"a": URL}, "keywords": {"a__x": "word"}})


async def test_keywords_reach_the_catalog_and_the_server_says_its_version(
    database_url: str,
) -> None:
    async with serving(alpha_server(InMemorySubscriptionBus()).streamable_http_app()) as alpha:
        config = parse_config(
            {
                "mcpServers": {"alpha": {"url": f"{alpha.url}/mcp"}},
                "core": ["alpha__list_events"],
                "keywords": {"alpha__cancel_event": ["call off", "scrap"]},
            }
        )
        async with ToolRetrievalClient(database_url) as retrieval:
            gateway = Gateway(config, retrieval, retry=(600.0, 600.0))
            running = await gateway.start()
            try:
                assert gateway.catalog is not None
                assert gateway.catalog["alpha__cancel_event"].keywords == ("call off", "scrap")
                async with Client(Downstream(gateway).server, mode="legacy") as client:
                    assert client.server_info is not None
                    assert client.server_info.version == version("toolret")
            finally:
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)


def test_a_core_name_its_server_does_not_list_stops_the_start_with_one_line(
    tmp_path: Path, database_url: str
) -> None:
    """``alpha`` lists list_events, create_event and cancel_event; ``alpha__list_event`` is a
    typo the gateway must refuse at start rather than serve without it."""
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "alpha": {
                        "command": sys.executable,
                        "args": ["-m", "tests.support.mcp_upstreams", "alpha"],
                        "env": {"PYTHONPATH": str(REPO)},
                        "cwd": str(REPO),
                    }
                },
                "core": ["alpha__list_event"],
            }
        )
    )
    result = subprocess.run(
        [TOOLRET, "gateway", "--config", str(config)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={"DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"},
        timeout=DEADLINE,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    last = result.stderr.strip()
    assert last.startswith("error: \"core\" names 'alpha__list_event'"), result.stderr
    assert "list_events" in last, "it shows what the server lists"


def test_the_inspector_config_shape_runs_the_gateway(tmp_path: Path) -> None:
    """The MCP Inspector's ``--config`` file is an ``mcpServers`` file whose server is
    ``toolret gateway --config <the gateway's>``; the gateway's own file is read as is."""
    gateway_file = tmp_path / "gateway.json"
    gateway_file.write_text(json.dumps({"mcpServers": {"alpha": URL}, "core": []}))
    inspector_file = tmp_path / "inspector.json"
    inspector_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "toolret": {
                        "command": "toolret",
                        "args": ["gateway", "--config", str(gateway_file)],
                    }
                }
            }
        )
    )
    inspector = parse_config(json.loads(inspector_file.read_text()))
    (entry,) = inspector.upstreams
    assert entry.command == "toolret"
    assert entry.args == ("gateway", "--config", str(gateway_file))
    assert parse_config(json.loads(gateway_file.read_text())).upstreams[0].name == "alpha"
