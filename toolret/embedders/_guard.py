"""An embedder as toolret uses it: bounded input, one kind of error, vectors of the right shape.

Both retrievers and the indexer call embedders through ``GuardedEmbedder``, so a user's embedder
is held to the same contract as the built-in ones:

- every text is cleaned and cut in characters to the embedder's ``input_window`` (or the
  default window) before it is sent; an embedder that counts tokens then cuts exactly;
- any exception that is not already a ``ToolretError`` becomes an ``EmbedderError`` naming the
  model (so both retrievers fail open with ``embedder_error``); a ``TimeoutError`` stays one;
- vectors of the wrong shape, or with non-finite values, are an ``EmbedderError`` too, rather
  than a database error or a silently wrong ranking.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from toolret._profile import RetrievalProfile, profile_of
from toolret._tool import Role
from toolret.embedders._base import Embedder, Vector, Vectors
from toolret.embedders._sparse import SparseHead, SparseVector, sparse_head_of
from toolret.embedders._window import InputWindow, window_of
from toolret.errors import EmbedderError, ToolretError

__all__ = ["WARM_UP_TIMEOUT", "GuardedEmbedder", "guarded", "warm_up"]

WARM_UP_TIMEOUT = 30.0
"""Seconds a retriever's warm-up (in the background, from ``async with``) may take before it
counts as failed (the bundled model: ~1 s). Opening never waits for it."""


class GuardedEmbedder:
    """Wraps an embedder: texts cut to its window, failures as ``EmbedderError``, shapes checked."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.dimension: int = inner.dimension
        self.example_role: Role = inner.example_role
        self.profile: RetrievalProfile = profile_of(inner)
        self.sparse_head: SparseHead | None = sparse_head_of(inner)

    @property
    def input_window(self) -> InputWindow:
        """The wrapped embedder's window (read on each call: it may be replaced)."""
        return window_of(self.inner)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        cut = self._cut(texts, "document")
        with self._foreign_errors():
            vectors = await self.inner.embed_documents(cut)
        return self._check(vectors, len(cut))

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        cut = self._cut(texts, "query")
        with self._foreign_errors():
            vectors = await self.inner.embed_queries(cut)
        return self._check(vectors, len(cut))

    async def embed_query(self, text: str) -> Vector:
        with self._foreign_errors():
            vector = await self.inner.embed_query(self.input_window.cut(text, "query"))
        checked: Vector = self._check(vector, None)
        return checked

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        """The wrapped embedder's sparse vectors, texts cut as for ``role``; an embedder without
        a sparse head raises ``EmbedderError``."""
        head = self.sparse_head
        if head is None:
            raise EmbedderError(f"{self.model_id} has no sparse head", model_id=self.model_id)
        cut = self._cut(texts, role)
        with self._foreign_errors():
            vectors: list[SparseVector] = await self.inner.embed_sparse(cut, role)  # type: ignore[attr-defined]
        if len(vectors) != len(cut) or any(
            v.dimension != head.dimension or not np.isfinite(v.values).all() for v in vectors
        ):
            raise EmbedderError(
                f"{self.model_id} returned sparse vectors that do not match its head {head}",
                model_id=self.model_id,
            )
        return vectors

    async def warm_up(self) -> None:
        """Warm the wrapped embedder up, if it can be (see ``warm_up``)."""
        with self._foreign_errors():
            await warm_up(self.inner)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _cut(self, texts: Sequence[str], role: Role) -> list[str]:
        window = self.input_window
        return [window.cut(text, role) for text in texts]

    @contextmanager
    def _foreign_errors(self) -> Iterator[None]:
        try:
            yield
        except (ToolretError, TimeoutError):
            raise
        except Exception as error:
            raise EmbedderError(
                f"{self.model_id} failed: {error!r}", model_id=self.model_id
            ) from error

    def _check(self, vectors: object, count: int | None) -> Vectors:
        expected = (self.dimension,) if count is None else (count, self.dimension)
        shape = getattr(vectors, "shape", None)
        if shape != expected:
            raise EmbedderError(
                f"{self.model_id} returned vectors of shape {shape}, expected {expected}; "
                "check that the embedder's dimension attribute matches its model",
                model_id=self.model_id,
            )
        array = np.asarray(vectors, dtype=np.float32)
        if not np.isfinite(array).all():
            raise EmbedderError(
                f"{self.model_id} returned non-finite vector values", model_id=self.model_id
            )
        return array

    def __repr__(self) -> str:
        return f"GuardedEmbedder({self.inner!r})"


def guarded(embedder: Embedder) -> GuardedEmbedder:
    """``embedder`` behind a guard (itself when it already is one)."""
    return embedder if isinstance(embedder, GuardedEmbedder) else GuardedEmbedder(embedder)


async def warm_up(embedder: object) -> None:
    """Call the embedder's optional ``warm_up()`` (load a model, open a connection); an
    embedder without one has nothing to warm."""
    method = getattr(embedder, "warm_up", None)
    if callable(method):
        await method()
