"""What a registration says about tools their authors must fix, over HTTP to a ``toolret serve``
process: as the Python adapters do, someone else's tools (the default) are kept with warnings,
and the application's own (``"third_party": false``) are refused with a 422 naming the tool and,
for an input schema, the JSON pointer of the fault."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx

from tests.support.serve_process import DEADLINE, start_serve, stop_serve
from tests.support.service_catalog import MESSAGES, registration

MISSPELT = {"type": "object", "properties": {"where": {"type": "strng"}}}


def with_faults() -> dict[str, Any]:
    """18 tools, one whose parameters misspell a type and one with an empty description."""
    body = registration(tools=18)
    body["tools"] = copy.deepcopy(body["tools"])
    body["tools"][5]["function"]["parameters"] = MISSPELT  # bulk_update_records
    body["tools"][6]["function"]["description"] = ""  # bulk_delete_records
    return body


def test_someone_elses_tools_are_kept_with_warnings_and_the_apps_own_are_a_422(
    database_url: str, tmp_path: Path
) -> None:
    url, process = start_serve(database_url, tmp_path / "stderr.txt")
    try:
        with httpx.Client(base_url=url, timeout=DEADLINE) as http:
            theirs = http.post("/v1/catalogs/theirs", json=with_faults())
            assert theirs.status_code == 201, theirs.text
            warnings = theirs.json()["warnings"]
            assert [(w["tool"], w["kind"], w["pointer"]) for w in warnings] == [
                ("bulk_update_records", "invalid_schema", "/properties/where/type"),
                ("bulk_delete_records", "thin_description", None),
            ]
            assert "strng" in warnings[0]["message"]
            assert "empty" in warnings[1]["message"]
            selected = http.post("/v1/select", json={"catalog": "theirs", "message": MESSAGES[0]})
            assert selected.json()["mode"] == "narrowed"

            own = http.post("/v1/catalogs/own", json={**with_faults(), "third_party": False})
            assert own.status_code == 422, own.text
            refused = own.json()
            assert (refused["error"], refused["field"]) == ("invalid_catalog", "tools")
            assert (
                "'bulk_update_records', input schema at /properties/where/type"
                in (refused["detail"])
            )
            assert "strng" in refused["detail"]

            fixed = with_faults()
            fixed["tools"][5] = registration(tools=18)["tools"][5]
            thin = http.post("/v1/catalogs/own", json={**fixed, "third_party": False})
            assert thin.status_code == 422, thin.text
            assert "'bulk_delete_records' has an empty description" in thin.json()["detail"]

            never_stored = http.post("/v1/select", json={"catalog": "own", "message": "x"})
            assert never_stored.json()["error"] == "unknown_catalog"
    finally:
        assert stop_serve(process) == 0
