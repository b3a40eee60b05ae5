"""Sending feedback to the worker: fire-and-forget, bounded, never in the request's way.

``FeedbackSender.submit`` puts a ``TurnFeedback`` in a bounded in-process buffer and returns at
once; one background task drains the buffer into arq's queue (``toolret:queue``, job
``record_feedback``). ``submit_calls`` does the same for the names of tools called together
where there is no turn to report (the gateway; job ``record_calls``). When the buffer is full,
or Redis cannot be reached, the report is dropped and counted (``toolret.feedback.dropped`` by
reason, and ``FeedbackSender.dropped``): feedback is worth less than the turn it describes. The
connection fails fast (no retries), as the reindex queue's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from arq.connections import ArqRedis, create_pool
from redis.exceptions import RedisError

from toolret._catalog import Catalog
from toolret._profile import corpus_hash
from toolret.embedders._base import Embedder, Vector
from toolret.feedback._signals import TurnFeedback, turn_feedback
from toolret.indexing._queue import QUEUE_NAME, redis_settings
from toolret.retrieval._metrics import record_feedback, record_feedback_dropped
from toolret.retrieval._selection import Selection
from toolret.retrieval._transcript import reported_message

__all__ = ["BUFFER_SIZE", "CALLS_FUNCTION", "FEEDBACK_FUNCTION", "FeedbackSender"]

log = logging.getLogger("toolret.feedback")

FEEDBACK_FUNCTION = "record_feedback"
"""The name the worker registers the feedback job under."""
CALLS_FUNCTION = "record_calls"
"""The name the worker registers the tools-called-together job under."""
BUFFER_SIZE = 1000
"""Reports held while the queue is slow; more are dropped (about 3 kB each at 384 dims)."""
CLOSE_GRACE = 1.0
"""Seconds ``aclose`` lets the buffer drain before dropping what is left."""


class FeedbackSender:
    """A bounded buffer in front of the worker's queue, drained by one background task.

    Use it from one event loop. ``submit`` never blocks and never raises.
    """

    def __init__(
        self, redis_url: str, *, buffer_size: int = BUFFER_SIZE, queue_name: str = QUEUE_NAME
    ) -> None:
        self._settings = redis_settings(redis_url, conn_retries=0)
        self._pool: ArqRedis | None = None
        self.queue_name = queue_name
        self._buffer: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=buffer_size)
        self._drainer: asyncio.Task[None] | None = None
        self._closed = False
        self.sent = 0
        self.dropped: Counter[str] = Counter()

    def report(
        self,
        catalog: Catalog,
        selection: Selection,
        transcript: Sequence[Any] | Iterable[str],
        *,
        embedder: Embedder,
        k: int,
        message: str | None = None,
        learn: bool = False,
        keep_text: bool = False,
        companions: bool = True,
    ) -> bool:
        """Build a turn's feedback and ``submit`` it; False when there is nothing to send.

        Only narrowed selections are reported (a full roster bound everything). The query
        vector is the one ``embedder``'s query cache kept for the message (``message``, else the
        transcript's latest human message); when it is gone the report is dropped
        (``no_vector``): the message is never embedded again for feedback.
        """
        if not selection.narrowed:
            return False
        if message is None:
            transcript = list(transcript)
            message = reported_message(transcript)
        peek = getattr(embedder, "peek", None)
        vector: Vector | None = peek(message) if callable(peek) and message else None
        if vector is None:
            return self._drop("no_vector")
        feedback = turn_feedback(
            catalog,
            selection,
            transcript,
            vector,
            model_id=embedder.model_id,
            corpus_hash=corpus_hash(catalog, embedder),
            k=k,
            learn=learn,
            text=message if keep_text else None,
            companions=companions,
        )
        record_feedback(len(feedback.hits), len(feedback.misses), feedback.find_tools_calls)
        return self.submit(feedback)

    def submit(self, feedback: TurnFeedback) -> bool:
        """Queue one report for the worker; False (and counted) if it had to be dropped."""
        return self._put(FEEDBACK_FUNCTION, feedback.to_payload())

    def submit_calls(self, tools: Sequence[str]) -> bool:
        """Queue the names of tools called together (one turn's worth) for the worker to count;
        False (and counted) if dropped."""
        return self._put(CALLS_FUNCTION, {"tools": list(tools)})

    def _put(self, function: str, payload: dict[str, Any]) -> bool:
        if self._closed:
            return self._drop("closed")
        try:
            self._buffer.put_nowait((function, payload))
        except asyncio.QueueFull:
            return self._drop("buffer_full")
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.get_running_loop().create_task(
                self._drain(), name="toolret-feedback"
            )
        return True

    async def flush(self) -> None:
        """Wait until every buffered report was sent or dropped."""
        await self._buffer.join()

    async def aclose(self) -> None:
        """Drain briefly, drop the rest, close the connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._drainer is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._buffer.join(), timeout=CLOSE_GRACE)
            self._drainer.cancel()
            await asyncio.gather(self._drainer, return_exceptions=True)
        while not self._buffer.empty():
            self._buffer.get_nowait()
            self._buffer.task_done()
            self._drop("closed")
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose(close_connection_pool=True)

    async def _drain(self) -> None:
        while True:
            function, payload = await self._buffer.get()
            try:
                await self._send(function, payload)
            finally:
                self._buffer.task_done()

    async def _send(self, function: str, payload: dict[str, Any]) -> None:
        try:
            if self._pool is None:
                self._pool = await create_pool(self._settings)
            await self._pool.enqueue_job(function, payload, _queue_name=self.queue_name)
        except (RedisError, OSError, TimeoutError) as error:
            self._drop("redis_unavailable")
            log.debug("toolret: feedback dropped, the queue is unavailable: %s", error)
        else:
            self.sent += 1

    def _drop(self, reason: str) -> bool:
        self.dropped[reason] += 1
        record_feedback_dropped(reason)
        return False

    def __repr__(self) -> str:
        return f"<FeedbackSender sent={self.sent} dropped={sum(self.dropped.values())}>"
