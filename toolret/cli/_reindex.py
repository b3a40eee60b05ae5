"""``toolret reindex``: embed what catalogs need, inline or through the worker (a deploy step)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from toolret._catalog import Catalog
from toolret._settings import Settings
from toolret.cli._errors import fail, load_or_exit
from toolret.cli._options import console
from toolret.cli._output import progress
from toolret.embedders._base import Embedder

__all__ = ["reindex"]


def reindex(
    catalog: Annotated[
        list[str],
        typer.Option(
            "--catalog", "-c", help="A catalog spec, as for search; repeat for several catalogs."
        ),
    ],
    enqueue: Annotated[
        bool, typer.Option("--enqueue", help="Queue a job for the worker instead [REDIS_URL].")
    ] = False,
) -> None:
    """Embed what the catalogs' tools need, here or through the worker; for a deploy step.

    Inline (the default): embeds only the documents this model has no vector for, with a
    progress bar, and publishes each catalog atomically [DATABASE_URL; else the embedded
    Postgres]. With --enqueue: queues one reindex job per catalog for the worker (arq
    toolret.worker.WorkerSettings) and returns at once; a corpus already queued is not queued twice.
    While switching models [TOOLRET_NEXT_EMBEDDER] it does the same for the next model too.
    """
    from toolret._settings import make_embedders
    from toolret.indexing._queue import ReindexQueue
    from toolret.indexing._run import index_catalog
    from toolret.store._vector_store import VectorStore
    from toolret.store.embedded import resolve_database_url

    settings, catalogs = Settings(), {spec: load_or_exit(spec) for spec in catalog}
    if enqueue and not settings.redis_url:
        fail("--enqueue needs REDIS_URL, the Redis the worker reads", 2)

    async def run() -> None:
        embedders = make_embedders(settings)
        try:
            if enqueue:
                async with ReindexQueue(settings.redis_url or "") as queue:
                    for embedder, (spec, tools) in _each(embedders, catalogs):
                        queued = await queue.enqueue(tools, embedder)
                        name = _named(spec, embedder, embedders)
                        console.print(f"{name}: {'queued' if queued else 'already queued'}")
                return
            url = await asyncio.to_thread(resolve_database_url, settings)
            async with VectorStore.from_url(url) as store:
                for embedder, (spec, tools) in _each(embedders, catalogs):
                    name = _named(spec, embedder, embedders)
                    with progress(f"indexing {name}…") as advance:
                        report = await index_catalog(store, embedder, tools, progress=advance)
                    console.print(
                        f"{name}: {report.documents} documents, {report.embedded} embedded, "
                        f"{'published' if report.published else 'already published'} "
                        f"({report.seconds:.1f} s)"
                    )
        finally:
            for embedder in embedders:
                await embedder.aclose()

    asyncio.run(run())


def _each(
    embedders: list[Embedder], catalogs: dict[str, Catalog]
) -> list[tuple[Embedder, tuple[str, Catalog]]]:
    """Every catalog with the current embedder, then with the next one."""
    return [(embedder, item) for embedder in embedders for item in catalogs.items()]


def _named(spec: str, embedder: Embedder, embedders: list[Embedder]) -> str:
    """The catalog spec, and for the next embedder its model too."""
    return spec if embedder is embedders[0] else f"{spec} (next: {embedder.model_id})"
