"""Indexing ahead: an integration starts embedding the catalog it sees before the first turn
needs it, so that turn narrows instead of sending every tool.

The in-memory retriever embeds a catalog on its first ``select`` and waits at most half its
budget for it: on a catalog of fifty tools, the first turns send every tool. A framework
integration knows its catalog when it is built (``catalog=``) or on the first step (built from
the step's tools); ``index_ahead`` starts the in-memory retriever's build then, in the
background, on the running event loop (without one, the first step starts it). A
``ToolRetrievalClient`` needs nothing here: its first ``select`` of an unserved corpus asks the
worker, or with no worker indexes it in the background (``toolret.indexing._inline_asks``).
"""

from __future__ import annotations

import asyncio
import logging

from toolret._catalog import Catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._memory import InMemoryRetriever

__all__ = ["index_ahead"]

log = logging.getLogger("toolret.selection")

_RUNNING: set[asyncio.Task[None]] = set()
"""Builds started ahead, held until done (the loop keeps only weak references to tasks)."""


def index_ahead(retriever: Retriever, catalog: Catalog) -> bool:
    """Start embedding ``catalog`` in the background when ``retriever`` is an in-memory one and
    an event loop is running; True when a build was started (or already under way)."""
    if not isinstance(retriever, InMemoryRetriever) or retriever.closed:
        return False
    try:
        asyncio.get_running_loop()
        task = retriever.index_soon(catalog)
    except Exception as error:  # no loop, or no embedder: the first select tries again
        log.debug("toolret: not indexing ahead: %r", error)
        return False
    _RUNNING.add(task)
    task.add_done_callback(_done)
    return True


def _done(task: asyncio.Task[None]) -> None:
    _RUNNING.discard(task)
    if not task.cancelled() and task.exception() is not None:  # the first select builds again
        log.debug("toolret: indexing ahead failed: %r", task.exception())


def indexing_progress(retriever: Retriever, catalog: Catalog) -> str:
    """How far indexing ``catalog`` got, as far as this process can tell, and the fix."""
    if isinstance(retriever, InMemoryRetriever):
        state = retriever.indexing_state(catalog)
        return f"{state} in this process; start it ahead with `await retriever.index(catalog)`"
    return (
        "the worker or `toolret serve` indexes it; `toolret status` shows how far it got, "
        "`toolret reindex --catalog ...` indexes it now"
    )
