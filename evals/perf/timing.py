"""Timing helpers the benchmarks share: percentiles, sequential and concurrent timing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["percentiles", "throughput", "timed", "timed_sync"]


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    ordered = np.asarray(samples) * 1000
    return {
        "p50_ms": float(np.percentile(ordered, 50)),
        "p99_ms": float(np.percentile(ordered, 99)),
    }


async def timed(calls: Sequence[Callable[[], Awaitable[Any]]], warmup: int = 10) -> list[float]:
    for call in calls[:warmup]:
        await call()
    samples = []
    for call in calls:
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return samples


def timed_sync(calls: Sequence[Callable[[], Any]]) -> list[float]:
    samples = []
    for call in calls:
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return samples


async def throughput(call: Callable[[int], Awaitable[Any]], workers: int, total: int) -> float:
    """Calls per second with ``workers`` concurrent callers."""
    counter = iter(range(total))

    async def worker() -> None:
        for i in counter:
            await call(i)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    return total / (time.perf_counter() - started)
