"""An embedder wrapper that embeds each (role, text) once per eval run.

The eval builds many retrievers over the same texts: three modes, with and without examples,
examples embedded as queries or as documents. Each retriever builds its own index, so without
this every one of them would re-embed the corpus. ``MemoEmbedder`` keeps every vector it has
computed, and ``variant`` makes a sibling that shares the memo but embeds examples in another
role or writes and scores documents by another ``RetrievalProfile``: how the studies compare
templates, roles and scores on one set of vectors. ``save`` and ``load`` keep the vectors in a
file between runs (``toolret recall DIR --memo FILE``), for one model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toolret._profile import RetrievalProfile, profile_of
from toolret._tool import Role
from toolret.embedders._base import Embedder, Vector, Vectors, embed_role
from toolret.embedders._sparse import SparseHead, SparseVector, sparse_head_of
from toolret.embedders._window import InputWindow, window_of

__all__ = ["MemoEmbedder"]


class MemoEmbedder:
    """Embeds through ``inner``, remembering every vector by role and text."""

    def __init__(
        self,
        inner: Embedder,
        *,
        example_role: Role | None = None,
        profile: RetrievalProfile | None = None,
        memo: dict[tuple[Role, str], Vector] | None = None,
        sparse: dict[tuple[Role, str], SparseVector] | None = None,
    ) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.dimension: int = inner.dimension
        self.example_role: Role = example_role or inner.example_role
        self.profile: RetrievalProfile = profile or profile_of(inner)
        self.sparse_head: SparseHead | None = sparse_head_of(inner)
        self.input_window: InputWindow = window_of(inner)
        """The wrapped model's: texts are cut as the retrievers cut them for it."""
        self._memo: dict[tuple[Role, str], Vector] = {} if memo is None else memo
        self._sparse: dict[tuple[Role, str], SparseVector] = {} if sparse is None else sparse

    def with_example_role(self, role: Role) -> MemoEmbedder:
        """The same model and memo, embedding tool examples in ``role``."""
        return self.variant(example_role=role)

    def variant(
        self, *, example_role: Role | None = None, profile: RetrievalProfile | None = None
    ) -> MemoEmbedder:
        """The same model and memo, with another example role or profile (else this one's)."""
        return MemoEmbedder(
            self.inner,
            example_role=example_role or self.example_role,
            profile=profile or self.profile,
            memo=self._memo,
            sparse=self._sparse,
        )

    def save(self, path: Path) -> None:
        """Write every vector computed so far to ``path`` (numpy's ``.npz``)."""
        keys = list(self._memo)
        vectors = np.stack([self._memo[key] for key in keys]) if keys else np.empty((0, 0))
        sparse = list(self._sparse.values())
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as out:
            np.savez(
                out,
                keys=json.dumps([self.model_id, keys]),
                vectors=vectors,
                sparse_keys=json.dumps(list(self._sparse)),
                sparse_sizes=np.array([v.nnz for v in sparse], dtype=np.int64),
                sparse_indices=np.concatenate(
                    [np.empty(0, np.int32), *(v.indices for v in sparse)]
                ),
                sparse_values=np.concatenate(
                    [np.empty(0, np.float32), *(v.values for v in sparse)]
                ),
                sparse_dimension=np.array([sparse[0].dimension if sparse else 0]),
            )

    def load(self, path: Path) -> int:
        """Add the vectors ``path`` holds for this model; how many (0 for another model's file,
        or none)."""
        if not path.is_file():
            return 0
        with np.load(path) as stored:
            model_id, keys = json.loads(str(stored["keys"]))
            if model_id != self.model_id:
                return 0
            for (role, text), vector in zip(keys, stored["vectors"], strict=True):
                self._memo.setdefault((role, text), vector.astype(np.float32))
            if "sparse_keys" in stored:
                self._load_sparse(stored)
        return len(keys)

    def _load_sparse(self, stored: Any) -> None:
        keys = json.loads(str(stored["sparse_keys"]))
        if not keys:
            return  # np.split of nothing is one empty part, not none
        dimension = int(stored["sparse_dimension"][0])
        ends = np.cumsum(stored["sparse_sizes"])
        indices = np.split(stored["sparse_indices"].astype(np.int32), ends[:-1])
        values = np.split(stored["sparse_values"].astype(np.float32), ends[:-1])
        for (role, text), index, value in zip(keys, indices, values, strict=True):
            self._sparse.setdefault((role, text), SparseVector(index, value, dimension))

    @property
    def embedded(self) -> int:
        """How many distinct (role, text) pairs were embedded so far."""
        return len(self._memo)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(texts, "document")

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._embed(texts, "query")

    async def embed_query(self, text: str) -> Vector:
        vectors = await self._embed([text], "query")
        vector: Vector = vectors[0]
        return vector

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        """The wrapped embedder's sparse vectors, each (role, text) computed once."""
        missing = [text for text in dict.fromkeys(texts) if (role, text) not in self._sparse]
        if missing:
            inner = self.inner.embed_sparse  # type: ignore[attr-defined]
            for text, vector in zip(missing, await inner(missing, role), strict=True):
                self._sparse[(role, text)] = vector
        return [self._sparse[(role, text)] for text in texts]

    async def aclose(self) -> None:
        """Close the wrapped embedder."""
        await self.inner.aclose()

    async def _embed(self, texts: Sequence[str], role: Role) -> Vectors:
        missing = [text for text in dict.fromkeys(texts) if (role, text) not in self._memo]
        if missing:
            vectors = await embed_role(self.inner, missing, role)
            for text, vector in zip(missing, vectors, strict=True):
                self._memo[(role, text)] = vector
        if not texts:
            return np.empty((0, self.dimension), dtype=np.float32)
        return np.stack([self._memo[(role, text)] for text in texts])
