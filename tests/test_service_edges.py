"""The service's edges: many first callers at once, every error in one JSON shape, strict types,
a port in use, what it logs through an outage, and nothing of other libraries' debugging."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from tests.support.fixtures_pg import PgServer
from tests.support.http_serving import serving
from tests.support.serve_process import DEADLINE, TOOLRET, start_serve, stop_serve
from tests.support.service_catalog import MESSAGES, registration
from tests.test_service import register, service
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings

CALLERS = 16
SELECT = {"catalog": "crm", "message": MESSAGES[0], "k": 5}


async def test_concurrent_first_requests_share_one_catalog_build_and_none_is_a_5xx(
    database_url: str,
) -> None:
    async with service(database_url) as (_, http):
        await register(http)
    for _ in range(3):  # each round a process that has built nothing, at the default budget
        client = ToolRetrievalClient(database_url)
        app = create_app(ServiceSettings(), client=client)
        bodies = [{**SELECT, "message": MESSAGES[i % len(MESSAGES)]} for i in range(CALLERS)]
        async with (
            client,
            serving(app) as server,
            httpx.AsyncClient(base_url=server.url, timeout=DEADLINE) as http,
        ):
            answers = await asyncio.gather(*(http.post("/v1/select", json=b) for b in bodies))
        assert [a.status_code for a in answers] == [200] * CALLERS, [a.text for a in answers]


def _shape(response: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    assert response.headers["content-type"].startswith("application/json")
    assert set(body) <= {"error", "detail", "field", "errors"}, body
    assert isinstance(body["error"], str)
    assert isinstance(body["detail"], str)
    return body


async def test_every_error_is_json_and_types_are_strict(database_url: str) -> None:
    async with service(database_url) as (_, http):
        await register(http)
        missing = await http.get("/v1/nowhere")
        assert (missing.status_code, _shape(missing)["error"]) == (404, "not_found")
        wrong_method = await http.get("/v1/select")
        assert (wrong_method.status_code, _shape(wrong_method)["error"]) == (
            405,
            "method_not_allowed",
        )
        assert "POST" in wrong_method.headers["allow"]
        assert "POST" in _shape(wrong_method)["detail"]

        for field, value in [("k", "5"), ("k", 5.0), ("k", True), ("resume", "yes")]:
            loose = await http.post("/v1/select", json={**SELECT, field: value})
            assert loose.status_code == 422, (field, value, loose.text)
            assert _shape(loose)["field"] == field
        loose_limit = await http.post(
            "/v1/find_tools", json={"catalog": "crm", "query": "x", "limit": "2"}
        )
        assert (loose_limit.status_code, _shape(loose_limit)["field"]) == (422, "limit")
        assert (await http.post("/v1/select", json={**SELECT, "k": 5})).status_code == 200

        # A stored row this version cannot read (written by hand, or by something else): the
        # service fails on it, in the same shape, saying nothing of the cause.
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute(
                "INSERT INTO toolret_catalogs (name, format, source, content_hash) "
                "VALUES ('broken', 'openai', '{\"format\": \"openai\", \"bogus\": 1}', 'x')"
            )
        finally:
            await connection.close()
        failed = await http.post("/v1/select", json={**SELECT, "catalog": "broken"})
        assert (failed.status_code, _shape(failed)["error"]) == (500, "internal_error")
        assert "bogus" not in failed.text


def test_a_port_in_use_is_one_line_and_exit_1(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(
            [TOOLRET, "serve", "--port", str(port)],
            env={"PATH": "/usr/bin:/bin", "DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: port {port} is already in use"), result.stderr
    assert "Traceback" not in result.stderr
    assert "toolret serve on" not in result.stderr


def test_an_outage_is_logged_once_and_the_return_to_narrowing_once(
    private_pg: Callable[[], PgServer], tmp_path: Path
) -> None:
    """At the default level: one warning when selections fall open, one line when they narrow
    again, and no DEBUG line from any library."""
    pg = private_pg()
    stderr = tmp_path / "stderr.txt"
    url, process = start_serve(pg.url(), stderr)
    try:
        with httpx.Client(base_url=url, timeout=DEADLINE) as http:
            assert http.post("/v1/catalogs/crm", json=registration()).status_code == 201
            assert http.post("/v1/select", json=SELECT).json()["mode"] == "narrowed"
            pg.stop()
            for message in MESSAGES[1:4]:  # not asked before: never answered from reuse
                down = http.post("/v1/select", json={**SELECT, "message": message}).json()
                assert (down["mode"], down["reason"]) == ("full", "store_error"), down
            pg.start()
            deadline = time.monotonic() + DEADLINE
            for attempt in range(1000):
                body = {**SELECT, "message": f"{MESSAGES[4]} ({attempt})"}
                if http.post("/v1/select", json=body).json()["mode"] == "narrowed":
                    break
                assert time.monotonic() < deadline, "never narrowed again"
            for message in MESSAGES[:3]:
                assert (
                    http.post("/v1/select", json={**SELECT, "message": message + "!"}).json()[
                        "mode"
                    ]
                    == "narrowed"
                )
    finally:
        assert stop_serve(process) == 0
    log = stderr.read_text()
    fell_open = [
        line for line in log.splitlines() if "sending the full roster (store_error)" in line
    ]
    back = [line for line in log.splitlines() if "selections narrow again" in line]
    assert len(fell_open) == 1, log
    assert fell_open[0].startswith("WARNING toolret.selection")
    assert back == [
        "INFO toolret.selection: toolret: selections narrow again (after store_error)"
    ], log
    assert not re.search(r"^DEBUG|DEBUG:", log, re.MULTILINE), log
