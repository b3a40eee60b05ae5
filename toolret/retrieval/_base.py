"""``Retriever``: what selects tools for a message. A retriever supplies one step, its ranking.

The database client (``toolret.retrieval._client``) and the in-memory retriever
(``toolret.retrieval._memory``) differ only in how they score a catalog's tools for a text by
meaning (``_rank``). The rest is here, once:

- the defaults: ``mode``, ``k`` and the time budget from the environment (``Settings``);
- ``select``, through ``select_guarded`` (the full roster on any failure, within the budget),
  traced and counted (``toolret.retrieval._metrics``), with the selections of a turn reused
  (``toolret.retrieval._reuse``);
- ``find_tools``, through ``discover``; ``rank`` (``bm25`` mode needs no embedder);
- the tools used together (``companions``): a selection's last places go to the usual
  companions of the tools ranked first (``toolret.retrieval._companions``);
- the embedder: the one passed in, or one created from settings on first use;
- the embedder's breaker (``toolret.retrieval._breaker``): a call to it while it is known to be
  down fails at once, and a probe brings it back;
- the lifecycle: ``async with`` starts warming the embedder up, in the background (``warm_up``
  waits for it); ``aclose()`` closes what the retriever created and never what it was handed; a
  closed retriever cannot be reopened.

A retriever of one's own subclasses ``Retriever`` and implements ``_rank``.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Literal, Self, TypedDict

from toolret._catalog import Catalog
from toolret._profile import profile_of
from toolret._settings import (
    RetrievalMode,
    Settings,
    check_embedder,
    make_embedder,
    retrieval_mode,
)
from toolret._tool import Tool
from toolret.embedders._base import Embedder
from toolret.embedders._cache import with_query_cache
from toolret.embedders._guard import WARM_UP_TIMEOUT, guarded, warm_up
from toolret.errors import ClientStateError, EmbedderError, EmbedderUnavailableError
from toolret.retrieval._breaker import Breaker, breaker_for, waiting_on
from toolret.retrieval._companions import NO_COMPANIONS, Companions, with_companions
from toolret.retrieval._fail_open_log import FailOpenLog
from toolret.retrieval._lexical import catalog_index
from toolret.retrieval._metrics import record_selection, span
from toolret.retrieval._reuse import REUSE_SECONDS, RecentSelections
from toolret.retrieval._selection import (
    MAX_DISCOVERED_TOOLS,
    Ranking,
    Selection,
    SelectionPolicy,
    discover,
    select_guarded,
)
from toolret.retrieval._sparse import warm_up_languages

__all__ = ["PROBE_TEXT", "Retriever", "RetrieverOptions", "WarmUpState"]

WarmUpState = Literal["warming", "warm", "unavailable", "unused"]
"""Where a retriever's embedder warm-up stands (``Retriever.warm_up_state``)."""

log = logging.getLogger("toolret.selection")

PROBE_TEXT = "toolret probe"
"""What a probe of a down embedder embeds (as a query)."""


class RetrieverOptions(TypedDict, total=False):
    """The options every retriever takes besides its embedder (``Retriever``)."""

    mode: RetrievalMode | None
    k: int | None
    time_budget: float | None
    reuse: float
    companions: Companions | None


