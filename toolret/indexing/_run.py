"""Indexing: embed the documents a model has no vector for yet, then publish the corpus.

Used inline (``ToolRetrievalClient.index``, ``toolret reindex``) and by the worker. A run:

1. takes the Postgres advisory lock of (model, corpus hash) — two processes on two machines
   never embed the same corpus twice: the second waits, then finds everything done;
2. records the corpus and that it was seen now (garbage collection keeps what is in use);
3. embeds only documents with no vector for this model (vectors are content-addressed, so an
   edited description costs one embedding), in batches, each committed as it is written — a
   crash keeps what was written and the rerun picks up there. Each text is cut to the model's
   input window, and any failure or vector of the wrong shape is an ``EmbedderError``
   (``toolret.embedders._guard``);
4. publishes the corpus in one transaction: readers see all of it or none of it — with a
   blended score, its tools' summary vectors too (``toolret.store._summaries``);
5. makes sure the model's HNSW index exists (over its summary vectors for a blended score, its
   documents for ``max``) — after the first publication, so a model's first corpus is indexed
   in one bulk build rather than one graph insert per row;
6. for a model with a sparse head whose profile uses it, encodes the sparse vectors its
   documents lack (a second pass of the encoder each), lists the head on the corpus, and makes
   sure the head's index exists (``toolret.store._sparse_write``). A corpus published before
   gets them on its next run: that is how an existing deployment gains the sparse signal.

Idempotent: a second run embeds nothing and publishes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from toolret._catalog import Catalog
from toolret._profile import corpus_documents, corpus_hash as corpus_hash_of, profile_of
from toolret._tool import Document
from toolret.embedders._base import Embedder, embed_role
from toolret.embedders._guard import guarded
from toolret.embedders._sparse import sparse_head_of
from toolret.retrieval._sparse import sparse_documents, sparse_in_use
from toolret.store._summaries import SummaryBuilder
from toolret.store._types import VectorRow
from toolret.store._vector_store import VectorStore

__all__ = ["BATCH_SIZE", "IndexReport", "Progress", "index_catalog"]

BATCH_SIZE = 128
"""Documents embedded (and written) together. Each batch's model calls end in a part-filled
chunk, a quarter as many at 128 as at 32; how close indexing comes to the model's own rate is
measured by ``python -m evals.perf.reindex``. A crash loses at most one batch."""

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
    sparse_encoded: int = 0
    """Documents whose sparse vectors this run encoded (a model with a sparse head)."""


async def index_catalog(
    store: VectorStore,
    embedder: Embedder,
    catalog: Catalog,
    *,
    batch_size: int = BATCH_SIZE,
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

    documents = [doc for _, doc in owners.values()]
    async with store.lock(model_id, corpus_hash):
        score = profile_of(embedder).score
        if await store.register(model_id, corpus_hash, membership):
            # published by a toolret from before summary vectors, or under another score
            await store.summarize(model_id, corpus_hash, score)
            await store.ensure_index(model_id, embedder.dimension, score=score)
            encoded = await _sparse(store, embedder, catalog, corpus_hash, documents, batch_size)
            return IndexReport(
                model_id, corpus_hash, len(owners), 0, len(owners), False, _since(started), encoded
            )
        missing = await store.missing(model_id, owners.keys())
        todo = [owners[key] for key in owners if key in missing]
        builder = SummaryBuilder(pairs, missing, score) if score.kind == "blend" else None
        await _embed_and_write(store, embedder, model_id, todo, batch_size, progress, builder)
        published = await store.publish(model_id, corpus_hash, membership, score=score)
    await store.ensure_index(model_id, embedder.dimension, score=score)
    async with store.lock(model_id, corpus_hash):
        encoded = await _sparse(store, embedder, catalog, corpus_hash, documents, batch_size)
    return IndexReport(
        model_id,
        corpus_hash,
        len(owners),
        len(todo),
        len(owners) - len(todo),
        published,
        _since(started),
        encoded,
    )


async def _sparse(
    store: VectorStore,
    embedder: Embedder,
    catalog: Catalog,
    corpus_hash: str,
    documents: list[Document],
    batch_size: int,
) -> int:
    """Encode and write the sparse vectors ``documents`` lack, list the head on the corpus, and
    make sure its index exists; how many were encoded (0 without a sparse head in use, or on a
    catalog too terse for the signal: ``sparse_in_use``)."""
    head, profile = sparse_head_of(embedder), profile_of(embedder)
    if head is None or not sparse_in_use(catalog, profile):
        return 0
    key, model_id = head.key(profile.sparse_latents), embedder.model_id
    missing = await store.missing_sparse(model_id, key, [doc.key for doc in documents])
    todo = [doc for doc in documents if doc.key in missing]
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        vectors = await sparse_documents(embedder, batch, profile)
        await store.write_sparse(
            model_id, key, [(d.key, v) for d, v in zip(batch, vectors, strict=True)]
        )
    if await store.mark_sparse(model_id, corpus_hash, key):
        await store.ensure_sparse_index(model_id, key, head.dimension)
    return len(todo)


async def _embed_and_write(
    store: VectorStore,
    embedder: Embedder,
    model_id: str,
    todo: list[tuple[str, Document]],
    batch_size: int,
    progress: Progress | None,
    builder: SummaryBuilder | None,
) -> None:
    """Embed ``todo`` in batches, writing each batch while the model embeds the next.

    The model runs on its own thread and the writes are the database's work, so they overlap
    the embedding instead of following it (``python -m evals.perf.reindex``); so do the
    summary vectors of each tool the batch completes (``builder``), which publication would
    otherwise insert into the index one by one after the last batch. A failure stops the run
    after the batch being written has landed (a cancellation abandons it): the rerun starts
    from there.
    """
    if progress is not None:
        progress(0, len(todo))
    writing: asyncio.Task[None] | None = None
    try:
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            rows = await _embed_batch(embedder, batch)
            if writing is not None:
                await writing
                if progress is not None:
                    progress(start, len(todo))
            summaries = builder.add(rows) if builder is not None else []
            writing = asyncio.create_task(_write(store, model_id, rows, summaries))
        if writing is not None:
            await writing
            if progress is not None:
                progress(len(todo), len(todo))
    except BaseException as error:
        if writing is not None and not writing.done():
            if isinstance(error, asyncio.CancelledError):
                writing.cancel()
            await asyncio.wait({writing})
            if not writing.cancelled():
                writing.exception()  # retrieved: the run reports the first failure
        raise


async def _write(
    store: VectorStore,
    model_id: str,
    rows: list[VectorRow],
    summaries: list[tuple[str, NDArray[np.float32]]],
) -> None:
    await store.write(model_id, rows)
    await store.write_summary_vectors(model_id, summaries)


async def _embed_batch(embedder: Embedder, batch: list[tuple[str, Document]]) -> list[VectorRow]:
    """One batch's vectors, each role embedded as that role."""
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
    return rows


def _since(started: float) -> float:
    return time.perf_counter() - started
