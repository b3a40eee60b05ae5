"""``toolret console``: registers the demo roster in the database, indexes it, and serves the
console on loopback, printing its URL; a real process, driven with httpx."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx

from tests.support.serve_process import DEADLINE, TOOLRET, free_port, stop_serve
from toolret.cli._console import catalog_name


def test_catalog_names_come_from_the_spec() -> None:
    assert catalog_name("toolret.demo.roster:catalog") == "roster"
    assert catalog_name("tools/crm.json") == "crm"
    assert catalog_name("myapp.tools:catalog") == "tools"


def test_toolret_console_serves_the_demo_roster(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    environment = {**os.environ, "DATABASE_URL": database_url}
    environment.pop("REDIS_URL", None)
    stdout, stderr = tmp_path / "out", tmp_path / "err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [TOOLRET, "console", "--no-open", "--port", str(port)],
            env=environment,
            stdout=out,
            stderr=err,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + DEADLINE
        while True:
            assert process.poll() is None, stderr.read_text()
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, stderr.read_text()
            time.sleep(0.05)  # polling a condition with a deadline
        assert f"{url}/console/playground" in stdout.read_text()
        listed = httpx.get(f"{url}/console/catalogs.json", timeout=120).json()
        assert listed["catalogs"] == ["roster"]
        assert listed["detail"]["index"]["dense"] == "published"
        params = {"catalog": "roster", "message": "احذف جهة الاتصال المكررة"}
        played = httpx.get(f"{url}/console/playground.json", params=params, timeout=120).json()
        assert played["select"]["mode"] == "narrowed"
    finally:
        stop_serve(process)
