"""``toolret status``: models, corpora, rows and indexes; where each catalog stands per model."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from toolret.cli._errors import fail, load_or_exit
from toolret.cli._options import UrlOption, console
from toolret.cli._output import show_table

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.embedders._base import Embedder
    from toolret.store._vector_store import VectorStore

__all__ = ["sparse_progress", "status"]

CatalogsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--catalog",
        "-c",
        help="A catalog spec, as for search; repeat for several [TOOLRET_CATALOGS].",
    ),
]
ReadyOption = Annotated[
    bool,
    typer.Option(
        "--ready",
        help="Exit 1 unless every catalog is published under every configured embedder: a "
        "deployment switching models waits for this.",
    ),
]


def status(
    url: UrlOption = None, catalog: CatalogsOption = None, ready: ReadyOption = False
) -> None:
    """Models, corpora, row counts and whether each model's HNSW index exists; then, for each
    catalog, whether it is published under the embedder in use [TOOLRET_EMBEDDER] and, while
    switching models, the next one [TOOLRET_NEXT_EMBEDDER].

    Exits 1, saying so, when the database is not migrated or its schema is older than this
    toolret's (run `toolret db upgrade`); with --ready, also while a catalog is not published.
    """
    from toolret._profile import corpus_hash
    from toolret._settings import Settings, make_embedders
    from toolret.store._migrate import head_revision
    from toolret.store._ops import CorpusState
    from toolret.store._types import StoreStatus
    from toolret.store._vector_store import VectorStore
    from toolret.store.embedded import resolve_database_url

    settings = Settings()
    specs = catalog or settings.catalogs
    catalogs = {spec: load_or_exit(spec) for spec in specs}
    embedders = make_embedders(settings)
    keys = {
        (spec, embedder.model_id): corpus_hash(tools, embedder)
        for spec, tools in catalogs.items()
        for embedder in embedders
    }

    Progress = dict[tuple[str, str], str]

    async def read(target: str) -> tuple[StoreStatus, dict[tuple[str, str], CorpusState], Progress]:
        try:
            async with VectorStore.from_url(target) as store:
                state = await store.status()
                if state.revision is None or not keys:
                    return state, {}, {}
                corpora = await store.corpus_states(
                    (model_id, corpus) for (_, model_id), corpus in keys.items()
                )
                sparse = {
                    (spec, embedder.model_id): await sparse_progress(store, tools, embedder)
                    for spec, tools in catalogs.items()
                    for embedder in embedders
                }
                return state, corpora, sparse
        finally:
            for embedder in embedders:
                await embedder.aclose()

    state, corpora, sparse = asyncio.run(read(url or resolve_database_url()))
    head = head_revision()
    if state.revision is None:
        fail("this database has no toolret schema (not migrated): run `toolret db upgrade`")
    console.print(f"schema revision: {state.revision}")
    if state.revision != head:
        fail(
            f"the schema is at revision {state.revision}, this toolret needs {head}: "
            "run `toolret db upgrade`"
        )
    for role, embedder in zip(("embedder", "next embedder"), embedders, strict=False):
        console.print(f"{role}: {embedder.model_id}")
    table = Table(title="embedding models")
    for column in ("model", "dim", "vectors", "pending", "corpora", "published", "last seen"):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_column("HNSW index")
    for m in state.models:
        seen = f"{m.last_seen:%Y-%m-%d %H:%M}" if m.last_seen else "—"
        row = (m.dimension, m.vectors, m.pending_vectors, m.corpora, m.published_corpora)
        table.add_row(m.model_id, *map(str, row), seen, "yes" if m.index else "no")
    show_table(table)
    if not keys:
        return
    table = Table(title="catalogs")
    for column in ("catalog", "model", "corpus", "state", "sparse vectors"):
        table.add_column(column)
    waiting = 0
    for (spec, model_id), corpus in keys.items():
        where = corpora.get((model_id, corpus), "absent")
        waiting += where != "published"
        table.add_row(spec, model_id, corpus[:12], where, sparse.get((spec, model_id), "—"))
    show_table(table)
    if ready and waiting:
        fail(f"not ready: {waiting} of {len(keys)} corpora are not published yet")


async def sparse_progress(store: VectorStore, catalog: Catalog, embedder: Embedder) -> str:
    """How far the worker has got adding the sparse signal's vectors to a catalog's corpus:
    ``n of m`` documents (ranking goes without the signal until all have one), ``ready``, or
    ``—`` when the embedder's profile does not use a sparse head there (none, or descriptions
    too terse for it)."""
    from toolret._profile import corpus_documents, profile_of
    from toolret.embedders._sparse import sparse_head_of
    from toolret.retrieval._sparse import sparse_in_use

    head, profile = sparse_head_of(embedder), profile_of(embedder)
    if head is None or not sparse_in_use(catalog, profile):
        return "—"
    keys = list(dict.fromkeys(doc.key for _, doc in corpus_documents(catalog, embedder)))
    missing = await store.missing_sparse(embedder.model_id, head.key(profile.sparse_latents), keys)
    return "ready" if not missing else f"{len(keys) - len(missing)} of {len(keys)}"
