"""The embedder protocol: documents as documents, queries as queries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from toolret._tool import Role

__all__ = ["Embedder", "Vector", "Vectors", "embed_role", "l2_normalize"]

Vector = NDArray[np.float32]
"""One L2-normalized embedding, shape ``(dimension,)``."""
Vectors = NDArray[np.float32]
"""L2-normalized embeddings, shape ``(n, dimension)``."""


@runtime_checkable
class Embedder(Protocol):
    """An asynchronous embedding model.

    ``model_id`` names the model *and* its dimension (``gemini-embedding-001@768``): vectors
    are stored under it, so two dimensions of one model never mix. ``example_role`` says how
    this model embeds a tool's example requests (measured per model; see docs/quality.md). It may
    also declare a ``profile`` (``toolret._profile.RetrievalProfile``: document template, tool
    score, hybrid weight); without one it gets ``DEFAULT_PROFILE``.
    All returned vectors are float32 and L2-normalized, so a dot product is the cosine.

    Two members are optional, read with a default so existing embedders keep working:
    ``input_window`` (an ``InputWindow``: how much text the model reads; without it toolret
    cuts every text to ``DEFAULT_WINDOW``, in characters) and ``async def warm_up()`` (load
    the model or open a connection; retrievers call it when they open).
    """

    model_id: str
    dimension: int
    example_role: Role

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts as documents (Gemini ``RETRIEVAL_DOCUMENT``, E5 ``passage:``)."""
        ...

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Embed texts as queries (Gemini ``RETRIEVAL_QUERY``, E5 ``query:``)."""
        ...

    async def embed_query(self, text: str) -> Vector:
        """Embed one query."""
        ...

    async def aclose(self) -> None:
        """Release any resources (connections, threads)."""
        ...


async def embed_role(embedder: Embedder, texts: Sequence[str], role: Role) -> Vectors:
    """Embed texts in the given role."""
    if role == "query":
        return await embedder.embed_queries(texts)
    return await embedder.embed_documents(texts)


def l2_normalize(vectors: NDArray[np.floating] | Sequence[Sequence[float]]) -> Vectors:
    """Scale rows to unit length (zero rows stay zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    normalized: Vectors = np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)
    return normalized
