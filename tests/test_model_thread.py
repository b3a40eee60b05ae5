"""The model's one thread: queries before documents, abandoned work skipped, nothing joined at exit.

Order is observed, not timed: the first job holds the thread on an event until everything else
is queued, and ``on_job`` records what ran next.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from concurrent.futures import CancelledError

import numpy as np
import pytest

from toolret import BundledE5Embedder
from toolret.embedders._model_thread import Batched, ModelThread, Priority

WAIT = 60.0
"""Seconds a test waits on an event before it fails: generous for a loaded machine."""


class Recorder:
    """``on_job``: records each job's priority; holds the first job until ``release`` is set."""

    def __init__(self) -> None:
        self.order: list[Priority] = []
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, priority: Priority) -> None:
        self.order.append(priority)
        if len(self.order) == 1:
            self.started.set()
            assert self.release.wait(WAIT)


def test_queued_queries_run_before_queued_documents_in_arrival_order() -> None:
    recorder = Recorder()
    thread = ModelThread("test-order", on_job=recorder)
    ran: list[str] = []
    first = thread.submit(lambda: ran.append("busy"), Priority.DOCUMENTS)
    assert recorder.started.wait(WAIT)
    futures = [
        thread.submit(lambda: ran.append("doc 1"), Priority.DOCUMENTS),
        thread.submit(lambda: ran.append("query 1"), Priority.QUERY),
        thread.submit(lambda: ran.append("doc 2"), Priority.DOCUMENTS),
        thread.submit(lambda: ran.append("query 2"), Priority.QUERY),
    ]
    assert thread.pending == 4
    recorder.release.set()
    for future in [first, *futures]:
        future.result(WAIT)
    assert ran == ["busy", "query 1", "query 2", "doc 1", "doc 2"]


def test_a_cancelled_job_is_skipped_and_errors_reach_the_caller() -> None:
    recorder = Recorder()
    thread = ModelThread("test-cancel", on_job=recorder)
    ran: list[str] = []
    busy = thread.submit(lambda: ran.append("busy"), Priority.QUERY)
    assert recorder.started.wait(WAIT)
    abandoned = thread.submit(lambda: ran.append("abandoned"), Priority.QUERY)
    assert abandoned.cancel()

    def fail() -> None:
        raise RuntimeError("the model broke")

    failing = thread.submit(fail, Priority.QUERY)
    recorder.release.set()
    busy.result(WAIT)
    with pytest.raises(RuntimeError, match="the model broke"):
        failing.result(WAIT)
    with pytest.raises(CancelledError):
        abandoned.result(WAIT)
    assert ran == ["busy"]


async def test_a_query_waits_for_one_document_chunk_not_a_whole_indexing_run() -> None:
    """An indexing run's documents and a query, queued together on the bundled model's thread:
    the query runs as soon as the call already running ends, before the rest of the run."""
    recorder = Recorder()
    thread = ModelThread("test-e5-priority", on_job=recorder)
    embedder = BundledE5Embedder(thread=thread)
    documents = [
        f"Tool number {i}: creates, updates and archives records of kind {i} in the CRM."
        for i in range(40)
    ]
    holder = thread.submit(lambda: None, Priority.DOCUMENTS)  # what the model is busy with
    # The thread must hold the holder before anything else is queued: otherwise, on a machine
    # where the thread starts late, the query outranks the holder in the queue. Blocking the
    # loop here is harmless: nothing else is scheduled on it yet.
    assert recorder.started.wait(WAIT)
    indexing = asyncio.ensure_future(embedder.embed_documents(documents))
    query = asyncio.ensure_future(embedder.embed_query("archive the record"))
    # Both tasks queue all their work on their first step, which runs before this coroutine
    # resumes from any await.
    await asyncio.get_running_loop().run_in_executor(None, recorder.started.wait, WAIT)
    queued = thread.pending
    recorder.release.set()
    vector = await query
    await indexing
    holder.result(WAIT)
    assert vector.shape == (384,)
    chunks = recorder.order.count(Priority.DOCUMENTS) - 1
    assert queued == chunks + 1
    assert chunks >= 4  # the run was split: 40 short documents are not one model call
    assert recorder.order[:3] == [Priority.DOCUMENTS, Priority.QUERY, Priority.DOCUMENTS]


EXITS = r"""
import threading
from toolret.embedders._model_thread import ModelThread, Priority

thread = ModelThread("exit-test")
started = threading.Event()
def forever():
    started.set()
    threading.Event().wait()  # a model call that never returns
thread.submit(forever, Priority.QUERY)
for _ in range(100):
    thread.submit(forever, Priority.DOCUMENTS)
started.wait(60)
print("started", flush=True)
"""

