"""The in-memory retriever: the same ``select`` as the database client, with no database.

Dense (cosine over vectors held in this process, each tool scored by its embedder's
``ToolScore``, exactly as the client's SQL scores it), ``bm25``, or ``hybrid``: the dense score
plus a lexical weight x BM25 (``toolret.retrieval._lexical.fuse``, the weight following the
message: ``hybrid_weight``) when the message shares informative words with the catalog, and
the dense ranking alone when it does not. Every mode
binds ``k`` tools. Vectors are built on first use per catalog; concurrent first turns share one
in-flight build, and a turn never waits for it longer than half its time budget.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolret._catalog import Catalog
from toolret._profile import ToolScore, corpus_documents, corpus_hash, profile_of
from toolret._settings import RetrievalMode, Settings, make_embedder, retrieval_mode
from toolret._tool import Document, Role, Tool
from toolret.embedders._base import Embedder, Vector, Vectors, embed_role
from toolret.embedders._cache import with_query_cache
from toolret.embedders._guard import warm_up_quietly
from toolret.errors import EmbedderUnavailableError, NotIndexedError
from toolret.retrieval._lexical import catalog_index, fuse, hybrid_weight
from toolret.retrieval._reuse import REUSE_SECONDS, RecentSelections
from toolret.retrieval._selection import (
    MAX_DISCOVERED_TOOLS,
    FailOpenLog,
    Ranking,
    Selection,
    SelectionPolicy,
    discover,
    select_guarded,
)

__all__ = ["DenseIndex", "InMemoryRetriever"]

log = logging.getLogger("toolret.selection")

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
        """Embed the catalog's documents as ``embedder``'s profile writes them."""
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


class InMemoryRetriever:
    """Selects tools for a message with vectors held in this process.

    ``embedder`` defaults to the one the environment configures (Gemini with a key, else the
    bundled model); ``mode="bm25"`` needs no embedder at all. ``mode``, ``k`` and
    ``time_budget`` default to the environment's (``TOOLRET_MODE``, ``TOOLRET_K``,
    ``TOOLRET_TIME_BUDGET_MS``), as the client's do; ``reuse`` is how long a selection answers
    the same message again (the rounds of a turn; ``toolret.retrieval._reuse``), as the client's.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        mode: RetrievalMode | None = None,
        k: int | None = None,
        time_budget: float | None = None,
        reuse: float = REUSE_SECONDS,
    ) -> None:
        settings = Settings()
        self.mode: RetrievalMode = retrieval_mode(settings.mode if mode is None else mode)
        self.k = settings.k if k is None else k
        self.time_budget = settings.time_budget if time_budget is None else time_budget
        self._embedder = embedder if embedder is None else with_query_cache(embedder)
        self._dense: dict[str, asyncio.Task[DenseIndex]] = {}
        self._selections = RecentSelections(reuse)
        self._fail_open_log = FailOpenLog()

    @property
    def embedder(self) -> Embedder:
        """The embedder in use, created from settings on first use."""
        if self._embedder is None:
            try:
                self._embedder = with_query_cache(make_embedder())
            except Exception as error:
                raise EmbedderUnavailableError(f"no embedder: {error}") from error
        return self._embedder

    async def index(self, catalog: Catalog) -> None:
        """Embed the catalog now, rather than on its first ``select``."""
        if self.mode != "bm25":
            await self._dense_task(catalog)

    async def select(
        self,
        catalog: Catalog,
        message: str,
        *,
        resume: bool = False,
        k: int | None = None,
        stable: SelectionPolicy | None = None,
    ) -> Selection:
        """Core tools plus the best ``k`` for ``message``; the full roster on any failure.

        ``stable`` (a ``StableToolList``, one per conversation) sends the conversation's growing
        list instead, so the provider's prompt cache holds."""
        k = self.k if k is None else k
        return await select_guarded(
            catalog,
            message,
            lambda text: self.rank(catalog, text, k),
            k=k,
            time_budget=self.time_budget,
            resume=resume,
            stable=stable,
            recent=self._selections,
            fail_open_log=self._fail_open_log,
        )

    async def rank(self, catalog: Catalog, text: str, k: int | None = None) -> Ranking:
        """Score the catalog's candidates for ``text``; raises on failure."""
        if self.mode == "bm25":
            return Ranking(catalog_index(catalog).score_map(text))
        dense = await self._dense_scores(catalog, text)
        if self.mode == "dense":
            return Ranking(dense)
        lexical = catalog_index(catalog).evidence(text)
        weight = hybrid_weight(catalog, text, profile_of(self.embedder))
        return Ranking(fuse(dense, lexical, weight))

    async def find_tools(
        self,
        catalog: Catalog,
        capability: str,
        *,
        bound: Iterable[str] = (),
        limit: int = MAX_DISCOVERED_TOOLS,
    ) -> list[Tool]:
        """At most ``limit`` tools for a capability phrase, none already bound, best first."""
        return await discover(
            catalog,
            capability,
            lambda text: self.rank(catalog, text, limit),
            bound=bound,
            limit=limit,
            time_budget=self.time_budget,
        )

    async def aclose(self) -> None:
        """Cancel in-flight builds and close the embedder."""
        for task in self._dense.values():
            task.cancel()
        self._dense.clear()
        if self._embedder is not None:
            await self._embedder.aclose()

    async def __aenter__(self) -> InMemoryRetriever:
        """Warm the embedder up (load the bundled model) unless the mode needs none; a failure
        is logged, never raised."""
        if self.mode != "bm25":
            await warm_up_quietly(lambda: self.embedder)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _dense_scores(self, catalog: Catalog, text: str) -> dict[str, float]:
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
        index = task.result()
        return index.scores(await self.embedder.embed_query(text))

    def _dense_task(self, catalog: Catalog) -> asyncio.Task[DenseIndex]:
        embedder = self.embedder
        key = corpus_hash(catalog, embedder)
        task = self._dense.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = self._dense[key] = asyncio.ensure_future(DenseIndex.build(catalog, embedder))
        return task
