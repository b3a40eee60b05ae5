"""``index_catalog`` with the bundled model against real Postgres.

The embedders here wrap the real bundled model through the public ``Embedder`` protocol: one
counts what it embeds, one fails on a chosen batch (a crash mid-run).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

import asyncpg
import numpy as np
import pytest

from tests.support.embedders import CountingEmbedder
from tests.support.tools import CRM_TOOLS
from toolret import BundledE5Embedder, Catalog, EmbedderError
from toolret._tool import Role
from toolret.embedders._base import Vector, Vectors
from toolret.indexing._run import index_catalog
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

EXAMPLES = {
    "delete_record": ("remove this contact", "bu kaydı sil"),
    "create_task": ("remind me to call Acme tomorrow",),
    "send_email": ("email the client the quote",),
}


def catalog_with_examples() -> Catalog:
    tools = [dataclasses.replace(t, examples=EXAMPLES.get(t.name, ())) for t in CRM_TOOLS]
    return Catalog(tools)


class FailingOnBatch:
    """The bundled model, except that embedding call number ``fail_on`` (1-based) raises."""

    def __init__(self, fail_on: int) -> None:
        self.inner = BundledE5Embedder()
        self.model_id = self.inner.model_id
        self.dimension = self.inner.dimension
        self.example_role: Role = self.inner.example_role
        self.fail_on = fail_on
        self.calls = 0

    async def _call(self, texts: Sequence[str], is_query: bool) -> Vectors:
        self.calls += 1
        if self.calls == self.fail_on:
            raise EmbedderError("the provider went away mid-run", model_id=self.model_id)
        if is_query:
            return await self.inner.embed_queries(texts)
        return await self.inner.embed_documents(texts)

    async def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return await self._call(texts, False)

    async def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return await self._call(texts, True)

    async def embed_query(self, text: str) -> Vector:
        return (await self._call([text], True))[0]

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _served_roles(database_url: str) -> dict[str, str]:
    connection = await asyncpg.connect(database_url)
    try:
        rows = await connection.fetch("SELECT text, role FROM toolret_vectors")
    finally:
        await connection.close()
    return {row["text"]: row["role"] for row in rows}


async def test_first_run_embeds_everything_and_a_second_run_nothing(
    store: VectorStore, database_url: str
) -> None:
    catalog = catalog_with_examples()
    embedder = CountingEmbedder()
    progress: list[tuple[int, int]] = []

    first = await index_catalog(
        store, embedder, catalog, batch_size=4, progress=lambda *done: progress.append(done)
    )
    assert first.documents == len(CRM_TOOLS) + 4
    assert (first.embedded, first.reused, first.published) == (first.documents, 0, True)
    assert first.corpus_hash == catalog.corpus_hash(embedder.model_id, embedder.example_role)
    assert progress[0] == (0, first.documents)
    assert progress[-1] == (first.documents,) * 2
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    assert await store.is_published(embedder.model_id, first.corpus_hash)

    # Examples are embedded in the model's example role, descriptions as documents.
    roles = await _served_roles(database_url)
    assert roles["bu kaydı sil"] == embedder.example_role
    assert roles[catalog["send_email"].retrieval_text] == "document"

    embedder.documents.clear()
    embedder.queries.clear()
    second = await index_catalog(store, embedder, catalog)
    assert (second.embedded, second.reused, second.published) == (0, first.documents, False)
    assert embedder.documents == embedder.queries == []


async def test_a_changed_description_embeds_exactly_one_document(store: VectorStore) -> None:
    catalog = catalog_with_examples()
    embedder = CountingEmbedder()
    await index_catalog(store, embedder, catalog)
    embedder.documents.clear()

    tools = list(catalog.tools)
    position = catalog.position("create_view")
    tools[position] = dataclasses.replace(
        tools[position], description="Create a saved table or kanban view with filters."
    )
    changed = Catalog(tools)
    report = await index_catalog(store, embedder, changed)
    assert (report.embedded, report.reused, report.published) == (1, report.documents - 1, True)
    assert embedder.documents == [changed["create_view"].retrieval_text]
    # The older corpus stays published for deployments still running it.
    assert await store.is_published(
        embedder.model_id, catalog.corpus_hash(embedder.model_id, embedder.example_role)
    )
    assert await store.is_published(embedder.model_id, report.corpus_hash)


async def test_a_crash_mid_run_publishes_nothing_and_the_rerun_completes_it(
    store: VectorStore,
) -> None:
    catalog = catalog_with_examples()
    first_batch = catalog.documents(BundledE5Embedder.example_role)[:4]
    # One embedding call per role in a batch: fail the first call of the second batch.
    failing = FailingOnBatch(fail_on=len({doc.role for _, doc in first_batch}) + 1)
    model = failing.model_id
    corpus = catalog.corpus_hash(model, failing.example_role)
    keys = {doc.key for _, doc in catalog.documents(failing.example_role)}

    with pytest.raises(EmbedderError):
        await index_catalog(store, failing, catalog, batch_size=4)
    assert not await store.is_published(model, corpus)
    written = len(keys) - len(await store.missing(model, keys))
    assert written == 4  # the first batch stays written

    rerun = CountingEmbedder()
    report = await index_catalog(store, rerun, catalog, batch_size=4)
    assert (report.embedded, report.reused, report.published) == (len(keys) - 4, 4, True)
    assert len(rerun.documents) + len(rerun.queries) == len(keys) - 4
    assert await store.missing(model, keys) == set()


async def test_two_concurrent_runs_on_two_machines_embed_each_document_once(
    database_url: str,
) -> None:
    catalog = catalog_with_examples()
    first, second = CountingEmbedder(), CountingEmbedder()
    async with VectorStore.from_url(database_url) as one, VectorStore.from_url(database_url) as two:
        reports = await asyncio.gather(
            index_catalog(one, first, catalog, batch_size=4),
            index_catalog(two, second, catalog, batch_size=4),
        )
    documents = reports[0].documents
    assert sorted(report.embedded for report in reports) == [0, documents]
    assert sum(report.published for report in reports) == 1
    embedded = first.documents + first.queries + second.documents + second.queries
    assert len(embedded) == len(set(embedded)) == documents


async def test_an_indexed_catalog_ranks_with_its_own_vectors(store: VectorStore) -> None:
    catalog = catalog_with_examples()
    embedder = BundledE5Embedder()
    await index_catalog(store, embedder, catalog)
    query = CatalogQuery.build(catalog, embedder.model_id, embedder.example_role)
    vector = await embedder.embed_query("bu kaydı sil")
    ranking = await store.rank(query, vector, limit=3)
    assert ranking.published
    assert ranking.unranked == ()
    assert max(ranking.scores, key=ranking.scores.__getitem__) == "delete_record"
    assert isinstance(next(iter(ranking.scores.values())), float)
    assert np.isfinite(list(ranking.scores.values())).all()
