"""``allowed`` over HTTP, and a token's own list: a request narrows it, never widens it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.service_catalog import MESSAGES
from tests.test_service import LOADED, bearer, register, registered_catalog, service
from toolret.errors import ConfigurationError
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._auth import TokenTable
from toolret.service._settings import ServiceSettings, TokenScope, read_tokens

TOKEN_ALLOWED = ("find_records", "delete_*", "update_*", "export_records", "merge_records")
TOKENS: dict[str, tuple[str, ...] | TokenScope] = {
    "narrow": TokenScope(catalogs=("crm",), allowed=TOKEN_ALLOWED),
    "admin": ("*",),
}
K = 2


async def test_a_token_s_allowed_list_cuts_every_selection_and_a_request_only_narrows_it(
    database_url: str,
) -> None:
    async with (
        service(database_url, tokens=TOKENS) as (_, http),
        ToolRetrievalClient(database_url, time_budget=LOADED) as direct,
    ):
        await register(http, **bearer("admin"))
        catalog = registered_catalog()
        cut = catalog.only(TOKEN_ALLOWED)
        for message in MESSAGES:
            body: dict[str, Any] = {"catalog": "crm", "message": message, "k": K}
            selected = (await http.post("/v1/select", json=body, headers=bearer("narrow"))).json()
            expected = await direct.select(catalog, message, k=K, allowed=TOKEN_ALLOWED)
            assert selected["names"] == expected.names, message
            assert selected["mode"] == "narrowed"
            assert set(selected["names"]) <= set(cut.names)
            assert "get_record" not in selected["names"], "a core tool the token may not see"

            widened = {**body, "allowed": ["*"]}
            again = (await http.post("/v1/select", json=widened, headers=bearer("narrow"))).json()
            assert again["names"] == selected["names"], "a request cannot widen the token's list"

            narrowed = {**body, "allowed": ["delete_*", "get_record", "create_record"]}
            fewer = (await http.post("/v1/select", json=narrowed, headers=bearer("narrow"))).json()
            assert set(fewer["names"]) <= {n for n in cut.names if n.startswith("delete_")}

            asked = {"catalog": "crm", "query": message, "allowed": ["update_*", "add_field"]}
            found = (await http.post("/v1/find_tools", json=asked, headers=bearer("narrow"))).json()
            assert found["tools"], found
            assert all(t["name"].startswith("update_") for t in found["tools"]), found

        admin = {"catalog": "crm", "message": MESSAGES[0], "k": K, "allowed": ["get_record"]}
        only_core = (await http.post("/v1/select", json=admin, headers=bearer("admin"))).json()
        assert only_core["names"] == ["get_record"], only_core

        bad = {"catalog": "crm", "message": MESSAGES[0], "allowed": ["not a name"]}
        refused = await http.post("/v1/select", json=bad, headers=bearer("narrow"))
        assert refused.status_code == 422
        assert refused.json()["field"] == "allowed"
        assert "not a name" in refused.json()["detail"]


def test_tokens_with_allowed_are_read_from_json_and_bad_patterns_fail_at_start() -> None:
    tokens = read_tokens('{"a": ["crm"], "b": {"catalogs": ["crm"], "allowed": ["gh__*"]}}')
    assert tokens == {"a": ("crm",), "b": TokenScope(catalogs=("crm",), allowed=("gh__*",))}
    assert ServiceSettings(tokens=tokens).tokens == tokens
    with pytest.raises(ConfigurationError, match="allowed entry 'a b'"):
        TokenTable({"t": TokenScope(catalogs=("crm",), allowed=("a b",))})
    with pytest.raises(ValueError, match="catalogs"):
        read_tokens('{"b": {"allowed": ["gh__*"]}}')
