"""The Catalogs page in headless Chromium: reached from the navigation, each catalog's tools,
core tools, model and index state as the console's JSON twin says; and a token for one catalog
sees only it, and is refused another."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.browser import drive, serving


def test_catalogs_show_what_their_json_says(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as console:
        shown = drive("catalogs", tmp_path, base=console.url, catalogs=["crm", "fleet"])
        assert shown["options"] == ["crm", "fleet"]
        for name in ("crm", "fleet"):
            twin = console.http.get(f"/console/catalogs.json?catalog={name}").json()["detail"]
            page = shown["shown"][name]
            assert page["model"] == twin["model"]
            assert page["tools"] == len(twin["tools"])
            assert page["core"] == len(twin["core"])
            assert page["names"] == [tool["name"] for tool in twin["tools"]]
            assert page["dense"].startswith("published")
            findings = twin["lint"]["findings"] + twin["schema_warnings"]
            assert page["findings"] == len(findings)
        assert all("__" in name for name in shown["shown"]["fleet"]["names"])  # server__tool


def test_a_token_for_one_catalog_cannot_see_another(database_url: str, tmp_path: Path) -> None:
    tokens = {"admin-token": ["*"], "crm-token": ["crm"]}
    with serving(database_url, tmp_path, TOOLRET_SERVE_TOKENS=json.dumps(tokens)) as console:
        shown = drive("tokens", tmp_path, base=console.url, token="crm-token", other="fleet")
        assert "/console/login" in shown["login"]
        assert shown["options"] == ["crm"]
        assert shown["status"] == 403
        assert shown["error"] == "this token may not use that catalog"
