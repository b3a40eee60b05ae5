"""The npm MCP peers the gateway tests talk to, pinned by ``tests/mcp-peers/package-lock.json``:
the reference filesystem and memory servers, and the TypeScript SDK's client.

``make test`` installs them (``npm ci``). ``reference_server`` is an ``mcpServers`` entry that
starts one of the servers through ``sh -c 'echo $$ > pidfile; exec node …'``, so the process
the gateway started writes its own id and a test can kill exactly it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.typescript import require_node

__all__ = ["PEERS", "reference_server"]

PEERS = Path(__file__).resolve().parents[1] / "mcp-peers"


def _installed(package: str) -> Path:
    folder = PEERS / "node_modules" / package
    assert folder.exists(), (
        f"{package} is not installed in {PEERS}: run `make test` (it runs npm ci there), or "
        "`npm ci` in that folder"
    )
    return folder


def reference_server(name: str, pidfile: Path, *args: str, **env: str) -> dict[str, Any]:
    """The ``mcpServers`` entry of ``@modelcontextprotocol/server-<name>``, writing its process
    id to ``pidfile``."""
    script = _installed(f"@modelcontextprotocol/server-{name}") / "dist" / "index.js"
    node = require_node()
    quoted = " ".join(f"'{arg}'" for arg in (node, str(script), *args))
    return {
        "command": "/bin/sh",
        "args": ["-c", f"echo $$ > '{pidfile}'; exec {quoted}"],
        "env": env,
    }


def typescript_sdk() -> Path:
    """The TypeScript SDK's folder (``@modelcontextprotocol/sdk``)."""
    return _installed("@modelcontextprotocol/sdk")
