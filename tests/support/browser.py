"""The console in a real browser: ``toolret serve`` in its own process on a private Postgres,
with the demo roster (``crm``) and a fleet (``fleet``: the roster as four MCP servers)
registered, and ``drive`` to run a scenario of ``tests/browser/drive.mjs`` in headless
Chromium (``@sparticuz/chromium``, driven by ``playwright-core``, installed by ``npm ci``).

``TOOLRET_CONSOLE_SHOTS`` names a folder for the scenarios' screenshots (``docs/console`` to
renew the guide's); otherwise they go to the test's own folder.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.serve_process import start_serve, stop_serve
from tests.support.service_catalog import registration
from tests.support.typescript import require_node
from toolret import to_openai
from toolret.demo.roster import catalog as roster

__all__ = ["ARABIC", "BROWSER", "CHINESE", "Console", "drive", "fleet_registration", "serving"]

BROWSER = Path(__file__).resolve().parents[1] / "browser"
ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"
CHINESE = "把上个季度成交的所有交易导出到一个文件"
SERVERS = ("records", "schema", "views", "work")


def fleet_registration() -> dict[str, Any]:
    """The roster's 44 tools as an MCP fleet: four servers, tools named ``server__tool``."""
    servers: dict[str, list[dict[str, Any]]] = {name: [] for name in SERVERS}
    for i, tool in enumerate(roster.tools):
        listed = to_openai([tool])[0]["function"]
        servers[SERVERS[i * len(SERVERS) // len(roster.tools)]].append(
            {
                "name": tool.name,
                "description": tool.description,
                "inputSchema": listed.get("parameters", {"type": "object"}),
            }
        )
    return {"format": "mcp", "servers": servers}


class Console:
    """A running service: its URL, and an httpx client speaking to its API."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.url = url
        self.http = httpx.Client(base_url=url, headers=headers, timeout=300)

    def select(self, catalog: str, message: str) -> dict[str, Any]:
        body = {"catalog": catalog, "message": message, "explain": True}
        answer: dict[str, Any] = self.http.post("/v1/select", json=body).json()
        return answer


@contextmanager
def serving(database_url: str, tmp_path: Path, **env: str) -> Iterator[Console]:
    """``toolret serve`` with ``crm`` and ``fleet`` registered (and indexed inline)."""
    tokens = json.loads(env.get("TOOLRET_SERVE_TOKENS", "{}"))
    admin = next((t for t, names in tokens.items() if "*" in names), None)
    headers = {"authorization": f"Bearer {admin}"} if admin else {}
    url, process = start_serve(
        database_url, tmp_path / "serve.err", TOOLRET_TIME_BUDGET_MS="30000", **env
    )
    try:
        console = Console(url, headers)
        for name, body in (("crm", registration()), ("fleet", fleet_registration())):
            response = console.http.post(f"/v1/catalogs/{name}", json=body)
            assert response.status_code in (200, 201), response.text
            assert response.json()["indexing"]["state"] == "indexed", response.text
        yield console
    finally:
        stop_serve(process)


def drive(scenario: str, tmp_path: Path, **plan: Any) -> dict[str, Any]:
    """Run ``scenario`` of ``drive.mjs`` in headless Chromium; what the pages showed."""
    node = require_node()
    assert (BROWSER / "node_modules" / "@sparticuz" / "chromium").exists(), (
        f"the browser packages are not installed in {BROWSER}: run `make test` (it runs npm ci "
        "there), or `npm ci` in that folder"
    )
    shots = Path(os.environ.get("TOOLRET_CONSOLE_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"scenario": scenario, "shots": str(shots.resolve()), **plan})
    done = subprocess.run(
        [node, str(BROWSER / "drive.mjs"), body],
        cwd=BROWSER,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result
