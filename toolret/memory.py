"""The in-memory retriever: the same ``select`` as the database client, with no database.

Dense (cosine over vectors held in this process), ``bm25`` or ``hybrid`` (the union of the
lexical and dense top-k, seed 002). Vectors are built on first use per catalog; concurrent first
turns share one in-flight build, and a turn never waits for it longer than half its time budget.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolret.catalog import Catalog
from toolret.embedders.base import Embedder, Vector, Vectors, embed_role
from toolret.embedders.cache import with_query_cache
from toolret.embedders.guard import warm_up_quietly
from toolret.errors import ConfigurationError, EmbedderUnavailableError, NotIndexedError
from toolret.lexical import BM25Index
from toolret.selection import (
    MAX_DISCOVERED_TOOLS,
    Ranking,
    Selection,
    SelectionPolicy,
    discover,
    select_guarded,
    top_k,
)
from toolret.settings import RetrievalMode, Settings, make_embedder
from toolret.tool import Tool

__all__ = ["DenseIndex", "InMemoryRetriever"]

log = logging.getLogger("toolret")

MODES = ("dense", "bm25", "hybrid")


@dataclass(frozen=True)
class DenseIndex:
    """Every document vector of one catalog, and the tool each belongs to."""

    names: tuple[str, ...]
    vectors: Vectors
    owners: NDArray[np.intp]

    @classmethod
    async def build(cls, catalog: Catalog, embedder: Embedder) -> DenseIndex:
        docs = catalog.documents(embedder.example_role)
        rows: list[Vectors] = []
        for role in ("document", "query"):
            texts = [doc.text for _, doc in docs if doc.role == role]
            rows.append(await embed_role(embedder, texts, role))
        ordered = [name for name, doc in docs if doc.role == "document"]
        ordered += [name for name, doc in docs if doc.role == "query"]
        position = {name: i for i, name in enumerate(catalog.names)}
        owners = np.array([position[name] for name in ordered], dtype=np.intp)
        return cls(tuple(catalog.names), np.concatenate(rows), owners)

    def scores(self, query: Vector) -> dict[str, float]:
        """Each tool's best cosine over its description and examples."""
        per_doc = self.vectors @ query
        best = np.full(len(self.names), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.owners, per_doc)
        return {name: float(score) for name, score in zip(self.names, best, strict=True)}


class InMemoryRetriever:
    """Selects tools for a message with vectors held in this process.

    ``embedder`` defaults to the one the environment configures (Gemini with a key, else the
    bundled model); ``mode="bm25"`` needs no embedder at all. ``mode``, ``k`` and
    ``time_budget`` default to the environment's (``TOOLRET_MODE``, ``TOOLRET_K``,
    ``TOOLRET_TIME_BUDGET_MS``), as the client's do.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        mode: RetrievalMode | None = None,
        k: int | None = None,
        time_budget: float | None = None,
    ) -> None:
        settings = Settings()
        mode = settings.mode if mode is None else mode
        if mode not in MODES:
            raise ConfigurationError(f"unknown retrieval mode {mode!r}; use one of {MODES}")
        self.mode = mode
        self.k = settings.k if k is None else k
        self.time_budget = settings.time_budget if time_budget is None else time_budget
        self._embedder = embedder if embedder is None else with_query_cache(embedder)
        self._dense: dict[str, asyncio.Task[DenseIndex]] = {}
        self._lexical: dict[str, BM25Index] = {}

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
        )

    async def rank(self, catalog: Catalog, text: str, k: int | None = None) -> Ranking:
        """Score the catalog's candidates for ``text``; raises on failure."""
        k = self.k if k is None else k
        if self.mode == "bm25":
            return Ranking(self._bm25_scores(catalog, text))
        dense = await self._dense_scores(catalog, text)
        if self.mode == "dense":
            return Ranking(dense)
        lexical = self._bm25_scores(catalog, text)
        union = set(top_k(catalog, dense, k)) | set(top_k(catalog, lexical, k))
        return Ranking(dense, chosen=tuple(union))

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

    def _bm25_scores(self, catalog: Catalog, text: str) -> dict[str, float]:
        key = catalog.corpus_hash("bm25")
        index = self._lexical.get(key)
        if index is None:
            index = self._lexical[key] = BM25Index(catalog.tools)
        return dict(zip(index.names, index.scores(text).tolist(), strict=True))

    async def _dense_scores(self, catalog: Catalog, text: str) -> dict[str, float]:
        task = self._dense_task(catalog)
        if not task.done():
            await asyncio.wait({task}, timeout=self.time_budget / 2)
            if not task.done():
                key = catalog.corpus_hash(self.embedder.model_id, self.embedder.example_role)
                raise NotIndexedError(
                    "the catalog is still being embedded",
                    model_id=self.embedder.model_id,
                    corpus_hash=key,
                )
        index = task.result()
        return index.scores(await self.embedder.embed_query(text))

    def _dense_task(self, catalog: Catalog) -> asyncio.Task[DenseIndex]:
        embedder = self.embedder
        key = catalog.corpus_hash(embedder.model_id, embedder.example_role)
        task = self._dense.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = self._dense[key] = asyncio.ensure_future(DenseIndex.build(catalog, embedder))
        return task
