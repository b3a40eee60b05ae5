"""``toolret serve``: the service under uvicorn on a free port, driven with httpx, on the real
Postgres, Redis and bundled model."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from arq.connections import create_pool
from arq.worker import Worker
from google.genai import types as genai_types

from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures_pg import PgServer
from tests.support.http_serving import Serving, serving
from tests.support.service_catalog import CORE, MESSAGES, registration
from toolret._settings import Settings
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._openai import OpenAIEmbedder
from toolret.feedback._sender import FEEDBACK_FUNCTION
from toolret.indexing._queue import QUEUE_NAME, redis_settings
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._find_tools import CAPABILITIES_SCHEMA, find_tools_definition
from toolret.service._app import create_app
from toolret.service._catalogs import WRITER_ROLE, build_catalog
from toolret.service._models import CatalogRegistration
from toolret.service._settings import ServiceSettings
from toolret.store._schema import READER_ROLE
from toolret.store._vector_store import VectorStore

LOADED = 10.0
"""The time budget (s) of the services under test: what they answer is tested here, not how
fast, and the machine is shared (a catalog look-up past a quarter of it uses the last built)."""


@asynccontextmanager
async def service(
    database_url: str,
    *,
    tokens: dict[str, tuple[str, ...]] | None = None,
    redis_url: str | None = None,
    **settings: Any,
) -> AsyncIterator[tuple[Serving, httpx.AsyncClient]]:
    """The service on ``database_url``, and an httpx client on its address."""
    client = ToolRetrievalClient(database_url, redis_url=redis_url, time_budget=LOADED)
    app = create_app(ServiceSettings(tokens=tokens or {}, **settings), client=client)
    async with (
        client,
        serving(app) as server,
        httpx.AsyncClient(base_url=server.url, timeout=120) as http,
    ):
        yield server, http


async def register(http: httpx.AsyncClient, name: str = "crm", **headers: str) -> dict[str, Any]:
    response = await http.post(f"/v1/catalogs/{name}", json=registration(), headers=headers)
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


def registered_catalog() -> Any:
    return build_catalog(CatalogRegistration.model_validate(registration()))


async def test_a_selection_through_the_service_equals_client_select(database_url: str) -> None:
    async with (
        service(database_url) as (_, http),
        ToolRetrievalClient(database_url, time_budget=LOADED) as direct,
    ):
        registered = await register(http)
        assert registered["created"] is True
        assert registered["indexing"] == {"state": "indexed", "detail": None}
        assert (registered["tools"], registered["core"]) == (20, 3)
        catalog = registered_catalog()
        for message in MESSAGES:
            for k in (None, 5):
                body: dict[str, Any] = {"catalog": "crm", "message": message}
                if k is not None:
                    body["k"] = k
                served = (await http.post("/v1/select", json=body)).json()
                selection = await direct.select(catalog, message, k=k)
                assert selection.mode.value == "narrowed"
                assert served == {
                    "names": selection.names,
                    "mode": "narrowed",
                    "reason": None,
                    "unranked": [],
                    "schema_tokens": selection.schema_tokens,
                    "roster_tokens": selection.roster_tokens,
                }
                assert set(CORE) <= set(served["names"])


async def test_find_tools_and_a_cache_stable_list_through_the_service(database_url: str) -> None:
    async with (
        service(database_url) as (_, http),
        ToolRetrievalClient(database_url, time_budget=LOADED) as direct,
    ):
        await register(http)
        catalog = registered_catalog()
        query = "remove a field from an object"
        found = (
            await http.post(
                "/v1/find_tools", json={"catalog": "crm", "query": query, "bound": ["add_field"]}
            )
        ).json()
        expected = await direct.find_tools(catalog, query, bound=["add_field"])
        tools = [{"name": t.name, "description": t.description} for t in expected]
        assert found == {
            "results": [{"capability": query, "tools": tools, "reason": None}],
            "tools": tools,
            "reason": None,
        }
        assert "add_field" not in [tool["name"] for tool in found["tools"]]
        blank = (await http.post("/v1/find_tools", json={"catalog": "crm", "query": " "})).json()
        assert blank == {"results": [], "tools": [], "reason": "blank_query"}
        asked = [query, "send an email to the contact"]
        both = (
            await http.post("/v1/find_tools", json={"catalog": "crm", "capabilities": asked})
        ).json()
        assert [r["capability"] for r in both["results"]] == asked
        names = [tool["name"] for tool in both["tools"]]
        assert len(names) == len(set(names)) == 10
        best = (await direct.find_tools(catalog, query))[0].name
        assert both["results"][0]["tools"][0]["name"] == best
        too_many = await http.post(
            "/v1/find_tools", json={"catalog": "crm", "capabilities": ["a"] * 6}
        )
        assert too_many.status_code == 422
        definition = (await http.get("/v1/catalogs/crm/find_tools?shape=anthropic")).json()
        assert definition == {"definition": find_tools_definition("anthropic", catalog)}
        gemini = (await http.get("/v1/catalogs/crm/find_tools?shape=gemini")).json()
        assert gemini["definition"] == _wire_gemini(find_tools_definition("gemini", catalog))
        declaration = genai_types.FunctionDeclaration.model_validate(gemini["definition"])
        assert declaration.parameters_json_schema == CAPABILITIES_SCHEMA
        wrong = await http.get("/v1/catalogs/crm/find_tools?shape=cohere")
        assert wrong.status_code == 422

        start = {"catalog": "crm", "message": MESSAGES[0], "k": 4, "bound": []}
        first = (await http.post("/v1/select", json=start)).json()
        assert first["names"][:3] == CORE, "a cache-stable list starts with the core tools"
        second = (
            await http.post(
                "/v1/select",
                json={"catalog": "crm", "message": MESSAGES[2], "k": 4, "bound": first["names"]},
            )
        ).json()
        assert second["names"][: len(first["names"])] == first["names"]
        assert len(second["names"]) > len(first["names"])


async def test_resume_and_an_unindexed_catalog_answer_the_full_roster(database_url: str) -> None:
    async with service(database_url) as (_, http):
        await register(http)
        resumed = (
            await http.post("/v1/select", json={"catalog": "crm", "message": "x", "resume": True})
        ).json()
        assert (resumed["mode"], resumed["reason"], len(resumed["names"])) == ("full", "resume", 20)
        changed = registration()
        changed["tools"][5]["function"]["description"] += " Now also for archived records."
        response = await http.post("/v1/catalogs/crm", json=changed)
        assert response.status_code == 200
        assert response.json()["created"] is False
        selected = (
            await http.post("/v1/select", json={"catalog": "crm", "message": MESSAGES[0]})
        ).json()
        assert selected["mode"] == "narrowed"  # indexed inline: only the edited tool was embedded


async def test_tokens_a_missing_one_a_wrong_one_and_another_tenants_catalog(
    database_url: str,
) -> None:
    tokens = {"tok-acme": ("crm",), "tok-globex": ("globex",), "tok-ops": ("*",)}
    async with service(database_url, tokens=tokens) as (_, http):
        await register(http, "crm", authorization="Bearer tok-acme")
        select = {"catalog": "crm", "message": MESSAGES[0]}

        missing = await http.post("/v1/select", json=select)
        assert missing.status_code == 401
        assert missing.json()["error"] == "unauthorized"
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = await http.post("/v1/select", json=select, headers=bearer("tok-nobody"))
        assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_token")

        other = await http.post("/v1/select", json=select, headers=bearer("tok-globex"))
        absent = await http.post(
            "/v1/select", json={**select, "catalog": "initech"}, headers=bearer("tok-globex")
        )
        assert other.status_code == absent.status_code == 403
        assert (
            other.json()
            == absent.json()
            == {
                "error": "forbidden",
                "detail": "this token may not use that catalog",
                "field": "catalog",
            }
        ), "a refusal must not tell an existing catalog from an absent one"
        stolen = await http.post(
            "/v1/catalogs/crm", json=registration(), headers=bearer("tok-globex")
        )
        assert stolen.status_code == 403

        own = await http.post("/v1/select", json=select, headers=bearer("tok-acme"))
        assert own.status_code == 200
        assert own.json()["mode"] == "narrowed"
        ops = await http.post("/v1/select", json=select, headers=bearer("tok-ops"))
        assert ops.json() == own.json()
        unknown = await http.post(
            "/v1/select", json={**select, "catalog": "initech"}, headers=bearer("tok-ops")
        )
        assert (unknown.status_code, unknown.json()["error"]) == (404, "unknown_catalog")
        health = await http.get("/healthz")
        assert health.json() == {"status": "ok"}, "probes need no token"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def test_bad_requests_are_4xx_naming_the_field(database_url: str) -> None:
    async with service(database_url, max_body_bytes=4096) as (_, http):
        big = await http.post("/v1/select", json={"catalog": "crm", "message": "x" * 5000})
        assert (big.status_code, big.json()["error"], big.json()["field"]) == (
            413,
            "body_too_large",
            "body",
        )

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: cut off while read
            yield b'{"catalog": "crm", "message": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        streamed = await http.post(
            "/v1/select", content=chunks(), headers={"content-type": "application/json"}
        )
        assert streamed.status_code == 413

        text = await http.post("/v1/select", content=b"catalog=crm", headers=form())
        assert (text.status_code, text.json()["field"]) == (415, "Content-Type")
        broken = await http.post("/v1/select", content=b'{"catalog": "crm",', headers=json_type())
        assert (broken.status_code, broken.json()["error"]) == (400, "malformed_json")
        missing = await http.post("/v1/select", json={"catalog": "crm"})
        assert (missing.status_code, missing.json()["field"]) == (422, "message")
        typo = await http.post("/v1/select", json={"catalog": "crm", "mesage": "hi"})
        assert {e["field"] for e in typo.json()["errors"]} == {"message", "mesage"}
        bad_k = await http.post("/v1/select", json={"catalog": "crm", "message": "m", "k": 0})
        assert bad_k.json()["field"] == "k"
        unknown = await http.post("/v1/select", json={"catalog": "nope", "message": "hi"})
        assert (unknown.status_code, unknown.json()["error"]) == (404, "unknown_catalog")

    async with service(database_url) as (_, http):
        tools = registration()["tools"]
        nameless = [tools[0], {"type": "function", "function": {"description": "no name"}}]
        bad_tool = await http.post("/v1/catalogs/crm", json={"format": "openai", "tools": nameless})
        assert (bad_tool.status_code, bad_tool.json()["error"]) == (422, "invalid_catalog")
        assert bad_tool.json()["field"] == "tools"
        assert "tools[1]" in bad_tool.json()["detail"]
        bad_core = await http.post(
            "/v1/catalogs/crm", json={"format": "openai", "tools": tools, "core": ["nope"]}
        )
        assert (bad_core.status_code, bad_core.json()["field"]) == (422, "core")
        no_servers = await http.post("/v1/catalogs/crm", json={"format": "mcp", "tools": tools})
        assert (no_servers.status_code, no_servers.json()["field"]) == (422, "servers")
        bad_name = await http.post("/v1/catalogs/-crm", json=registration())
        assert (bad_name.status_code, bad_name.json()["field"]) == (422, "name")
        not_stored = await http.post("/v1/select", json={"catalog": "crm", "message": "m"})
        assert not_stored.status_code == 404, "a catalog that cannot be built is never stored"


def form() -> dict[str, str]:
    return {"content-type": "application/x-www-form-urlencoded"}


def json_type() -> dict[str, str]:
    return {"content-type": "application/json"}


SELECT = {"catalog": "crm", "message": MESSAGES[0]}


async def test_postgres_down_answers_200_full_and_narrows_again_once_it_is_back(
    private_pg: Callable[[], PgServer],
) -> None:
    pg = private_pg()
    async with service(pg.url()) as (_, http):
        await register(http)
        assert (await http.post("/v1/select", json=SELECT)).json()["mode"] == "narrowed"
        await asyncio.to_thread(pg.stop)

        # messages not asked before: an asked one is answered from the selection kept (reuse)
        down = await http.post("/v1/select", json={**SELECT, "message": MESSAGES[1]})
        assert down.status_code == 200
        assert (down.json()["mode"], down.json()["reason"]) == ("full", "store_error")
        assert len(down.json()["names"]) == 20
        found = await http.post("/v1/find_tools", json={"catalog": "crm", "query": "add a field"})
        assert found.status_code == 200
        assert found.json() == {
            "results": [{"capability": "add a field", "tools": [], "reason": "store_error"}],
            "tools": [],
            "reason": "store_error",
        }
        ready = await http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["ready"] is False

        async with service(pg.url()) as (_, fresh):  # a process that never built the catalog
            unseen = await fresh.post("/v1/select", json=SELECT)
            assert (unseen.status_code, unseen.json()["error"]) == (503, "catalog_unavailable")
            assert unseen.headers["retry-after"] == "1"

        await asyncio.to_thread(pg.start)
        # Postgres is known to be down (its breaker is open): a request starts a probe, and the
        # probe's answer closes it; requests keep coming, as they would, until one narrows
        async with asyncio.timeout(60):
            while True:
                back = await http.post("/v1/select", json={**SELECT, "message": MESSAGES[2]})
                assert back.status_code == 200
                if back.json()["mode"] == "narrowed":
                    break
                assert back.json()["reason"] == "store_error"
                await asyncio.sleep(0.05)  # the pace of traffic
        assert (await http.get("/readyz")).json()["ready"] is True


async def test_a_catalog_replaced_through_one_process_is_served_by_another(
    database_url: str,
) -> None:
    body = {**SELECT, "k": 4}
    async with (
        service(database_url) as (_, first),
        service(database_url, recheck_seconds=0) as (_, second),  # re-read on every request
    ):
        await register(first)
        before = (await second.post("/v1/select", json=body)).json()
        assert len(before["names"]) == 3 + 4
        replaced = await first.post("/v1/catalogs/crm", json=registration(core=["find_records"]))
        assert replaced.json()["indexing"]["state"] == "current", "core is not in the corpus"
        after = (await second.post("/v1/select", json=body)).json()
        assert after["mode"] == "narrowed"
        assert len(after["names"]) == 1 + 4
        assert after["names"][0] == "find_records"


async def test_with_a_worker_a_registration_is_queued_and_the_worker_indexes_it(
    database_url: str, redis_url: str, store: VectorStore, worker: Callable[..., Worker]
) -> None:
    async with service(database_url, redis_url=redis_url) as (_, http):
        registered = await register(http)
        assert registered["indexing"] == {"state": "queued", "detail": None}
        cold = (await http.post("/v1/select", json=SELECT)).json()
        assert (cold["mode"], cold["reason"]) == ("full", "not_indexed")

        ctx = {
            "store": store,
            "embedder": BundledE5Embedder(),
            "settings": Settings(TOOLRET_CATALOGS=[]),
        }
        assert await worker(ctx=ctx).run_check() >= 1
        warm = (await http.post("/v1/select", json=SELECT)).json()
        assert warm["mode"] == "narrowed"


async def test_feedback_is_queued_and_a_graceful_stop_flushes_every_report(
    database_url: str, redis_url: str
) -> None:
    reports = 24
    async with service(database_url, redis_url=redis_url) as (server, http):
        await register(http)
        bodies = [
            {
                "catalog": "crm",
                "message": f"{MESSAGES[i % len(MESSAGES)]} ({i})",
                "bound": [*CORE, "create_record", "update_record"],
                "called": ["delete_record"],
            }
            for i in range(reports)
        ]
        answers = await asyncio.gather(*(http.post("/v1/feedback", json=b) for b in bodies))
        assert [a.json() for a in answers] == [{"queued": True, "reason": None}] * reports
        full = await http.post("/v1/feedback", json={**bodies[0], "mode": "full"})
        assert full.json() == {"queued": False, "reason": "not_narrowed"}
        neither = {key: value for key, value in bodies[0].items() if key != "called"}
        assert (await http.post("/v1/feedback", json=neither)).json()["field"] == "called"
        await server.stop()  # as on SIGTERM: the lifespan flushes what is still buffered

        pool = await create_pool(redis_settings(redis_url))  # before the client is closed
        try:
            jobs = await pool.queued_jobs(queue_name=QUEUE_NAME)
        finally:
            await pool.aclose()
    assert sum(job.function == FEEDBACK_FUNCTION for job in jobs) == reports


async def test_the_read_only_role_selects_and_the_catalog_writer_registers(
    pg_server: PgServer, database_url: str
) -> None:
    dbname = database_url.split("/")[3].split("?")[0]
    suffix = uuid.uuid4().hex[:8]
    reader, writer = f"svc_reader_{suffix}", f"svc_writer_{suffix}"
    await asyncio.to_thread(pg_server.execute, f"CREATE ROLE {reader} LOGIN IN ROLE {READER_ROLE}")
    await asyncio.to_thread(pg_server.execute, f"CREATE ROLE {writer} LOGIN IN ROLE {WRITER_ROLE}")
    try:
        async with service(database_url) as (_, owner):
            await register(owner)
        async with service(pg_server.url(dbname, user=reader)) as (_, http):
            selected = await http.post("/v1/select", json=SELECT)
            assert selected.json()["mode"] == "narrowed"
            refused = await http.post("/v1/catalogs/crm2", json=registration(tools=17))
            assert (refused.status_code, refused.json()["error"]) == (403, "read_only")
            assert WRITER_ROLE in refused.json()["detail"]
        unseen = registration(tools=17)  # texts no process has embedded yet
        for tool in unseen["tools"]:
            tool["function"]["description"] += " (Second workspace.)"
        async with service(pg_server.url(dbname, user=writer)) as (_, http):
            stored = await http.post("/v1/catalogs/crm2", json=unseen)
            assert stored.status_code == 201
            assert stored.json()["indexing"]["state"] == "failed"
            assert "owner" in stored.json()["indexing"]["detail"]
            cold = (await http.post("/v1/select", json={**SELECT, "catalog": "crm2"})).json()
            assert (cold["mode"], cold["reason"]) == ("full", "not_indexed")
    finally:
        for role in (reader, writer):
            await asyncio.to_thread(pg_server.execute, f"DROP OWNED BY {role}", dbname)
            await asyncio.to_thread(pg_server.execute, f"DROP ROLE {role}")


async def ready_once_warm(http: httpx.AsyncClient) -> httpx.Response:
    """``/readyz`` once the embedder's warm-up is over (polled, with a deadline)."""
    deadline = time.monotonic() + LOADED
    while (answer := await http.get("/readyz")).json()["embedder"] == "warming":
        assert time.monotonic() < deadline, "the warm-up never ended"
        await asyncio.sleep(0.05)  # polling a condition with a deadline
    return answer