EXITS_MID_ENCODE = r"""
import asyncio
from toolret.embedders._e5 import BundledE5Embedder

async def main():
    embedder = BundledE5Embedder()
    await embedder.warm_up()
    texts = ["a long pasted log line " * 3000] * 200  # 200 x 69 KB: minutes of work
    indexing = asyncio.ensure_future(embedder.embed_documents(texts))
    await embedder.embed_query("queued behind the first chunk, served before the rest")
    assert not indexing.done()
    print("started", flush=True)
    raise SystemExit(0)  # leave with the model busy and its queue full

asyncio.run(main())
"""


@pytest.mark.parametrize("script", [EXITS, EXITS_MID_ENCODE], ids=["stuck-call", "busy-model"])
def test_the_process_exits_promptly_with_model_work_pending(script: str) -> None:
    """A ThreadPoolExecutor joins its thread at exit: one 64 KB encode held the interpreter
    for 25 s, a stuck call forever. The model's thread is a daemon: queued work is dropped."""
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        line = child.stdout.readline()  # blocks until the work is under way (or the child dies)
        started = time.perf_counter()
        try:
            returncode = child.wait(timeout=60)
        finally:
            child.kill()
        exited = time.perf_counter() - started
        assert child.stderr is not None
        assert (line.strip(), returncode) == ("started", 0), child.stderr.read()[-2000:]
    assert exited < 30  # typically well under a second; generous for a loaded machine


QUERIES = (
    "archive the record",
    "احذف جهة الاتصال المكررة",
    "Yarın için müşteriyi arama görevi oluştur",
    "把联系人导出为表格文件",
    "send the invoice to the customer by email",
    "what meetings do I have tomorrow",
)


async def test_queued_query_encodings_run_as_one_model_call_equal_to_one_by_one() -> None:
    """Concurrent selections' query encodings, queued while the model is busy, are drained
    into one batch: one call, and each vector what it would have been alone."""
    recorder = Recorder()
    thread = ModelThread("test-batch", on_job=recorder)
    batching = BundledE5Embedder(thread=thread)
    holder = thread.submit(lambda: None, Priority.DOCUMENTS)
    assert recorder.started.wait(WAIT)
    queued = [asyncio.ensure_future(batching.embed_query(text)) for text in QUERIES]
    await asyncio.sleep(0)  # each task's first step queues its encoding
    assert thread.pending == len(QUERIES)
    recorder.release.set()
    batched = await asyncio.gather(*queued)
    holder.result(WAIT)
    assert recorder.order == [Priority.DOCUMENTS, Priority.QUERY]  # the holder, then one batch
    alone = BundledE5Embedder(batch_queries=False)
    for text, vector in zip(QUERIES, batched, strict=True):
        single = await alone.embed_query(text)
        assert vector.shape == single.shape == (384,)
        np.testing.assert_allclose(vector, single, atol=1e-5)


def test_a_batch_that_fails_runs_each_item_alone_so_only_the_bad_one_fails() -> None:
    recorder = Recorder()
    thread = ModelThread("test-batch-failure", on_job=recorder)
    calls: list[list[str]] = []

    def shout(items: list[str]) -> list[str]:
        calls.append(items)
        if "bad" in items:
            raise ValueError("the model cannot read 'bad'")
        return [item.upper() for item in items]

    batch: Batched[str, str] = Batched("shout", shout)
    holder = thread.submit(lambda: None, Priority.QUERY)
    assert recorder.started.wait(WAIT)
    futures = [thread.submit_batched(batch, item, Priority.QUERY) for item in ("a", "bad", "c")]
    abandoned = thread.submit_batched(batch, "gone", Priority.QUERY)
    assert abandoned.cancel()
    recorder.release.set()
    holder.result(WAIT)
    assert futures[0].result(WAIT) == "A"
    assert futures[2].result(WAIT) == "C"
    with pytest.raises(ValueError, match="cannot read"):
        futures[1].result(WAIT)
    assert calls == [["a", "bad", "c"], ["a"], ["bad"], ["c"]]


def test_two_threads_run_two_calls_at_once_and_say_how_many_run() -> None:
    """Each call waits for the other to start: they finish only if they run side by side."""
    running: list[int] = []
    thread = ModelThread("test-two", threads=2, on_call=running.append)
    meeting = threading.Barrier(2, timeout=WAIT)
    futures = [thread.submit(meeting.wait, Priority.QUERY) for _ in range(2)]
    assert sorted(future.result(WAIT) for future in futures) == [0, 1]
    assert 2 in running  # the second call started while the first ran
    with pytest.raises(ValueError, match="at least one thread"):
        ModelThread("test-none", threads=0)
