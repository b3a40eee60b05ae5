"""When to ask again: an exponential backoff per key, for requests that may be lost.

The client asks the worker to index a catalog whose corpus is not served. The request can be
lost (Redis down, the enqueue failed) or answered and later undone (garbage collection removed
the corpus), so asking once per process is not enough; asking on every selection would send a
Redis round trip with each one. ``Backoff`` lets a key through at once, then after ``initial``
seconds, doubling up to ``maximum``, until ``reset`` (the corpus is served) starts it over.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Backoff"]


class Backoff:
    """An exponential backoff per key: ``initial`` seconds, doubling up to ``maximum``.

    ``due(key)`` is True when the key may be acted on now, and schedules the next time;
    ``reset(key)`` forgets it. ``clock`` (seconds, monotonic) is ``time.monotonic`` unless
    given. Not thread-safe: one event loop uses it.
    """

    def __init__(
        self,
        initial: float = 5.0,
        maximum: float = 300.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < initial <= maximum:
            raise ValueError(f"need 0 < initial <= maximum, not {initial} and {maximum}")
        self.initial = initial
        self.maximum = maximum
        self._clock = clock
        self._keys: dict[str, tuple[float, float]] = {}  # key -> (next allowed, last delay)

    def due(self, key: str) -> bool:
        """Whether ``key`` may be acted on now; if so, the next time is scheduled."""
        now = self._clock()
        entry = self._keys.get(key)
        if entry is not None and now < entry[0]:
            return False
        delay = self.initial if entry is None else min(entry[1] * 2, self.maximum)
        self._keys[key] = (now + delay, delay)
        return True

    def retry_in(self, key: str) -> float | None:
        """Seconds until ``key`` is due again; None if it is not waiting."""
        entry = self._keys.get(key)
        return None if entry is None else max(0.0, entry[0] - self._clock())

    def reset(self, key: str) -> None:
        """Forget ``key``: the next ``due`` lets it through and starts at ``initial`` again."""
        self._keys.pop(key, None)

    def __repr__(self) -> str:
        return f"Backoff(initial={self.initial}, maximum={self.maximum}, waiting={len(self._keys)})"