class Retriever(ABC):
    """Selects tools for a message: ``select`` before each model call, ``find_tools`` when the
    model asks for more, ``rank`` for anything else that ranks a catalog (``route``).

    ``embedder`` defaults to the one ``settings`` choose (``TOOLRET_EMBEDDER``: the bundled
    model, Gemini, OpenAI or an OpenAI-compatible server, Azure OpenAI), checked at once
    (``ConfigurationError`` naming the variable) and created on first use; ``mode``, ``k`` and
    ``time_budget`` (seconds) default to ``TOOLRET_MODE``, ``TOOLRET_K`` and
    ``TOOLRET_TIME_BUDGET_MS``. ``reuse`` (seconds; 0 turns it off) is how long a selection
    answers the same message again: the rounds of one turn. ``companions`` are the tools used
    together that this retriever binds together (the in-memory retriever has only these; the
    client reads its own from the store, unless given). A retriever is used by one event loop.
    """

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
        mode: RetrievalMode | None = None,
        k: int | None = None,
        time_budget: float | None = None,
        reuse: float = REUSE_SECONDS,
        companions: Companions | None = None,
    ) -> None:
        settings = settings or Settings()
        self.mode: RetrievalMode = retrieval_mode(settings.mode if mode is None else mode)
        self.k = settings.k if k is None else k
        self.time_budget = settings.time_budget if time_budget is None else time_budget
        if embedder is None and self.mode != "bm25":
            check_embedder(settings)  # a misconfigured embedder fails here, not per request
        self._settings = settings
        self._raw_embedder = embedder
        self._embedder = None if embedder is None else with_query_cache(embedder)
        self._owns_embedder = False
        self._selections = RecentSelections(reuse)
        self._fail_open_log = FailOpenLog()
        self._find_tools_log = FailOpenLog(FailOpenLog.FIND_TOOLS)
        self._warming: asyncio.Task[None] | None = None
        self._companions = companions
        self._entered = False
        self._closed = False

    # -- the one step a retriever supplies ---------------------------------------------------

    @abstractmethod
    async def _rank(self, catalog: Catalog, text: str, k: int, exclude: frozenset[str]) -> Ranking:
        """Score the catalog's candidates for ``text`` by meaning (``dense`` or ``hybrid``
        mode): at least the best ``k`` outside ``exclude`` (more may come back), and any tool
        that could not be scored as unranked. Raises on failure (``EmbedderError``,
        ``StoreError``, ``NotIndexedError``, ``TimeoutError``...)."""

    # -- the request path -------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (behind a query cache), created from settings on first use."""
        if self._embedder is None:
            try:
                self._raw_embedder = make_embedder(self._settings)
            except Exception as error:
                raise EmbedderUnavailableError(f"no embedder: {error}") from error
            self._owns_embedder = True
            self._embedder = with_query_cache(self._raw_embedder)
        return self._embedder

    async def select(
        self,
        catalog: Catalog,
        message: str,
        *,
        resume: bool = False,
        k: int | None = None,
        stable: SelectionPolicy | None = None,
        allowed: Iterable[str] | None = None,
    ) -> Selection:
        """Core tools plus the best ``k`` for ``message``; the full roster on any failure.

        Never raises and never takes longer than the time budget. ``stable`` (a
        ``StableToolList``, one per conversation) sends the conversation's growing list
        instead, so the provider's prompt cache holds. ``allowed`` (tool names or
        ``server__*`` patterns) ranks only among the tools this caller may use, core tools
        included, from the same vectors (``Catalog.only``); an invalid entry raises
        ``AllowedToolsError`` before anything else.
        """
        catalog = catalog.only(allowed)
        k = self.k if k is None else k
        with span("toolret.select") as traced:
            selection = await select_guarded(
                catalog,
                message,
                lambda text: self._rank_with_companions(catalog, text, k),
                k=k,
                time_budget=self.time_budget,
                resume=resume,
                stable=stable,
                recent=self._selections,
                fail_open_log=self._fail_open_log,
            )
            traced.set_attribute("toolret.catalog.tools", len(catalog))
            traced.set_attribute("toolret.k", k)
            traced.set_attribute("toolret.mode", selection.mode.value)
            reason = selection.reason.value if selection.reason else ""
            traced.set_attribute("toolret.reason", reason)
            traced.set_attribute("toolret.tools_bound", len(selection.tools))
        record_selection(selection)
        return selection

    async def find_tools(
        self,
        catalog: Catalog,
        capability: str,
        *,
        bound: Iterable[str] = (),
        limit: int = MAX_DISCOVERED_TOOLS,
        allowed: Iterable[str] | None = None,
    ) -> list[Tool]:
        """At most ``limit`` tools for a capability phrase (any language), none already bound,
        best first, only among ``allowed`` (as ``select``). Empty on a blank phrase or any
        failure; bounded by the time budget.

        The ranking is asked for twice ``limit``: the same phrase asked again in the turn, with
        the tools it found now bound, can be answered from it without a query (the client keeps
        its rankings, ``toolret.retrieval._reuse.RecentRankings``)."""
        catalog = catalog.only(allowed)
        exclude = set(bound)
        return await discover(
            catalog,
            capability,
            lambda text: self.rank(catalog, text, 2 * limit, exclude=exclude),
            bound=exclude,
            limit=limit,
            time_budget=self.time_budget,
            fail_log=self._find_tools_log,
        )

    async def rank(
        self, catalog: Catalog, text: str, k: int | None = None, *, exclude: Iterable[str] = ()
    ) -> Ranking:
        """Score the catalog's candidates for ``text``: by BM25 in ``bm25`` mode, else by
        meaning (``_rank``). Raises on failure, and ``ClientStateError`` once closed."""
        if self._closed:
            raise ClientStateError(f"this {type(self).__name__} is closed")
        if self.mode == "bm25":
            return Ranking(catalog_index(catalog).score_map(text))
        return await self._rank(catalog, text, self.k if k is None else k, frozenset(exclude))

    async def companions(self, catalog: Catalog) -> Companions:
        """The tools used together that this retriever binds together for ``catalog``: those
        it was given, else (the client) those its store holds. Never raises: none on failure."""
        if self._companions is not None:
            return self._companions
        return await self._stored_companions(catalog)

    async def _stored_companions(self, catalog: Catalog) -> Companions:
        """Companions read from a store; the in-memory retriever has none."""
        return NO_COMPANIONS

    def _companions_at_hand(self, catalog: Catalog) -> Companions | None:
        """What ``companions(catalog)`` would return at once, where a retriever knows it
        without waiting (the client: given, off, or read recently); None: ask ``companions``."""
        return None

    async def _rank_with_companions(self, catalog: Catalog, text: str, k: int) -> Ranking:
        """``rank``, its ``k`` places shared with the best ranked tools' companions; the
        companions are read while the message is ranked, unless they are at hand (the usual
        case: then no task is spawned, which the healthy path would pay for)."""
        at_hand = self._companions_at_hand(catalog)
        if at_hand is not None:
            return with_companions(catalog, await self.rank(catalog, text, k), k, at_hand)
        ranking, companions = await asyncio.gather(
            self.rank(catalog, text, k), self.companions(catalog)
        )
        return with_companions(catalog, ranking, k, companions)

    def _forget(self, message: str) -> None:
        """The turn has ended: its message is selected afresh when asked again."""
        self._selections.forget(message)

    # -- the embedder's breaker -------------------------------------------------------------

    def _embedder_breaker(self) -> Breaker:
        """This event loop's breaker of the embedder in use (by model id)."""
        return breaker_for("embedder", self.embedder.model_id)

    def _calling_embedder(self) -> AbstractContextManager[None]:
        """Around a request-path call to the embedder: fails at once while it is known down
        (``waiting_on``)."""
        return waiting_on(self._embedder_breaker(), self._probe_embedder)

    async def _probe_embedder(self) -> None:
        """The request path's own call, past the query cache."""
        self.embedder  # noqa: B018 - creates the embedder from settings if needed
        assert self._raw_embedder is not None
        await guarded(self._raw_embedder).embed_query(PROBE_TEXT)

    # -- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        """Open, and start warming the embedder up in the background (``warm_up``), so that
        the first selection does not pay for it; a selection that comes first waits for it at
        most its budget. A failure is logged (the embedder's breaker opens), never raised."""
        name = type(self).__name__
        if self._closed:
            raise ClientStateError(f"this {name} is closed; create a new one")
        if self._entered:
            raise ClientStateError(f"this {name} is already open")
        self._entered = True
        if self.mode != "bm25":
            self._start_warm_up()
        return self

    async def warm_up(self) -> None:
        """Wait until the embedder is warm (the bundled model loaded, a server answering, within
        ``WARM_UP_TIMEOUT`` seconds) and the language identifier loaded when the profile's
        sparse signal or centring per description language reads it; started now unless
        ``async with`` started it. Raises the ``EmbedderError`` it met: a command line stops
        there, with that line."""
        if self.mode == "bm25":
            return
        await asyncio.shield(self._start_warm_up())

    @property
    def warm_up_state(self) -> WarmUpState:
        """Where the embedder's warm-up stands: ``"warming"`` while the background warm-up
        (``async with``) runs, when a selection waits for it at most its budget and may fall
        open; ``"warm"`` once it answered; ``"unavailable"`` when it failed (the embedder's
        breaker serves the full roster at once); ``"unused"`` when none was started (BM25, or
        not opened). A service reports it on ``/readyz``."""
        task = self._warming
        if task is None:
            return "unused"
        if not task.done():
            return "warming"
        return "warm" if not task.cancelled() and task.exception() is None else "unavailable"

    def _start_warm_up(self) -> asyncio.Task[None]:
        if self._warming is None:
            self._warming = task = asyncio.ensure_future(self._warm_up())
            task.add_done_callback(lambda done: done.cancelled() or done.exception())
            try:
                breaker = self._embedder_breaker()
            except EmbedderUnavailableError as error:
                log.warning("toolret: selections send the full roster: %s", error)
            else:
                breaker.watch(task, timeout=None)  # its failure opens the breaker, once
        return self._warming

    async def _warm_up(self) -> None:
        embedder = self.embedder
        try:
            async with asyncio.timeout(WARM_UP_TIMEOUT):
                await warm_up(embedder)
        except TimeoutError as error:
            raise EmbedderError(
                f"warming up the embedder failed: no answer within {WARM_UP_TIMEOUT:g} s",
                model_id=embedder.model_id,
            ) from error
        except EmbedderError as error:
            raise EmbedderError(
                f"warming up the embedder failed: {error}", model_id=embedder.model_id
            ) from error
        # the sparse gate reads the message's language, centring the descriptions' and its
        if profile_of(embedder).sparse_weight > 0 or self._settings.centring:
            try:
                await asyncio.to_thread(warm_up_languages)
            except Exception as error:  # not the embedder's failure: the first selection loads it
                log.warning("toolret: loading the language identifier failed: %r", error)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def closed(self) -> bool:
        """True after ``aclose()``."""
        return self._closed

    async def aclose(self) -> None:
        """Close what this retriever opened and the embedder it created, never one it was
        handed. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
        await self._release()
        if self._owns_embedder and self._embedder is not None:
            await self._embedder.aclose()

    async def _release(self) -> None:  # noqa: B027 - a hook: nothing to release by default
        """Release what a retriever opened besides the embedder (its pool, its queue)."""
