"""The client's ranking with dense scores centred per description language.

Centring adds one number per (message, description group) to every dense score of the group
(``toolret.retrieval._centring``), so the best ``L`` tools by the centred score are among the
best ``L`` of each group by the store's own score (dense, or dense + weight x sparse): the
client asks the store for each group's best, as it asks for a catalog's (a ``CatalogQuery``
over the group's documents, the other groups' tools left out of an index scan as a cut's
are), and adds each group's shift (a catalog small enough for the exact statement: one
statement returning every candidate). No statement changes, and the store need not know any
tool's language: the client reads it from the catalog as the in-memory retriever does.

The groups' means need the description vectors: ``Centrings`` reads them once per published
corpus (``VectorStore.description_vectors``). Until the catalog's corpus is published (a new
catalog, or one being indexed) there is nothing to read, and the catalog is ranked as without
centring; it is asked again after ``RETRY_SECONDS``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Collection

from toolret._catalog import Catalog
from toolret._profile import corpus_documents
from toolret.embedders._base import Embedder, Vector
from toolret.retrieval._centring import Centring, description_groups, description_keys
from toolret.store._read import SparseQuery
from toolret.store._sql import CatalogQuery
from toolret.store._types import StoreRanking
from toolret.store._vector_store import VectorStore

__all__ = ["RETRY_SECONDS", "Centrings", "group_query", "rank_centred"]

RETRY_SECONDS = 10.0
"""How long a corpus found unpublished is ranked without centring before it is read again."""


class Centrings:
    """Each published corpus's ``Centring`` (None: a catalog described in one language), read
    from the store once."""

    def __init__(self, store: VectorStore) -> None:
        self.store = store
        self._found: dict[tuple[str, str], Centring | None] = {}
        self._missing: dict[tuple[str, str], float] = {}

    async def get(
        self, catalog: Catalog, embedder: Embedder, query: CatalogQuery
    ) -> Centring | None:
        """The catalog's centring; None when it has one description language, or while its
        corpus is not published (read again ``RETRY_SECONDS`` later)."""
        key = (query.model_id, query.corpus_hash)
        if key in self._found:
            return self._found[key]
        groups = description_groups(catalog)
        if groups is None:
            self._found[key] = None
            return None
        if time.monotonic() < self._missing.get(key, -float("inf")):
            return None
        keys = description_keys(corpus_documents(catalog, embedder))
        wanted = {name: keys[name] for name in groups}
        vectors = await self.store.description_vectors(
            query.model_id, query.corpus_hash, set(wanted.values())
        )
        if not all(k in vectors for k in wanted.values()):
            self._missing[key] = time.monotonic() + RETRY_SECONDS
            return None
        self._found[key] = Centring.build(groups, {n: vectors[k] for n, k in wanted.items()})
        return self._found[key]


def group_query(query: CatalogQuery, members: frozenset[str]) -> CatalogQuery:
    """``query`` over the tools of ``members`` only: the others are outside it, as a cut's."""
    pairs = [(t, k) for t, k in zip(query.tools, query.keys, strict=True) if t in members]
    return dataclasses.replace(
        query,
        tools=tuple(t for t, _ in pairs),
        keys=tuple(k for _, k in pairs),
        candidates=query.candidates & members,
        outside=query.outside | (query.candidates - members),
    )


async def rank_centred(
    store: VectorStore,
    query: CatalogQuery,
    centring: Centring,
    vector: Vector,
    *,
    limit: int,
    exclude: Collection[str],
    include: Collection[str],
    sparse: SparseQuery | None,
) -> StoreRanking:
    """``VectorStore.rank`` by the centred score: each group's best ``limit`` (and the named
    tools of it), each dense score plus its group's shift. A catalog the store ranks exactly
    (up to its ``exact_limit`` documents) is one statement returning every candidate: it scores
    every document anyway, and a second round trip would cost more than the rows."""
    offsets = centring.offsets(vector)
    if query.documents <= store.exact_limit:
        found = await store.rank(
            query,
            vector,
            limit=len(query.candidates),
            exclude=exclude,
            include=include,
            sparse=sparse,
        )
        return dataclasses.replace(found, scores=centring.shift(found.scores, vector))
    scores: dict[str, float] = {}
    latent: dict[str, float] = {}
    unranked: list[str] = []
    published = ready = True
    named = set(include)
    for group in centring.groups:
        members = centring.members(group)
        if not query.candidates & members:
            continue
        found = await store.rank(
            group_query(query, members),
            vector,
            limit=limit,
            exclude=exclude,
            include=sorted(named & members),
            sparse=sparse,
        )
        scores.update((n, s + offsets[group]) for n, s in found.scores.items())
        latent.update(found.sparse)
        unranked += found.unranked
        published, ready = published and found.published, ready and found.sparse_ready
    return StoreRanking(scores, tuple(unranked), published, latent, ready)
