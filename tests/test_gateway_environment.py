"""What a stdio server's process gets of the gateway's environment: the MCP SDK's few variables,
the file's ``passEnv`` (names and globs), its own entry's ``passEnv`` and ``env``, and
``--pass-env``; nothing else. ``toolret gateway`` runs as a process over stdio, with variables
of its own; the server writes its environment to a file before serving.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.test_gateway import REPO, find


async def test_a_stdio_server_gets_what_the_guide_says_and_nothing_else(
    database_url: str, tmp_path: Path
) -> None:
    seen = tmp_path / "environment.json"
    dump = f"import json, os; json.dump(dict(os.environ), open({str(seen)!r}, 'w'))"
    serve = f"{shlex.quote(sys.executable)} -m tests.support.mcp_upstreams beta"
    beta = {
        "command": "/bin/sh",
        "args": ["-c", f"{shlex.quote(sys.executable)} -c {shlex.quote(dump)} && exec {serve}"],
        "env": {"PYTHONPATH": str(REPO), "OWN": "given"},
        "cwd": str(REPO),
        "passEnv": ["ENTRY_PASSED"],
    }
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": {"beta": beta}, "passEnv": ["GLOBBED_*"]}))
    toolret = str(Path(sys.executable).with_name("toolret"))
    env = {
        "DATABASE_URL": database_url,
        "PYTHONPATH": str(REPO),
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GLOBBED_CA": "/etc/ssl/ca.pem",
        "GLOBBED_REGION": "eu",
        "ENTRY_PASSED": "1",
        "FLAGGED": "2",
        "NOT_PASSED": "sk-live-secret",
    }
    args = ["gateway", "--config", str(config), "--pass-env", "FLAGGED"]
    gateway = StdioServerParameters(command=toolret, args=args, env=env, cwd=REPO)
    async with Client(gateway) as client:
        found = await find(client, "send an email to the team")
    assert found["unavailable"] == []
    got = json.loads(seen.read_text())
    for name in ("PATH", "HOME", "GLOBBED_CA", "GLOBBED_REGION", "ENTRY_PASSED", "FLAGGED"):
        assert got.get(name) == env[name], name
    assert got["OWN"] == "given"
    assert "NOT_PASSED" not in got
    assert "DATABASE_URL" not in got
