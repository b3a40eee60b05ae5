"""The console (``/console``) in process: each page's JSON twin equals the API's answer, the HTML
shows what the JSON says, and a token sees only its catalogs. On the real Postgres and model;
the browser tests (tests/browser) drive the same pages in Chromium."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from tests.support.http_serving import serving
from tests.support.reported import report_misses
from tests.support.serve_process import free_port
from tests.support.service_catalog import registration
from toolret import OpenAIEmbedder
from toolret.console._render import score
from toolret.embedders._base import Embedder
from toolret.errors import EmbedderError
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration
from toolret.service._settings import ServiceSettings

LOADED = 10.0
ARABIC = "احذف جهة الاتصال المكررة"
CHINESE = "把上个季度成交的所有交易导出到文件"


@asynccontextmanager
async def console(
    database_url: str,
    tokens: dict[str, tuple[str, ...]] | None = None,
    embedder: Embedder | None = None,
) -> AsyncIterator[tuple[httpx.AsyncClient, ToolRetrievalClient]]:
    client = ToolRetrievalClient(database_url, time_budget=LOADED, embedder=embedder)
    app = create_app(ServiceSettings(tokens=tokens or {}), client=client)
    async with (
        client,
        serving(app) as server,
        httpx.AsyncClient(base_url=server.url, timeout=120) as http,
    ):
        yield http, client


async def _register(http: httpx.AsyncClient, name: str, **headers: str) -> None:
    response = await http.post(f"/v1/catalogs/{name}", json=registration(), headers=headers)
    assert response.status_code in (200, 201), response.text


def _without_steps(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "explain": {**answer["explain"], "steps": None}}


async def test_explain_answers_the_selection_select_makes(database_url: str) -> None:
    async with console(database_url) as (http, client):
        await _register(http, "crm")
        catalog = build_catalog(CatalogRegistration.model_validate(registration()))
        for message in (ARABIC, CHINESE, "Delete the duplicate contact for Acme Corp"):
            plain = await http.post("/v1/select", json={"catalog": "crm", "message": message})
            why = await http.post(
                "/v1/select", json={"catalog": "crm", "message": message, "explain": True}
            )
            answer, explained = plain.json(), why.json()
            assert "explain" not in answer
            assert {k: v for k, v in explained.items() if k != "explain"} == answer
            x = explained["explain"]
            assert answer["mode"] == "narrowed"
            assert set(x["chosen"]) | set(x["core"]) == set(answer["names"])
            selection = await client.select(catalog, message)  # what the client ranks in process
            rows = {row["name"]: row for row in x["ranked"]}
            for name, value in selection.scores.items():
                assert abs(rows[name]["score"] - value) < 1e-6
                assert rows[name]["bound"] in ("ranked", "companion")
            assert all(abs(sum(r["signals"].values()) - r["score"]) < 1e-6 for r in x["ranked"])
            left_out = [r for r in x["ranked"] if not r["bound"]]
            assert left_out
            assert x["cut"]["first_out"] == max(r["score"] for r in left_out)
            assert x["cut"]["margin"] >= 0
            assert x["gate"]["language"] in ("ar", "zh", "en")
            assert "select" in x["steps"]


async def test_the_playground_shows_what_its_json_and_the_api_say(database_url: str) -> None:
    async with console(database_url) as (http, _):
        await _register(http, "crm")
        for message in (ARABIC, CHINESE):
            api = await http.post(
                "/v1/select", json={"catalog": "crm", "message": message, "explain": True}
            )
            params = {"catalog": "crm", "message": message, "capabilities": "export a file"}
            twin = (await http.get("/console/playground.json", params=params)).json()
            assert _without_steps(twin["select"]) == _without_steps(api.json())
            found = await http.post(
                "/v1/find_tools", json={"catalog": "crm", "capabilities": ["export a file"]}
            )
            assert twin["find_tools"] == found.json()
            page = (await http.get("/console/playground", params=params)).text
            x = twin["select"]["explain"]
            chosen = re.search(r"<ol id=\"chosen\">(.*?)</ol>", page, re.S)
            assert chosen is not None
            assert re.findall(r"<li>(.*?)</li>", chosen.group(1)) == x["chosen"]
            for row in x["ranked"]:
                cells = re.search(rf'<tr data-tool="{row["name"]}".*?</tr>', page, re.S)
                assert cells is not None
                assert score(row["score"]) in cells.group(0)
            assert f'id="margin" data-value="{x["cut"]["margin"]}"' in page
            assert 'dir="auto"' in page


async def test_catalogs_misses_and_health(database_url: str) -> None:
    async with console(database_url) as (http, client):
        await _register(http, "crm")
        await http.post("/v1/select", json={"catalog": "crm", "message": ARABIC})
        catalog = build_catalog(CatalogRegistration.model_validate(registration()))
        turns = [(ARABIC, "merge_records")]
        await report_misses(client.store, catalog, client.embedder, turns)
        listed = (await http.get("/console/catalogs.json")).json()
        assert listed["catalogs"] == ["crm"]
        detail = listed["detail"]
        assert len(detail["tools"]) == 20
        assert len(detail["core"]) == 3
        assert detail["index"]["dense"] == "published"
        assert all(f["fix"] for f in detail["lint"]["findings"])
        misses = (await http.get("/console/misses.json?catalog=crm")).json()["detail"]
        assert [t["tool"] for t in misses["tools"]] == ["merge_records"]
        assert misses["tools"][0]["bound_instead"] == ["delete_record"]
        assert misses["texts"] == []  # TOOLRET_FEEDBACK_TEXT is off: no text kept
        health = (await http.get("/console/health.json")).json()
        assert health["store"]["state"] == health["embedder"]["state"] == "ok"
        assert health["selections"] >= 1
        assert "narrowed" in health["outcomes"]
        for page in ("catalogs", "misses?catalog=crm", "health"):
            response = await http.get(f"/console/{page}")
            assert response.status_code == 200
            assert "<main" in response.text
        assert '<td class="num">1</td>' in (await http.get("/console/misses")).text


async def test_health_shows_a_dependency_known_down_without_calling_it(database_url: str) -> None:
    """An embedding server that refuses connections: the warm-up opens the embedder's breaker,
    and Health says so (what the selections' fall-open reason says) instead of waiting on it."""
    embedder = OpenAIEmbedder(
        "multilingual-e5-small-q4", base_url=f"http://127.0.0.1:{free_port()}/v1"
    )
    async with console(database_url, embedder=embedder) as (http, client):
        with pytest.raises(EmbedderError, match="cannot reach"):
            await client.warm_up()
        health = (await http.get("/console/health.json")).json()
        assert health["store"]["state"] == "ok"
        assert health["embedder"]["state"] in ("open", "half_open")
        assert "is down for" in health["embedder"]["detail"]
        assert health["embedder"]["ms"] is None
        page = (await http.get("/console/health")).text
        assert 'class="state-open"' in page or 'class="state-half_open"' in page
    await embedder.aclose()


async def test_a_token_sees_only_its_catalogs(database_url: str) -> None:
    tokens = {"crm-token": ("crm",), "ops-token": ("ops",)}
    async with console(database_url, tokens) as (http, _):
        for name, token in (("crm", "crm-token"), ("ops", "ops-token")):
            await _register(http, name, authorization=f"Bearer {token}")
        bearer = {"authorization": "Bearer crm-token"}
        assert (await http.get("/console/catalogs.json", headers=bearer)).json()["catalogs"] == [
            "crm"
        ]
        refused = await http.get("/console/playground.json?catalog=ops", headers=bearer)
        assert refused.status_code == 403
        assert (await http.get("/console/health.json")).status_code == 401
        to_login = await http.get("/console/playground")
        assert to_login.status_code == 303
        assert "/console/login" in to_login.headers["location"]
        signed = await http.post("/console/login", data={"token": "ops-token"})
        assert signed.status_code == 303
        cookie = signed.cookies.get("toolret_console_token")
        assert cookie == "ops-token"
        http.cookies.set("toolret_console_token", cookie or "")
        page = await http.get("/console/catalogs")
        assert ">ops</option>" in page.text
        assert ">crm</option>" not in page.text


async def test_a_small_catalog_passes_through_and_text_is_escaped(database_url: str) -> None:
    body = registration(tools=5, core=[])
    body["tools"][0]["function"]["description"] += " <script>alert(1)</script>"
    async with console(database_url) as (http, _):
        response = await http.post("/v1/catalogs/small", json=body)
        assert response.status_code == 201, response.text
        params = {"catalog": "small", "message": "<b>delete</b> a contact"}
        twin = (await http.get("/console/playground.json", params=params)).json()
        assert twin["select"]["mode"] == "passthrough"
        assert twin["select"]["explain"]["ranked"] == []
        page = (await http.get("/console/playground", params=params)).text
        assert "&lt;b&gt;delete&lt;/b&gt; a contact" in page
        assert "<b>delete</b>" not in page
        listed = (await http.get("/console/catalogs?catalog=small")).text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listed
        assert "<script>alert" not in listed
