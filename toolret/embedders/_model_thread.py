"""One thread for an in-process model: queries first, work dropped at exit.

The bundled model uses OpenMP across every core, so two calls at once only slow each other
down: every call runs on one thread, off the event loop. That thread serves queued queries
before queued document chunks (an indexing run in the same process never holds a selection up
for more than the chunk already running), and it is a daemon: at interpreter exit, queued work
is dropped and a running call abandoned, where a ``ThreadPoolExecutor`` would join it first.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

__all__ = ["ModelThread", "Priority"]

T = TypeVar("T")


class Priority(IntEnum):
    """Which queued call runs first (lower first; equal ones in the order they came)."""

    QUERY = 0
    DOCUMENTS = 1


@dataclass(order=True)
class _Job:
    priority: int
    sequence: int
    call: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False)


class ModelThread:
    """A daemon thread that runs one call at a time, queries before documents.

    ``on_job``, if given, is called on the thread with each job's priority just before the job
    runs (tracing, and tests that observe the order). The thread starts on the first call, and
    again in a child process after ``fork`` (where it no longer exists).
    """

    def __init__(self, name: str, *, on_job: Callable[[Priority], None] | None = None) -> None:
        self.name = name
        self.on_job = on_job
        self._sequence = itertools.count()
        self._lock = threading.Lock()
        self._queue: queue.PriorityQueue[_Job] = queue.PriorityQueue()
        self._thread: threading.Thread | None = None

    def submit(self, call: Callable[[], T], priority: Priority) -> Future[T]:
        """Queue ``call``; its result or exception arrives on the returned future.

        Cancelling the future before the call starts drops the call.
        """
        future: Future[T] = Future()
        self._ensure_started().put(_Job(priority, next(self._sequence), call, future))
        return future

    async def run(self, call: Callable[[], T], priority: Priority) -> T:
        """Run ``call`` on the thread and await it; a cancelled await drops a call not started."""
        return await asyncio.wrap_future(self.submit(call, priority))

    @property
    def pending(self) -> int:
        """Calls queued and not yet started."""
        return self._queue.qsize()

    def _ensure_started(self) -> queue.PriorityQueue[_Job]:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._queue = queue.PriorityQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._queue,), name=self.name, daemon=True
                )
                self._thread.start()
            return self._queue

    def _serve(self, jobs: queue.PriorityQueue[_Job]) -> None:
        while True:
            job = jobs.get()
            if not job.future.set_running_or_notify_cancel():
                continue  # its caller gave up (a selection past its budget): skip the work
            try:
                if self.on_job is not None:
                    self.on_job(Priority(job.priority))
                result = job.call()
            except BaseException as error:
                job.future.set_exception(error)
            else:
                job.future.set_result(result)
            del job

    def __repr__(self) -> str:
        return f"<ModelThread {self.name!r} pending={self.pending}>"
