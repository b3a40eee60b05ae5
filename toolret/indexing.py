"""Indexing: embed the documents a model has no vector for yet, then publish the corpus.

Used inline (``ToolRetrievalClient.index``, ``toolret reindex``) and by the worker. A run:

1. takes the Postgres advisory lock of (model, corpus hash) — two processes on two machines
   never embed the same corpus twice: the second waits, then finds everything done;
2. records the corpus and that it was seen now (garbage collection keeps what is in use);
3. embeds only documents with no vector for this model (vectors are content-addressed, so an
   edited description costs one embedding), in batches, each committed as it is written — a
   crash keeps what was written and the rerun picks up there. Each text is cut to the model's
   input window, and any failure or vector of the wrong shape is an ``EmbedderError``
   (``toolret.embedders.guard``);
4. publishes the corpus in one transaction: readers see all of it or none of it;
5. makes sure the model's HNSW index exists — after the first publication, so a model's first
   corpus is indexed in one bulk build rather than one graph insert per row.

Idempotent: a second run embeds nothing and publishes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from toolret.catalog import Catalog
from toolret.embedders.base import Embedder, embed_role
from toolret.embedders.guard import guarded
from toolret.profile import corpus_documents, corpus_hash as corpus_hash_of
from toolret.store.types import VectorRow
from toolret.store.vector_store import VectorStore
from toolret.tool import Document

__all__ = ["IndexReport", "Progress", "index_catalog"]

Progress = Callable[[int, int], None]
"""Called with (documents embedded so far, documents to embed) as batches are written."""


@dataclass(frozen=True)
class IndexReport:
    """What one indexing run did.

    ``documents``: distinct documents in the corpus; ``embedded``: how many this run embedded;
    ``reused``: how many already had a vector; ``published``: whether this run published the
    corpus (False when it already was); ``seconds``: wall time, lock wait included.
    """

    model_id: str
    corpus_hash: str
    documents: int
    embedded: int
    reused: int
    published: bool
    seconds: float


async def index_catalog(
    store: VectorStore,
    embedder: Embedder,
    catalog: Catalog,
    *,
    batch_size: int = 32,
    progress: Progress | None = None,
) -> IndexReport:
    """Embed what ``embedder``'s model has not embedded of ``catalog``, then publish it.

    Raises ``EmbedderError`` or ``StoreError``; what was written before the failure stays.
    """
    started = time.perf_counter()
    embedder = guarded(embedder)
    model_id = embedder.model_id
    corpus_hash = corpus_hash_of(catalog, embedder)
    pairs = corpus_documents(catalog, embedder)
    membership = [(name, doc.key) for name, doc in pairs]
    owners: dict[str, tuple[str, Document]] = {}
    for name, doc in pairs:
        owners.setdefault(doc.key, (name, doc))

    async with store.lock(model_id, corpus_hash):
        if await store.register(model_id, corpus_hash, membership):
            await store.ensure_index(model_id, embedder.dimension)
            return IndexReport(
                model_id, corpus_hash, len(owners), 0, len(owners), False, _since(started)
            )
        missing = await store.missing(model_id, owners.keys())
        todo = [owners[key] for key in owners if key in missing]
        if progress is not None:
            progress(0, len(todo))
        done = 0
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            rows: list[VectorRow] = []
            for role in ("document", "query"):
                group = [(name, doc) for name, doc in batch if doc.role == role]
                if not group:
                    continue
                embedded = await embed_role(embedder, [doc.text for _, doc in group], role)
                rows += [
                    VectorRow(doc.key, name, doc.role, doc.kind, doc.text, vector)
                    for (name, doc), vector in zip(group, embedded, strict=True)
                ]
            await store.write(model_id, rows)
            done += len(batch)
            if progress is not None:
                progress(done, len(todo))
        published = await store.publish(model_id, corpus_hash, membership)
    await store.ensure_index(model_id, embedder.dimension)
    return IndexReport(
        model_id,
        corpus_hash,
        len(owners),
        len(todo),
        len(owners) - len(todo),
        published,
        _since(started),
    )


def _since(started: float) -> float:
    return time.perf_counter() - started
