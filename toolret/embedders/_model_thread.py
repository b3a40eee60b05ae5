"""The threads of an in-process model: queries first, queued queries batched, work dropped at exit.

The bundled model uses OpenMP across every core, so by default one thread runs every call, off
the event loop. That thread serves queued queries before queued document chunks (an indexing run
in the same process never holds a selection up for more than the chunk already running), and
it is a daemon: at interpreter exit, queued work is dropped and a running call abandoned, where
a ``ThreadPoolExecutor`` would join it first.

With ``threads=2`` two calls run at once (a message's dense and sparse passes side by side);
``on_call`` tells the model how many run, so that it can share the cores between them
(``toolret.embedders._e5``). A call submitted as ``Batched`` is drained with the other queued
calls of the same batch into one model call: concurrent selections' query encodings become one
``e5_embed_batch``.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Generic, TypeVar

__all__ = ["Batched", "ModelThread", "Priority"]

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741 - an item of a batch
R = TypeVar("R")


class Priority(IntEnum):
    """Which queued call runs first (lower first; equal ones in the order they came)."""

    QUERY = 0
    DOCUMENTS = 1


@dataclass(frozen=True)
class Batched(Generic[I, R]):
    """A model call that takes many items at once: ``run(items)`` returns one result per item.

    Queued calls with equal ``key`` (and priority) run as one call of at most ``limit`` items.
    A batch that raises runs again one item at a time, so one bad item fails only its caller.
    """

    key: Hashable
    run: Callable[[list[I]], Sequence[R]] = field(compare=False)
    limit: int = field(default=32, compare=False)


@dataclass(order=True)
class _Job:
    priority: int
    sequence: int
    call: Callable[[], Any] = field(compare=False)
    future: Future[Any] = field(compare=False)
    batched: Batched[Any, Any] | None = field(default=None, compare=False)
    item: Any = field(default=None, compare=False)


class ModelThread:
    """Daemon threads (``threads``, one by default) that run the model's calls, queries first.

    ``on_job``, if given, is called on the thread with each call's priority just before it runs
    (tracing, and tests that observe the order); ``on_call`` with how many calls are running
    then, this one included. The threads start on the first call, and again in a child process
    after ``fork`` (where they no longer exist).
    """

    def __init__(
        self,
        name: str,
        *,
        threads: int = 1,
        on_job: Callable[[Priority], None] | None = None,
        on_call: Callable[[int], None] | None = None,
    ) -> None:
        if threads < 1:
            raise ValueError(f"a model needs at least one thread, not {threads}")
        self.name = name
        self.threads = threads
        self.on_job = on_job
        self.on_call = on_call
        self._sequence = itertools.count()
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._jobs: list[_Job] = []
        self._running = 0
        self._workers: list[threading.Thread] = []

    def submit(self, call: Callable[[], T], priority: Priority) -> Future[T]:
        """Queue ``call``; its result or exception arrives on the returned future.

        Cancelling the future before the call starts drops the call.
        """
        future: Future[T] = Future()
        self._put(_Job(priority, next(self._sequence), call, future))
        return future

    def submit_batched(self, batched: Batched[I, R], item: I, priority: Priority) -> Future[R]:
        """Queue ``item`` for ``batched``: it runs with the items of the same batch queued by
        then (``Batched``), else alone; cancelling the future before it starts drops it."""
        future: Future[R] = Future()
        self._put(_Job(priority, next(self._sequence), _unbatched, future, batched, item))
        return future

    async def run(self, call: Callable[[], T], priority: Priority) -> T:
        """Run ``call`` on the thread and await it; a cancelled await drops a call not started."""
        return await asyncio.wrap_future(self.submit(call, priority))

    @property
    def pending(self) -> int:
        """Calls queued and not yet started."""
        return len(self._jobs)

    def _put(self, job: _Job) -> None:
        with self._lock:
            self._workers = [w for w in self._workers if w.is_alive()]
            if not self._workers:  # first call, or a child after fork: the queue is not ours
                self._jobs, self._running = [], 0
                self._workers = [
                    threading.Thread(target=self._serve, name=f"{self.name}-{i}", daemon=True)
                    for i in range(self.threads)
                ]
                for worker in self._workers:
                    worker.start()
            heapq.heappush(self._jobs, job)
            self._ready.notify()

    def _take(self) -> tuple[list[_Job], int]:
        """The next call's jobs (one, or a batch), and how many calls run with it."""
        with self._ready:
            while not self._jobs:
                self._ready.wait()
            first = heapq.heappop(self._jobs)
            jobs = [first]
            if first.batched is not None:
                key = (first.batched, first.priority)
                same = sorted(j for j in self._jobs if (j.batched, j.priority) == key)
                same = same[: first.batched.limit - 1]
                if same:
                    taken = {id(j) for j in same}
                    self._jobs = [j for j in self._jobs if id(j) not in taken]
                    heapq.heapify(self._jobs)
                    jobs.extend(same)
            self._running += 1
            idle = self.threads - self._running
            return jobs, self._running + min(idle, len(self._jobs))

    def _serve(self) -> None:
        while True:
            jobs, running = self._take()
            try:
                jobs = [job for job in jobs if job.future.set_running_or_notify_cancel()]
                if not jobs:
                    continue  # its callers gave up (a selection past its budget): skip the work
                self._before(jobs[0].priority, running)
            except BaseException as error:
                for job in jobs:
                    job.future.set_exception(error)
            else:
                _run(jobs)
            finally:
                with self._lock:
                    self._running -= 1
            del jobs

    def _before(self, priority: int, running: int) -> None:
        if self.on_job is not None:
            self.on_job(Priority(priority))
        if self.on_call is not None:
            self.on_call(running)

    def __repr__(self) -> str:
        return f"<ModelThread {self.name!r} threads={self.threads} pending={self.pending}>"


def _unbatched() -> None:  # pragma: no cover - a batched job runs through its ``Batched``
    raise AssertionError("a batched job runs through its batch")


def _run(jobs: list[_Job]) -> None:
    """Run one call's jobs and settle their futures (a failed batch: each job alone)."""
    batched = jobs[0].batched
    if batched is None:
        (job,) = jobs
        _settle(job, job.call)
        return
    if len(jobs) > 1:
        try:
            results = batched.run([job.item for job in jobs])
        except BaseException:  # each item again alone, each with its own error
            pass
        else:
            for job, result in zip(jobs, results, strict=True):
                job.future.set_result(result)
            return
    for job in jobs:
        _settle(job, functools.partial(_alone, batched, job.item))


def _alone(batched: Batched[I, R], item: I) -> R:
    return batched.run([item])[0]


def _settle(job: _Job, call: Callable[[], Any]) -> None:
    try:
        result = call()
    except BaseException as error:
        job.future.set_exception(error)
    else:
        job.future.set_result(result)
