"""docs/gateway.md as written: every configuration block is read by the gateway's own reader,
the client's and the Inspector's blocks start the gateway on a file, the keys table is the
keys the reader knows, the quoted answers are the gateway's, and so are the times and limits it
states."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from toolret.gateway._config import _TOP_KEYS, READY_TIMEOUT, parse_config
from toolret.gateway._gateway import Gateway
from toolret.gateway._health import HEALTH
from toolret.gateway._http import MAX_BODY
from toolret.gateway._upstream import LIST_INTERVAL
from toolret.retrieval._client import ToolRetrievalClient

DOC = (Path(__file__).resolve().parent.parent / "docs" / "gateway.md").read_text(encoding="utf-8")
BLOCKS = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)]


def test_every_configuration_block_is_read_by_the_gateway() -> None:
    assert len(BLOCKS) == 3
    (configuration,) = [block for block in BLOCKS if "readyTimeout" in block]
    full = parse_config(configuration)
    assert [u.name for u in full.upstreams] == ["fs", "linear"]
    assert full.core == ("fs__read_text_file",)
    assert full.keywords == {"linear__create_issue": ("ticket", "bug report")}
    assert full.ready_timeout == READY_TIMEOUT
    assert full.allowed == ("fs__*", "linear__create_issue", "linear__search_issues")
    launchers = [block for block in BLOCKS if block is not configuration]
    for launcher in launchers:  # an MCP client's file, and the Inspector's --config
        (entry,) = parse_config(launcher).upstreams
        assert entry.command == "toolret"
        assert entry.args[:2] == ("gateway", "--config")


def test_the_keys_table_is_the_keys_the_reader_knows() -> None:
    table = DOC.split("| key | what it holds |", 1)[1].split("\n\n", 1)[0]
    documented = re.findall(r"^\| `(\w+)`", table, re.MULTILINE)
    assert {*documented, "servers"} == set(_TOP_KEYS)


def test_the_inspector_commands_name_the_inspector_file_and_server() -> None:
    commands = re.findall(
        r"```sh\n(.*?)```", DOC.split("## Under the MCP Inspector", 1)[1], re.DOTALL
    )
    (shell,) = commands
    server = next(iter(BLOCKS[2]["mcpServers"]))
    for line in shell.replace("\\\n", " ").splitlines():
        assert line.startswith("npx @modelcontextprotocol/inspector --cli --config inspector.json")
        assert f"--server {server} " in line


def test_the_ready_timeout_flag_is_the_cli_s() -> None:
    toolret = str(Path(sys.executable).with_name("toolret"))
    result = subprocess.run(
        [toolret, "gateway", "--help"], capture_output=True, text=True, env={"COLUMNS": "200"}
    )
    assert "--ready-timeout" in result.stdout


async def test_the_quoted_still_connecting_answer_is_the_gateway_s(database_url: str) -> None:
    config = parse_config({"mcpServers": {"fs": {"url": "http://127.0.0.1:1/mcp"}}})
    async with ToolRetrievalClient(database_url) as retrieval:
        answer = await Gateway(config, retrieval).find_tools(["read a file"])
    quoted = re.search(r"\(`\"(still connecting: [^\"]+)\"`\)", DOC)
    assert quoted is not None
    (unavailable,) = answer["unavailable"]
    assert unavailable["server"] == "fs"
    shape = re.sub(r"\d+", r"\\d+", re.escape(quoted.group(1)))
    assert re.fullmatch(shape, unavailable["error"]), (shape, unavailable["error"])


def test_the_stated_times_and_limits_are_the_gateway_s() -> None:
    every, within = HEALTH
    assert f"pinged every {every:g} s and has {within:g} s to" in DOC
    assert f"within {every + within:g} s of it freezing" in DOC
    assert f"`no answer to a ping within {within:g} s: the server is" in DOC
    assert f"larger than {MAX_BODY // 2**20} MiB is answered `413`" in DOC
    assert f"every {LIST_INTERVAL:g} s" in DOC
