"""Postgres restarted under a running process, with nothing asked while it was down.

Every connection the pools held was closed by the old server. The first selection after the
restart narrows, and a registration right after it is stored and indexed: in ``toolret serve``
as its own process, and with the library client in process. (The worker: its next job costs no
try, ``tests/test_worker_outages.py``.) Where the database really cannot be reached, a
registration is refused with a 503, never answered with ``indexing.state: "failed"``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.support.fixtures_pg import PgServer
from tests.support.http_serving import serving
from tests.support.serve_process import DEADLINE, start_serve, stop_serve
from tests.support.service_catalog import MESSAGES, registration
from tests.support.tools import crm_catalog
from toolret import Catalog, Mode, ToolRetrievalClient
from toolret.embedders._e5 import BundledE5Embedder
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings

BUDGET = 10.0
"""Seconds: what is tested is the mode, not the speed, on a shared machine."""


def _restart(pg: PgServer) -> None:
    pg.stop()  # fast shutdown: every session is closed by the server
    pg.start()


def test_toolret_serve_narrows_and_registers_on_the_first_request_after_a_restart(
    private_pg: Callable[[], PgServer], tmp_path: Path
) -> None:
    pg = private_pg()
    stderr = tmp_path / "stderr.txt"
    # Re-read the registered catalog on every request: the look-up's pool is tested too.
    url, process = start_serve(
        pg.url(), stderr, TOOLRET_SERVE_RECHECK_SECONDS="0", TOOLRET_TIME_BUDGET_MS="10000"
    )
    try:
        with httpx.Client(base_url=url, timeout=DEADLINE) as http:
            assert http.post("/v1/catalogs/crm", json=registration()).status_code == 201
            before = http.post("/v1/select", json={"catalog": "crm", "message": MESSAGES[0]})
            assert before.json()["mode"] == "narrowed", before.text

            _restart(pg)
            first = http.post("/v1/select", json={"catalog": "crm", "message": MESSAGES[1]})
            assert (first.json()["mode"], first.json()["reason"]) == ("narrowed", None), (
                first.text,
                stderr.read_text(),
            )

            _restart(pg)
            # another catalog: stored by the registry's pool, indexed by the client's
            registered = http.post("/v1/catalogs/small", json=registration(tools=18))
            assert registered.status_code == 201, (registered.text, stderr.read_text())
            assert registered.json()["indexing"] == {"state": "indexed", "detail": None}
            small = http.post("/v1/select", json={"catalog": "small", "message": MESSAGES[2]})
            assert (small.json()["mode"], small.json()["reason"]) == ("narrowed", None)
    finally:
        assert stop_serve(process) == 0
    assert "store_error" not in stderr.read_text()


async def test_the_library_client_narrows_and_indexes_on_the_first_call_after_a_restart(
    private_pg: Callable[[], PgServer],
) -> None:
    pg = private_pg()
    catalog = crm_catalog()
    async with ToolRetrievalClient(
        pg.url(), embedder=BundledE5Embedder(), reuse=0, k=4, time_budget=BUDGET
    ) as client:
        await client.index(catalog)
        assert (await client.select(catalog, MESSAGES[0])).mode is Mode.NARROWED

        await asyncio.to_thread(_restart, pg)
        first = await client.select(catalog, MESSAGES[1])
        assert (first.mode, first.reason) == (Mode.NARROWED, None)

        await asyncio.to_thread(_restart, pg)
        smaller = Catalog(t for t in catalog.tools if t is not catalog.candidates[-1])
        report = await client.index(smaller)  # raises if it met a closed connection
        assert report.published
        assert (await client.select(smaller, MESSAGES[2])).mode is Mode.NARROWED


async def test_a_registration_the_database_cannot_index_is_a_503_not_a_failed_state(
    database_url: str, private_pg: Callable[[], PgServer]
) -> None:
    """The catalog row is stored (its database is up) but the vectors' database is down."""
    vectors = private_pg()
    client = ToolRetrievalClient(vectors.url(), embedder=BundledE5Embedder(), time_budget=BUDGET)
    app = create_app(ServiceSettings(), client=client, database_url=database_url)
    async with (
        client,
        serving(app) as server,
        httpx.AsyncClient(base_url=server.url, timeout=DEADLINE) as http,
    ):
        await asyncio.to_thread(vectors.stop)
        refused = await http.post("/v1/catalogs/crm", json=registration())
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"] == "database_unavailable"
        assert refused.headers["retry-after"] == "1"

        await asyncio.to_thread(vectors.start)
        again = await http.post("/v1/catalogs/crm", json=registration())
        assert again.status_code == 200, again.text  # stored the first time: not created
        assert again.json()["indexing"] == {"state": "indexed", "detail": None}
