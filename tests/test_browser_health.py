"""The Health page in headless Chromium: the store, embedder and worker as the JSON twin says,
and the selections of the last hour by outcome, charted; the Playground on a narrow window
fits without scrolling sideways."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import ARABIC, drive, serving


def test_health_shows_what_its_json_says(database_url: str, tmp_path: Path) -> None:
    with serving(database_url, tmp_path) as console:
        for message in (ARABIC, "export every deal closed last quarter", ""):
            console.select("crm", message)
        shown = drive("health", tmp_path, base=console.url, catalog="crm", message=ARABIC)
        twin = console.http.get("/console/health.json").json()
        assert shown["deps"] == {
            name: twin[name]["state"] for name in ("store", "embedder", "worker")
        }
        assert shown["deps"]["store"] == shown["deps"]["embedder"] == "ok"
        assert shown["deps"]["worker"] == "none"  # no REDIS_URL: indexed inline
        totals = {o: sum(m.get(o, 0) for m in twin["per_minute"]) for o in twin["outcomes"]}
        assert shown["outcomes"] == totals
        assert totals["blank_message"] >= 1
        assert totals["narrowed"] >= 3  # two here, one from the narrow window
        assert shown["bars"] >= 2
        assert shown["overflow"] <= 0
