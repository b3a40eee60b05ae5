"""A corpus the request path found unserved, in a client with no worker to ask (no ``REDIS_URL``).

With a worker, the client asks it (``toolret.indexing._asks``). Without one, nobody would index
the catalog and every selection would send every tool, silently. ``Unserved`` says so once per
corpus, at WARNING, naming the fixes (``toolret reindex --catalog ...``, or ``REDIS_URL`` and
the worker), and indexes the corpus in this process in the background, as ``toolret serve``
does: one run per corpus at a time, the selection never waiting for it, again after a backoff
when a run fails. A database role that may only read (the application's usual role) cannot
write vectors: that is said once too, and not tried again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from toolret._catalog import Catalog
from toolret.indexing._backoff import Backoff
from toolret.indexing._corpus_runs import CorpusRuns
from toolret.indexing._run import IndexReport, Progress

__all__ = ["Unserved"]

log = logging.getLogger("toolret.selection")

Index = Callable[[Catalog, Progress], Awaitable[IndexReport]]
_INSUFFICIENT_PRIVILEGE = "42501"


class Unserved:
    """What one client does about the unserved corpora it meets with no worker configured."""

    def __init__(self, index: Index | None, backoff: Backoff | None = None) -> None:
        self.index = index
        self._runs = CorpusRuns("toolret-index-unserved", backoff)
        self.backoff = self._runs.backoff
        self._told: set[str] = set()
        self._progress: dict[str, tuple[int, int]] = {}
        self._read_only = False

    def met(self, catalog: Catalog, corpus_hash: str) -> None:
        """A selection of ``catalog`` found its corpus unserved: say so once, index it."""
        whole = catalog.whole
        if corpus_hash not in self._told:
            self._told.add(corpus_hash)
            doing = "indexing it in this process meanwhile; " if self._indexes() else ""
            log.warning(
                "toolret: a catalog of %d tools (corpus %s…) is not indexed and no worker is "
                "configured (REDIS_URL is unset), so its selections send every tool: %sindex "
                "it with `toolret reindex --catalog <your catalog spec>` (or "
                "`await client.index(catalog)`) on deploy, or set REDIS_URL and run the worker",
                len(whole),
                corpus_hash[:12],
                doing,
            )
        if self._indexes():
            self._runs.start(corpus_hash, self._run(whole, corpus_hash))

    def progress(self, corpus_hash: str) -> tuple[int, int] | None:
        """Documents embedded and to embed by the run under way for this corpus, if any."""
        return self._progress.get(corpus_hash) if corpus_hash in self._runs else None

    async def wait(self) -> None:
        """Wait until every run under way has ended."""
        await self._runs.wait()

    async def aclose(self) -> None:
        """Cancel the runs under way (a run is atomic: nothing half-written is served)."""
        await self._runs.aclose()

    def _indexes(self) -> bool:
        return self.index is not None and not self._read_only

    async def _run(self, catalog: Catalog, corpus_hash: str) -> None:
        assert self.index is not None

        def progress(done: int, total: int) -> None:
            self._progress[corpus_hash] = (done, total)

        try:
            report = await self.index(catalog, progress)
        except Exception as error:
            if _sqlstate(error) == _INSUFFICIENT_PRIVILEGE:
                self._read_only = True
                log.warning(
                    "toolret: this client's database role may not write vectors, so it cannot "
                    "index corpus %s… itself: run `toolret reindex --catalog ...` as a role "
                    "that may, or set REDIS_URL and run the worker",
                    corpus_hash[:12],
                )
                return
            log.warning(
                "toolret: indexing corpus %s… in this process failed (%s); trying again on a "
                "selection after %.0f s",
                corpus_hash[:12],
                error,
                self.backoff.retry_in(corpus_hash) or 0.0,
            )
            return
        finally:
            self._progress.pop(corpus_hash, None)
        log.info(
            "toolret: indexed corpus %s… in this process (%d documents embedded); its "
            "selections narrow now",
            corpus_hash[:12],
            report.embedded,
        )


def _sqlstate(error: BaseException) -> str | None:
    """The SQLSTATE of a database error, wherever the chain of causes carries it."""
    seen: BaseException | None = error
    while seen is not None:
        state = getattr(seen, "sqlstate", None)
        if isinstance(state, str):
            return state
        seen = seen.__cause__ or seen.__context__
    return None
