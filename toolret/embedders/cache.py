"""A small, bounded cache of query embeddings keyed by model and text.

A ReAct loop runs up to 25 rounds on the same message; with this cache only the first round
pays for an embedding.
"""

from __future__ import annotations

from collections.abc import Sequence

from cachetools import LRUCache

from toolret.embedders.base import Embedder, Vector, Vectors
from toolret.profile import RetrievalProfile, profile_of
from toolret.tool import Role

__all__ = ["CachingEmbedder", "with_query_cache"]


class CachingEmbedder:
    """Wraps an embedder; repeated ``embed_query`` calls for one text cost a dictionary look-up."""

    def __init__(self, inner: Embedder, maxsize: int = 256) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.dimension: int = inner.dimension
        self.example_role: Role = inner.example_role
        self.profile: RetrievalProfile = profile_of(inner)
        self._cache: LRUCache[tuple[str, str], Vector] = LRUCache(maxsize=maxsize)
        self.hits = 0
        self.misses = 0

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self.inner.embed_documents(texts)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self.inner.embed_queries(texts)

    async def embed_query(self, text: str) -> Vector:
        key = (self.model_id, text)
        cached = self._cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        vector = await self.inner.embed_query(text)
        self._cache[key] = vector
        return vector

    async def aclose(self) -> None:
        await self.inner.aclose()


def with_query_cache(embedder: Embedder) -> Embedder:
    """``embedder`` behind a query cache (itself when it already has one)."""
    return embedder if isinstance(embedder, CachingEmbedder) else CachingEmbedder(embedder)