async def test_readyz_says_whether_the_schema_is_current(
    database_url: str, empty_database_url: str
) -> None:
    async with service(database_url) as (_, http):
        ready = await ready_once_warm(http)
        assert ready.status_code == 200
        assert ready.json()["embedder"] == "warm"
        assert ready.json()["ready"] is True
        assert ready.json()["schema_revision"] == ready.json()["expected_revision"]
        assert (await http.get("/metrics")).status_code == 404, "no Prometheus registry given"
    async with service(empty_database_url) as (_, http):
        unmigrated = await http.get("/readyz")
        assert unmigrated.status_code == 503
        assert unmigrated.json()["database"] == "ok"
        assert unmigrated.json()["schema_revision"] is None


async def test_readyz_is_503_while_the_embedder_warms_up_and_200_once_it_answers(
    database_url: str,
) -> None:
    """A starting process is not ready while its embedder's warm-up runs: a selection then
    waits for it and may send every tool, so a load balancer (the compose file's health check)
    sends it nothing yet; its liveness answers all along."""
    with FakeOpenAI() as server:
        server.hold()
        embedder = OpenAIEmbedder("warming-embedder", 64, base_url=f"{server.url}/v1")
        client = ToolRetrievalClient(database_url, embedder=embedder, time_budget=LOADED)
        app = create_app(ServiceSettings(), client=client)
        async with (
            client,
            serving(app) as served,
            httpx.AsyncClient(base_url=served.url, timeout=120) as http,
        ):
            assert await asyncio.to_thread(server.wait_in_flight, 1), "no warm-up request"
            warming = await http.get("/readyz")
            assert warming.status_code == 503, warming.text
            assert (warming.json()["embedder"], warming.json()["database"]) == ("warming", "ok")
            assert (await http.get("/healthz")).status_code == 200
            server.release()
            ready = await ready_once_warm(http)
            assert ready.status_code == 200, ready.text
            assert ready.json()["embedder"] == "warm"
        await embedder.aclose()


def _wire_gemini(definition: dict[str, Any]) -> dict[str, Any]:
    """A Gemini declaration as the service sends it: the schema under the JSON wire's name,
    ``parametersJsonSchema``, the one the JavaScript and Go SDKs type (Python's reads both)."""
    schema = definition.pop("parameters_json_schema")
    return {**definition, "parametersJsonSchema": schema}
