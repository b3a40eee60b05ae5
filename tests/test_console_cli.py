"""``toolret console``: registers the demo roster in the database, indexes it, and serves the
console on loopback, printing its URL; a real process, driven with httpx."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.support.serve_process import free_port, start_serve, stop_serve
from toolret.cli._console import catalog_name


def test_catalog_names_come_from_the_spec() -> None:
    assert catalog_name("toolret.demo.roster:catalog") == "roster"
    assert catalog_name("tools/crm.json") == "crm"
    assert catalog_name("myapp.tools:catalog") == "tools"


def test_toolret_console_serves_the_demo_roster(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    stdout = tmp_path / "out"
    command = ("console", "--no-open", "--port", str(port))
    url, process = start_serve(
        database_url, tmp_path / "err", port=port, command=command, stdout=stdout
    )
    try:
        assert f"{url}/console/playground" in stdout.read_text()
        listed = httpx.get(f"{url}/console/catalogs.json", timeout=120).json()
        assert listed["catalogs"] == ["roster"]
        assert listed["detail"]["index"]["dense"] == "published"
        params = {"catalog": "roster", "message": "احذف جهة الاتصال المكررة"}
        played = httpx.get(f"{url}/console/playground.json", params=params, timeout=120).json()
        assert played["select"]["mode"] == "narrowed"
    finally:
        stop_serve(process)
