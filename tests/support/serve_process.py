"""``toolret serve`` in its own process, as an operator runs it, for tests of several processes.

``start_serve`` waits until ``/healthz`` answers (polling a condition with a deadline, never a
guess at a time) and returns the URL and the process; ``stop_serve`` sends SIGTERM and waits.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

__all__ = ["DEADLINE", "TOOLRET", "free_port", "run_ok", "start_serve", "stop_serve", "wait_ready"]

TOOLRET = str(Path(sys.executable).with_name("toolret"))
DEADLINE = 120.0


def free_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_serve(
    database_url: str,
    stderr: Path,
    *,
    port: int | None = None,
    command: Sequence[str] = ("serve",),
    stdout: Path | None = None,
    **env: str,
) -> tuple[str, subprocess.Popen[bytes]]:
    """``toolret serve`` (or another ``command`` that serves on ``TOOLRET_SERVE_PORT``) on
    ``database_url`` without Redis (catalogs indexed inline), its stderr written to ``stderr``
    (and stdout to ``stdout``); returns its URL and process once ``/healthz`` answers."""
    port = port or free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "TOOLRET_SERVE_PORT": str(port),
        **env,
    }
    environment.pop("REDIS_URL", None)
    with stderr.open("ab") as err, (stdout or Path(os.devnull)).open("ab") as out:
        process = subprocess.Popen(
            [TOOLRET, *command], env=environment, stderr=err, stdout=out if stdout else None
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + DEADLINE
    while True:
        if process.poll() is not None:
            raise AssertionError(f"toolret serve exited: {stderr.read_text()}")
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return url, process
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"toolret serve never answered: {stderr.read_text()}")
        time.sleep(0.05)  # polling a condition with a deadline


def wait_ready(url: str) -> None:
    """Return once ``/readyz`` answers 200: the database current and the embedder warm, as a
    load balancer waits before it sends a started process traffic (polled, with a deadline)."""
    deadline = time.monotonic() + DEADLINE
    while (answer := httpx.get(f"{url}/readyz", timeout=DEADLINE)).status_code != 200:
        assert time.monotonic() < deadline, f"never ready: {answer.text}"
        time.sleep(0.05)  # polling a condition with a deadline


def stop_serve(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM, then wait for the exit status (kill after the deadline)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


async def run_ok(*command: str, cwd: Path, env: dict[str, str]) -> str:
    """Run ``command`` (a documented shell step, a CLI call) and return its stdout; fails the
    test with its stderr when it exits non-zero."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()
