"""A small, bounded cache of query embeddings keyed by model and text.

A ReAct loop runs up to 25 rounds on the same message; with this cache only the first round
pays for an embedding. ``with_query_cache`` gives the retrievers their embedder: guarded
(``toolret.embedders._guard``: input cut to the window, failures as ``EmbedderError``, shapes
checked), then cached.
"""

from __future__ import annotations

from collections.abc import Sequence

from cachetools import LRUCache

from toolret._profile import RetrievalProfile, profile_of
from toolret._tool import Role
from toolret.embedders._base import Embedder, Vector, Vectors
from toolret.embedders._guard import GuardedEmbedder, guarded, warm_up
from toolret.embedders._sparse import SparseHead, SparseVector, sparse_head_of
from toolret.embedders._window import window_of

__all__ = ["CachingEmbedder", "with_query_cache"]


class CachingEmbedder:
    """Wraps an embedder; repeated ``embed_query`` calls for one text cost a dictionary look-up."""

    def __init__(self, inner: Embedder, maxsize: int = 256) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.dimension: int = inner.dimension
        self.example_role: Role = inner.example_role
        self.profile: RetrievalProfile = profile_of(inner)
        self.sparse_head: SparseHead | None = sparse_head_of(inner)
        self._cache: LRUCache[tuple[str, str], Vector] = LRUCache(maxsize=maxsize)
        self._sparse: LRUCache[tuple[str, str], SparseVector] = LRUCache(maxsize=maxsize)
        self.hits = 0
        self.misses = 0

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self.inner.embed_documents(texts)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self.inner.embed_queries(texts)

    async def embed_query(self, text: str) -> Vector:
        # keyed by what the model reads: a 1 MB paste is not kept whole, and is the same query
        # as any other text with the same head and tail
        key = (self.model_id, window_of(self.inner).cut(text, "query"))
        cached = self._cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        vector = await self.inner.embed_query(text)
        self._cache[key] = vector
        return vector

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        """The wrapped embedder's sparse vectors; one query's is cached as its dense one is."""
        if role != "query" or len(texts) != 1:
            vectors: list[SparseVector] = await self.inner.embed_sparse(texts, role)  # type: ignore[attr-defined]
            return vectors
        key = (self.model_id, window_of(self.inner).cut(texts[0], "query"))
        cached = self._sparse.get(key)
        if cached is None:
            cached = self._sparse[key] = (await self.inner.embed_sparse(texts, role))[0]  # type: ignore[attr-defined]
        return [cached]

    async def warm_up(self) -> None:
        """Warm the wrapped embedder up, if it can be."""
        await warm_up(self.inner)

    def peek(self, text: str) -> Vector | None:
        """The cached query vector of ``text``, without embedding or counting: feedback reuses
        the vector a selection already paid for."""
        return self._cache.get((self.model_id, window_of(self.inner).cut(text, "query")))

    async def aclose(self) -> None:
        await self.inner.aclose()


def with_query_cache(embedder: Embedder) -> Embedder:
    """``embedder`` guarded and behind a query cache (itself when it already is)."""
    if isinstance(embedder, CachingEmbedder) and isinstance(embedder.inner, GuardedEmbedder):
        return embedder
    return CachingEmbedder(guarded(embedder))
