"""Embedders for tests: real ones wrapped to count calls, and ones that fail on purpose.

They implement the public ``Embedder`` protocol (the plug-in point users implement too), so
nothing inside toolret is patched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Sequence

import numpy as np

from toolret import BundledE5Embedder, EmbedderError, EmbedderUnavailableError
from toolret._profile import SPARSE_PROFILE, RetrievalProfile
from toolret._tool import Role
from toolret.embedders._base import Vector, Vectors
from toolret.embedders._sparse import SparseHead, SparseVector


class CountingEmbedder:
    """The bundled model, counting every text it embeds."""

    def __init__(self) -> None:
        self.inner = BundledE5Embedder()
        self.model_id = self.inner.model_id
        self.dimension = self.inner.dimension
        self.example_role: Role = self.inner.example_role
        self.profile: RetrievalProfile = self.inner.profile
        self.documents: list[str] = []
        self.queries: list[str] = []

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.documents.extend(texts)
        return await self.inner.embed_documents(texts)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.queries.extend(texts)
        return await self.inner.embed_queries(texts)

    async def embed_query(self, text: str) -> Vector:
        self.queries.append(text)
        return await self.inner.embed_query(text)

    async def aclose(self) -> None:
        await self.inner.aclose()


class ProfiledEmbedder(CountingEmbedder):
    """The bundled model, declaring another example role and ``RetrievalProfile``."""

    def __init__(self, example_role: Role, profile: RetrievalProfile) -> None:
        super().__init__()
        self.example_role = example_role
        self.profile = profile


class BrokenQueries(CountingEmbedder):
    """Embeds documents, then fails every query with ``error``."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    async def embed_query(self, text: str) -> Vector:
        raise self.error


class HangingQueries(CountingEmbedder):
    """Embeds documents; every query waits forever."""

    async def embed_query(self, text: str) -> Vector:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class GatedDocuments(CountingEmbedder):
    """Document embedding waits until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        await self.release.wait()
        return await super().embed_documents(texts)


def unavailable() -> BrokenQueries:
    return BrokenQueries(EmbedderUnavailableError("no key configured", model_id="x"))


def erroring() -> BrokenQueries:
    return BrokenQueries(EmbedderError("provider returned 500", model_id="x"))


class WrongDimension(CountingEmbedder):
    """Declares the bundled model's dimension, returns one dimension fewer (``documents`` too,
    if asked)."""

    def __init__(self, *, documents: bool = False) -> None:
        super().__init__()
        self.wrong_documents = documents

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        vectors = await super().embed_documents(texts)
        return vectors[:, :-1] if self.wrong_documents else vectors

    async def embed_query(self, text: str) -> Vector:
        return (await super().embed_query(text))[:-1]


class WarmingUp(CountingEmbedder):
    """Counts ``warm_up`` calls; raises ``error`` from it when given one."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__()
        self.error = error
        self.warm_ups = 0

    async def warm_up(self) -> None:
        self.warm_ups += 1
        if self.error is not None:
            raise self.error
        await self.inner.warm_up()


class HashEmbedder:
    """Not a model: each (role, text) becomes a fixed random unit vector, seeded by its hash.

    For tests about exactness at sizes the bundled model would take minutes to index (a
    thousand tools): what is ranked is test data, as the store tests' random vectors are."""

    model_id = "hash@384"
    dimension = 384
    example_role: Role = "query"

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return _stack([_hashed("document", text) for text in texts])

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return _stack([_hashed("query", text) for text in texts])

    async def embed_query(self, text: str) -> Vector:
        return _hashed("query", text)

    async def aclose(self) -> None:
        pass


def _stack(vectors: list[Vector]) -> Vectors:
    return np.stack(vectors) if vectors else np.empty((0, 384), dtype=np.float32)


def _hashed(role: str, text: str) -> Vector:
    seed = int.from_bytes(hashlib.sha256(f"{role}\x00{text}".encode()).digest()[:8], "big")
    vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    unit: Vector = vector / np.linalg.norm(vector)
    return unit


class SparseCountingEmbedder(CountingEmbedder):
    """The bundled model ranking with its sparse head (``SPARSE_PROFILE``), counting the texts
    it gives sparse vectors."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = BundledE5Embedder(sparse=True)
        self.profile = self.inner.profile
        self.sparse_head = self.inner.sparse_head
        self.sparse_texts: list[str] = []

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        self.sparse_texts.extend(texts)
        return await self.inner.embed_sparse(texts, role)

    def inner_without_head(self) -> CountingEmbedder:
        """The same model without its sparse head: a toolret from before it."""
        return CountingEmbedder()


class StalledSparseEmbedder(SparseCountingEmbedder):
    """``SparseCountingEmbedder`` whose message sparse pass, once ``stalled``, never answers:
    a model thread stuck behind other work, for the selection's share of the budget."""

    def __init__(self) -> None:
        super().__init__()
        self.stalled = False

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        if self.stalled and role == "query":
            await asyncio.Event().wait()  # cancelled by the caller's share of the budget
        return await super().embed_sparse(texts, role)


class HashSparseEmbedder(HashEmbedder):
    """``HashEmbedder`` with a sparse head: each text's sparse vector holds 40 of the first
    ``pool`` latents, picked and weighted by its hash. A small pool makes many tools share
    latents with a message, so the sparse scan's bound is loose and rankings take a second
    round (``toolret.store._sparse_read``)."""

    sparse_head = SparseHead("hash-sparse", 16384, 1000)
    profile = dataclasses.replace(SPARSE_PROFILE, sparse_when="always")

    def __init__(self, pool: int = 120) -> None:
        self.pool = pool

    async def embed_sparse(self, texts: Sequence[str], role: Role) -> list[SparseVector]:
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(f"sparse\x00{text}".encode()).digest()[:8], "big")
            rng = np.random.default_rng(seed)
            indices = rng.choice(self.pool, size=40, replace=False)
            out.append(SparseVector.of(indices, rng.random(40) + 0.01, 16384))
        return out
