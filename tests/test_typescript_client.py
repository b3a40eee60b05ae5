"""The TypeScript client (``clients/typescript``) against a live ``toolret serve``: node's test
runner drives it on the real Postgres and the bundled model; this side starts the service,
stops it, slows it down for real (its catalog table locked), and checks the client's answers
against ``client.select`` in Python."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from tests.support.http_serving import Serving, serving
from tests.support.locks import locked_table
from tests.support.service_catalog import MESSAGES, registration
from tests.support.typescript import PACKAGE, node_run, node_script, node_tests
from tests.support.typescript_parity import REGISTRATIONS, TRANSCRIPTS, python_reading
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration
from toolret.service._settings import ServiceSettings

TOKEN = "tok-typescript"
LOADED = 10.0
"""The services' time budget (s): what they answer is tested here, not how fast."""


@asynccontextmanager
async def service(database_url: str, **settings: float) -> AsyncIterator[Serving]:
    """The service with one token, allowed the catalogs these tests register."""
    client = ToolRetrievalClient(database_url, time_budget=LOADED)
    tokens = {TOKEN: ("crm", "crm-mcp", "crm-broken", "nowhere")}
    app = create_app(ServiceSettings(tokens=tokens, **settings), client=client)
    async with client, serving(app) as server:
        yield server


def environment(server: Serving, tmp_path: Path, **extra: str) -> dict[str, str]:
    body = tmp_path / "registration.json"
    body.write_text(json.dumps(registration()), encoding="utf-8")
    return {
        "TOOLRET_URL": server.url,
        "TOOLRET_TOKEN": TOKEN,
        "TOOLRET_REGISTRATION": str(body),
        **extra,
    }


async def test_the_client_registers_selects_finds_and_refuses_against_the_service(
    database_url: str, tmp_path: Path
) -> None:
    (tmp_path / "messages.json").write_text(json.dumps(MESSAGES), encoding="utf-8")
    out = tmp_path / "selections.json"
    async with (
        service(database_url) as server,
        ToolRetrievalClient(database_url, time_budget=LOADED) as direct,
    ):
        env = environment(
            server, tmp_path, TOOLRET_MESSAGES=str(tmp_path / "messages.json"), TOOLRET_OUT=str(out)
        )
        await node_tests("service", env)
        catalog = build_catalog(CatalogRegistration.model_validate(registration()))
        selections = json.loads(out.read_text(encoding="utf-8"))
        assert len(selections) == 2 * len(MESSAGES)
        for chosen in selections:
            selection = await direct.select(catalog, chosen["message"], k=chosen["k"])
            assert selection.mode.value == "narrowed"
            assert chosen["selection"] == {
                "names": selection.names,
                "mode": "narrowed",
                "reason": None,
                "unranked": [],
                "schema_tokens": selection.schema_tokens,
                "roster_tokens": selection.roster_tokens,
            }, chosen["message"]


async def test_the_client_falls_open_when_the_service_is_stopped_or_slow(
    database_url: str, tmp_path: Path
) -> None:
    # Every request reads the catalog's row (recheck 0), so a lock on the table holds each one
    # for a quarter of the time budget: a service that answers slowly, for real.
    async with service(database_url, recheck_seconds=0) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            registered = await http.post("/v1/catalogs/crm", json=registration(), headers=headers)
            assert registered.status_code in (200, 201), registered.text
        env = environment(server, tmp_path)
        async with locked_table(database_url, "toolret_catalogs"):
            await node_tests("failopen", {**env, "TOOLRET_FAILURE": "slow"})
        await server.stop()
        await node_tests("failopen", {**env, "TOOLRET_FAILURE": "stopped"})


async def test_the_wire_types_are_generated_from_the_live_openapi_document(
    database_url: str, tmp_path: Path
) -> None:
    async with service(database_url) as server, httpx.AsyncClient(base_url=server.url) as http:
        document = (await http.get("/openapi.json")).json()
    (tmp_path / "openapi.json").write_text(json.dumps(document), encoding="utf-8")
    generated = tmp_path / "openapi.ts"
    script = PACKAGE / "scripts" / "generate.mjs"
    await node_run(script, str(tmp_path / "openapi.json"), str(generated))
    checked_in = (PACKAGE / "src" / "openapi.ts").read_text(encoding="utf-8")
    assert generated.read_text(encoding="utf-8") == checked_in, (
        "clients/typescript/src/openapi.ts has drifted from the service's /openapi.json: "
        "regenerate it with `node scripts/generate.mjs <url>/openapi.json` in clients/typescript"
    )


async def test_definitions_transcripts_and_catalog_names_read_as_in_python() -> None:
    read = await node_script("parity", {"transcripts": TRANSCRIPTS, "registrations": REGISTRATIONS})
    expected = python_reading()
    assert read["discovered"] == expected["discovered"]
    assert read["latest"] == expected["latest"]
    assert read["catalogs"] == expected["catalogs"]
    for shape, definition in expected["definitions"].items():
        assert read["definitions"][shape] == definition, shape


async def test_the_client_refuses_bad_options_when_it_is_built() -> None:
    output = await node_tests("options", {})
    assert "ℹ fail 0" in output
