"""``toolret serve`` as an operator runs it: its own process, its notice, /metrics, SIGTERM.

The readiness wait polls ``/healthz`` with a deadline: a condition, not a guess at a time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.serve_process import DEADLINE, TOOLRET, free_port
from tests.support.service_catalog import MESSAGES, registration


@pytest.fixture
def served(database_url: str, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``toolret serve`` on a free port, no tokens; yields its URL and process."""
    port = free_port()
    stderr = tmp_path / "stderr.txt"
    env = {**os.environ, "DATABASE_URL": database_url, "TOOLRET_SERVE_PORT": str(port)}
    env.pop("REDIS_URL", None)
    with stderr.open("wb") as err:
        process = subprocess.Popen([TOOLRET, "serve"], env=env, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
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
        notice = stderr.read_text()
        assert "no tokens configured" in notice
        assert "localhost only" in notice
        yield url, process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_exports_metrics_and_stops_cleanly_on_sigterm(
    served: tuple[str, subprocess.Popen[bytes]],
) -> None:
    url, process = served
    with httpx.Client(base_url=url, timeout=DEADLINE) as http:
        assert http.post("/v1/catalogs/crm", json=registration()).status_code == 201
        selected = http.post("/v1/select", json={"catalog": "crm", "message": MESSAGES[0]})
        assert selected.json()["mode"] == "narrowed"
        metrics = http.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    lines = metrics.text.splitlines()
    assert any(
        line.startswith("toolret_selections_total{") and 'toolret_mode="narrowed"' in line
        for line in lines
    ), metrics.text[:2000]
    assert any(line.startswith("toolret_selection_duration_milliseconds_bucket") for line in lines)

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=DEADLINE) == 0


def test_serve_refuses_a_public_address_without_tokens(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url}
    result = subprocess.run(
        [TOOLRET, "serve", "--host", "0.0.0.0"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: no tokens are configured")
    assert "Traceback" not in result.stderr
