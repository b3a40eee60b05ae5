"""The in-memory retriever: the same ``select`` as the database client, with no database.

Dense (cosine over vectors held in this process, each tool scored by its embedder's
``ToolScore``, exactly as the client's SQL scores it), ``bm25``, or ``hybrid``: the dense score
plus a lexical weight x BM25 (``toolret.retrieval._lexical.fuse``, the weight following the
message: ``hybrid_weight``) when the message shares informative words with the catalog, and the
dense ranking alone when it does not. Every mode binds ``k`` tools. Vectors are built on first
use per catalog; concurrent first turns share one in-flight build, and a turn never waits for it
longer than half its time budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Unpack

import numpy as np
from numpy.typing import NDArray

from toolret._catalog import Catalog
from toolret._profile import ToolScore, corpus_documents, corpus_hash, profile_of
from toolret._tool import Document, Role
from toolret.embedders._base import Embedder, Vector, Vectors, embed_role
from toolret.errors import NotIndexedError
from toolret.retrieval._base import Retriever, RetrieverOptions
from toolret.retrieval._centring import Centring, description_groups
from toolret.retrieval._lexical import catalog_index, hybrid_weight
from toolret.retrieval._overlap import together
from toolret.retrieval._selection import Ranking
from toolret.retrieval._signals import combine
from toolret.retrieval._sparse import (
    SparseIndex,
    catalog_languages,
    described_languages,
    example_languages,
    sparse_in_use,
    sparse_query_within,
    sparse_weight,
)

__all__ = ["DenseIndex", "InMemoryRetriever"]

ROLES: tuple[Role, ...] = ("document", "query")


@dataclass(frozen=True)
class DenseIndex:
    """Every document vector of one catalog, which tool each belongs to, and how they combine.

    ``descriptions`` holds one vector per tool (catalog order); ``examples`` every example
    vector, ``owners`` the tool of each. A document repeated
    within one tool counts once, as in the store, whose corpus holds each (tool, key) once.
    """

    names: tuple[str, ...]
    descriptions: Vectors
    examples: Vectors
    owners: NDArray[np.intp]
    score: ToolScore

    @classmethod
    async def build(cls, catalog: Catalog, embedder: Embedder) -> DenseIndex:
        """Embed the catalog's documents as ``embedder``'s profile writes them (for a cut, the
        whole catalog's: the cut ranks from its corpus)."""
        catalog = catalog.whole
        documents = _distinct(corpus_documents(catalog, embedder))
        vectors: dict[str, Vector] = {}
        for role in ROLES:
            texts = {d.key: d.text for _, d in documents if d.role == role}  # each key once
            embedded = await embed_role(embedder, list(texts.values()), role)
            vectors.update(zip(texts, embedded, strict=True))
        return cls.from_vectors(catalog.names, documents, vectors, profile_of(embedder).score)

    @classmethod
    def from_vectors(
        cls,
        names: Sequence[str],
        documents: Sequence[tuple[str, Document]],
        vectors: Mapping[str, Vector],
        score: ToolScore,
    ) -> DenseIndex:
        """An index over vectors already computed (by document key): ``names`` are the tools,
        ``documents`` their (tool, document) pairs, one description each."""
        documents = _distinct(documents)
        descriptions = {name: doc.key for name, doc in documents if doc.kind == "description"}
        examples = [(name, doc.key) for name, doc in documents if doc.kind == "example"]
        dimension = len(next(iter(vectors.values()))) if vectors else 0
        described = np.stack([vectors[descriptions[name]] for name in names])
        exemplified = (
            np.stack([vectors[key] for _, key in examples])
            if examples
            else np.empty((0, dimension), dtype=np.float32)
        )
        position = {name: i for i, name in enumerate(names)}
        owners = np.array([position[name] for name, _ in examples], dtype=np.intp)
        return cls(tuple(names), described, exemplified, owners, score)

    def scores(self, query: Vector) -> dict[str, float]:
        """Each tool's score for a query vector under ``score``."""
        combined = self.score_array(query)
        return {name: float(score) for name, score in zip(self.names, combined, strict=True)}

    def centring(self, catalog: Catalog) -> Centring | None:
        """The catalog's centring per description language (``toolret.retrieval._centring``)
        over these description vectors; None for a catalog described in one language."""
        groups = description_groups(catalog)
        if groups is None:
            return None
        position = {name: i for i, name in enumerate(self.names)}
        return Centring.build(groups, {n: self.descriptions[position[n]] for n in groups})

    def score_array(self, query: Vector) -> NDArray[np.float64]:
        """The tools' scores for a query vector, in ``names`` order."""
        described = (self.descriptions @ query).astype(np.float64)
        per_example = (self.examples @ query).astype(np.float64)
        return self.score.combine(described, per_example, self.owners)


def _distinct(documents: Sequence[tuple[str, Document]]) -> list[tuple[str, Document]]:
    """Each (tool, document key) once, first occurrence kept (the store's corpus does the same)."""
    kept: dict[tuple[str, str], tuple[str, Document]] = {}
    for name, doc in documents:
        kept.setdefault((name, doc.key), (name, doc))
    return list(kept.values())


class InMemoryRetriever(Retriever):
    """Selects tools for a message with vectors held in this process.

    ``embedder``, ``mode``, ``k``, ``time_budget`` and ``reuse`` as every ``Retriever``'s;
    ``mode="bm25"`` needs no embedder at all.
    """

    def __init__(
        self, embedder: Embedder | None = None, **options: Unpack[RetrieverOptions]
    ) -> None:
        super().__init__(embedder=embedder, **options)
        self._dense: dict[str, asyncio.Task[DenseIndex]] = {}
        self._sparse: dict[str, asyncio.Task[SparseIndex]] = {}
        self._centrings: dict[str, Centring | None] = {}

    async def index(self, catalog: Catalog) -> None:
        """Embed the catalog now, rather than on its first ``select``: its dense vectors, and
        its sparse ones when the embedder's profile has a sparse signal."""
        if self.mode != "bm25":
            if self._settings.centring:
                description_groups(catalog)  # the languages centring reads, once, here
            await self._dense_task(catalog)
            if sparse_in_use(catalog, profile_of(self.embedder)):
                for languages in (catalog_languages, described_languages, example_languages):
                    languages(catalog)  # what the gate reads, computed once here
                await self._sparse_task(catalog)

    def index_soon(self, catalog: Catalog) -> asyncio.Task[None]:
        """``index(catalog)`` as a task of the running loop, its dense build started at once
        (what ``select`` will wait for), so a turn arriving next finds it under way."""
        if self.mode != "bm25":
            self._dense_task(catalog)
        return asyncio.ensure_future(self.index(catalog))

    def indexing_state(self, catalog: Catalog) -> str:
        """How far embedding ``catalog`` got in this retriever, in words (for a log line)."""
        task = self._dense.get(corpus_hash(catalog, self.embedder)) if self.mode != "bm25" else None
        if task is None:
            return "indexing has not started"
        if not task.done():
            documents = len(corpus_documents(catalog.whole, self.embedder))
            return f"embedding its {documents} documents"
        if task.cancelled() or task.exception() is not None:
            return "indexing failed; the next selection tries again"
        return "indexed"

    async def _rank(self, catalog: Catalog, text: str, k: int, exclude: frozenset[str]) -> Ranking:
        """Every candidate scored (so ``k`` and ``exclude`` need no care here); raises on
        failure. The sparse signal joins for the messages its profile gives it to, once the
        catalog's sparse vectors are built (``index``, or on first need: until then, without)."""
        profile = profile_of(self.embedder)
        weight = 0.0

        async def sparse_scores() -> dict[str, float] | None:
            nonlocal weight
            weight = sparse_weight(catalog, text, profile)
            return await self._sparse_scores(catalog, text) if weight > 0 else None

        dense, sparse = await together(  # the passes overlap: toolret.retrieval._overlap
            self._dense_scores(catalog, text), sparse_scores()
        )
        lexical, lexical_weight = {}, 0.0
        if self.mode == "hybrid":
            lexical = catalog_index(catalog).evidence(text)
            lexical_weight = hybrid_weight(catalog, text, profile)
        scores, parts = combine(dense, sparse, weight, lexical, lexical_weight)
        return Ranking(scores, parts=parts)

    async def _release(self) -> None:
        """Cancel in-flight builds."""
        for task in (*self._dense.values(), *self._sparse.values()):
            task.cancel()
        self._dense.clear()
        self._sparse.clear()
        self._centrings.clear()

    async def _sparse_scores(self, catalog: Catalog, text: str) -> dict[str, float] | None:
        """The tools' sparse scores, or None while the catalog's sparse vectors are being built
        (waited for up to half the time budget, as the dense ones) or when the message's sparse
        pass takes more than its share of the budget (``sparse_query_within``)."""
        task = self._sparse_task(catalog)
        if not task.done():
            await asyncio.wait({task}, timeout=self.time_budget / 2)
            if not task.done():
                return None
        index = task.result()
        profile = profile_of(self.embedder)
        with self._calling_embedder():
            vector = await sparse_query_within(self.embedder, text, profile, self.time_budget)
        if vector is None:  # past its share of the budget: dense and BM25 alone
            return None
        scores = dict(zip(index.names, index.score_array(vector).tolist(), strict=True))
        if catalog.whole is catalog:
            return scores
        return {name: score for name, score in scores.items() if name in catalog}

    def _sparse_task(self, catalog: Catalog) -> asyncio.Task[SparseIndex]:
        embedder = self.embedder
        key = corpus_hash(catalog, embedder)
        task = self._sparse.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = self._sparse[key] = asyncio.ensure_future(
                SparseIndex.build(catalog.whole, embedder)
            )
        return task

    async def _dense_scores(self, catalog: Catalog, text: str) -> dict[str, float]:
        """The tools' dense scores, centred per description language on a catalog described in
        several (``toolret.retrieval._centring``); raises at once while the embedder is known
        down, before waiting on an index build that needs it too."""
        with self._calling_embedder():
            task = self._dense_task(catalog)
            if not task.done():
                await asyncio.wait({task}, timeout=self.time_budget / 2)
                if not task.done():
                    key = corpus_hash(catalog, self.embedder)
                    raise NotIndexedError(
                        "the catalog is still being embedded",
                        model_id=self.embedder.model_id,
                        corpus_hash=key,
                    )
            vector = await self.embedder.embed_query(text)
            index = task.result()
            scores = index.scores(vector)
        key = corpus_hash(catalog, self.embedder)
        if key not in self._centrings:
            self._centrings[key] = index.centring(catalog) if self._settings.centring else None
        centring = self._centrings[key]
        if centring is not None and centring.applies_to(text):
            scores = centring.shift(scores, vector)
        if catalog.whole is catalog:
            return scores
        return {name: score for name, score in scores.items() if name in catalog}

    def _dense_task(self, catalog: Catalog) -> asyncio.Task[DenseIndex]:
        embedder = self.embedder
        key = corpus_hash(catalog, embedder)
        task = self._dense.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            build = DenseIndex.build(catalog.whole, embedder)
            task = self._dense[key] = asyncio.ensure_future(build)
        return task
