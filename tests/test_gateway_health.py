"""The gateway's probes are for operators, not strangers: ``toolret gateway --http --host 0.0.0.0``
with tokens, in front of a server that prints a (fake) secret to stderr and exits with status 3.

No request without a token sees any of that server's output: ``/healthz`` is liveness only,
``/readyz`` says the server is down (503) but not why, ``/mcp`` is refused. A request with a token
reads why on ``/readyz`` and in find_tools' answer, and the gateway's own stderr has the line.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.test_gateway import DEADLINE, find

SECRET = "sk-live-4f0c9e1d7a"
LEAKING = (
    "import sys; "
    f"print('API key {SECRET} was rejected by the billing API', file=sys.stderr); sys.exit(3)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def readyz_once_down(url: str, process: subprocess.Popen[bytes]) -> httpx.Response:
    """``/readyz`` (with the token) once it says the server is down (polled, with a deadline)."""
    deadline = time.monotonic() + DEADLINE
    while True:  # polling a condition with a deadline
        assert process.poll() is None, "the gateway exited"
        try:
            ready = httpx.get(f"{url}/readyz", headers={"Authorization": "Bearer sesame"})
            if ready.json()["upstreams"]["billing"]["state"] == "down":
                return ready
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the gateway never reported the server down"
        time.sleep(0.05)


async def test_no_request_without_a_token_sees_an_upstream_s_output(
    database_url: str, tmp_path: Path
) -> None:
    config = tmp_path / "servers.json"
    billing = {"command": sys.executable, "args": ["-c", LEAKING]}
    config.write_text(json.dumps({"mcpServers": {"billing": billing}}))
    port = free_port()
    toolret = str(Path(sys.executable).with_name("toolret"))
    env = {**os.environ, "DATABASE_URL": database_url, "TOOLRET_GATEWAY_TOKENS": "sesame,other"}
    command = [toolret, "gateway", "--config", str(config), "--http", "--host", "0.0.0.0"]
    stderr = tmp_path / "stderr.txt"
    url = f"http://127.0.0.1:{port}"
    with stderr.open("wb") as errlog:
        process = await asyncio.to_thread(
            subprocess.Popen, [*command, "--port", str(port)], env=env, stderr=errlog
        )
        try:
            told = readyz_once_down(url, process)
            async with httpx.AsyncClient(base_url=url) as http:
                anonymous = [
                    await http.get("/healthz"),
                    await http.get("/readyz"),
                    await http.post("/mcp", json={}),
                    await http.get("/readyz", headers={"Authorization": "Bearer wrong"}),
                ]
            headers = {"Authorization": "Bearer sesame"}
            transport = streamable_http_client(
                f"{url}/mcp", http_client=httpx2.AsyncClient(headers=headers)
            )
            async with Client(transport) as client:
                found = await find(client, "charge a customer's card")
        finally:
            process.terminate()
            process.wait(timeout=DEADLINE)
    health, ready, mcp, wrong = anonymous
    for answer in anonymous:
        assert SECRET not in answer.text, (answer.request.url, answer.text)
        assert "status 3" not in answer.text, (answer.request.url, answer.text)
    assert health.status_code == 200
    assert health.json() == {"status": "ok"}, "liveness only: nothing about the upstreams"
    assert ready.status_code == 503
    assert ready.json()["upstreams"] == {
        "billing": {"state": "down", "transport": "stdio", "tools": None}
    }
    assert ready.json()["database"] == "ok"
    assert wrong.json() == ready.json()
    assert mcp.status_code == 401

    assert told.status_code == 503
    error = told.json()["upstreams"]["billing"]["error"]
    assert error.startswith("its process exited with status 3 (its last stderr lines: API key")
    assert SECRET in error
    assert "restarting it in" in error
    (unavailable,) = found["unavailable"]
    assert SECRET in unavailable["error"]
    assert SECRET in stderr.read_text(), "the gateway's own log has the server's stderr"
