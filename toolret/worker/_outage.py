"""Outages the worker waits out: Redis and Postgres may go away; the worker does not.

arq gives up on Redis at the first failed command once a worker runs (its connection retries
apply only to the first connection), so on its own a Redis restart ends the worker with a
traceback. ``PatientRetry`` is redis-py's retry policy for the worker's connection: once the
process has reached Redis, every command and every reconnect waits with capped exponential
backoff for as long as Redis is away, and the worker carries on where it was. Postgres outages
are the reindex job's to wait out (``toolret.worker._jobs``). One window is out of reach: a
connection lost in the instant between arq's ``WATCH`` and ``EXEC`` while it claims a job
raises ``WatchError``, which arq does not catch; the worker then exits and its supervisor
(the compose file's ``restart:``) starts it again.

``Dependency`` holds whether one dependency is reachable and logs only when that changes: one
line when it goes away, one when it is back, however many tries lie between, and no traceback.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
    TimeoutError as RedisTimeoutError,
)

__all__ = ["OUTAGE_ERRORS", "Dependency", "PatientRetry"]

log = logging.getLogger("toolret.worker")

T = TypeVar("T")

OUTAGE_ERRORS: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError, OSError)
"""What a Redis that is not there raises: refused or reset connections, a socket file gone,
timeouts. Anything else (a wrong password, a command error) is not waited out."""


class Dependency:
    """Whether one dependency (``name`` at ``where``) is reachable; logs each change once.

    ``down(error)`` and ``up()`` return True when they changed the state. ``clock`` (seconds,
    monotonic) is ``time.monotonic`` unless given.
    """

    def __init__(
        self, name: str, where: str = "", *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.where = where
        self._clock = clock
        self.down_since: float | None = None
        self.last_error = ""

    @property
    def is_up(self) -> bool:
        return self.down_since is None

    def down(self, error: BaseException | str) -> bool:
        """Record a failed try; log (warning) only if the dependency was up until now."""
        self.last_error = _one_line(error)
        if self.down_since is not None:
            return False
        self.down_since = self._clock()
        log.warning(
            "%s%s unreachable (%s): waiting for it, retrying with backoff",
            self.name,
            f" at {self.where}" if self.where else "",
            self.last_error,
        )
        return True

    def up(self) -> bool:
        """Record a success; log (info) only if the dependency was down until now."""
        if self.down_since is None:
            return False
        seconds, self.down_since = self._clock() - self.down_since, None
        log.info("%s reachable again after %.1f s", self.name, seconds)
        return True

    def __repr__(self) -> str:
        state = "up" if self.is_up else f"down ({self.last_error})"
        return f"Dependency({self.name!r}, {state})"


class PatientRetry(Retry):
    """redis-py's ``Retry`` that waits out a Redis outage, once the process has reached Redis.

    Before the first success it does not retry at all, so arq's own connection retries decide
    how long a worker waits for Redis at start-up, and ``arq --check`` fails within them rather
    than hanging. After it, a command or a reconnect that fails with one of ``OUTAGE_ERRORS``
    is tried again with exponential backoff (``base`` seconds, doubling, at most ``cap``) for
    as long as it takes. redis-py deep-copies the policy into every connection; copies share
    this one, so the first success and the outage state are the process's, not a connection's.
    """

    def __init__(self, dependency: Dependency, *, base: float = 0.1, cap: float = 10.0) -> None:
        super().__init__(ExponentialBackoff(cap=cap, base=base), -1)
        self.dependency = dependency
        self.reached = False

    def __deepcopy__(self, memo: dict[int, Any]) -> PatientRetry:
        return self

    async def call_with_retry(
        self, do: Callable[[], Awaitable[T]], fail: Callable[[Any], Any]
    ) -> T:
        failures = 0
        while True:
            try:
                result = await do()
            except OUTAGE_ERRORS as error:
                await fail(error)
                if not self.reached:
                    raise
                failures += 1
                self.dependency.down(error)
                await asyncio.sleep(self._backoff.compute(failures))
            else:
                self.reached = True
                self.dependency.up()
                return result


def _one_line(error: BaseException | str) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if isinstance(error, BaseException):
        return f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text
