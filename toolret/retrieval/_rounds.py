"""The per-round machinery of an agent loop: ``make_per_round_retrieve`` (a ``per_round_retrieve``),
and what the framework integrations share: ``TurnSelections`` (one selection per turn) and
``bound_names`` (what a round binds).

Every round of a ReAct loop asks which tools to bind. The hook selects, with the retriever it is
given (the caller opens and closes it), on the most recent human message of the transcript and
adds what it finds to the tools the loop already holds active; it never removes one. The query
embedding is cached by model and text, so the 25 rounds of one message cost one embedding and
then well under a millisecond each. A failure is logged and the round goes on with the tools it
already had.

A framework's hook (LangChain's middleware, PydanticAI's capability, the OpenAI Agents SDK's
``is_enabled``) asks again on every round, sometimes once per tool at the same moment:
``TurnSelections`` answers every round of a message from one selection, and concurrent askers from
one in-flight ``select``; ``bound_names`` adds what the transcript says this turn found and called.
A selection that fell open is kept for the turn too: a turn pays the time budget at most once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from toolret._catalog import Catalog
from toolret.errors import ClientStateError, ConfigurationError
from toolret.retrieval._ahead import index_ahead, indexing_progress
from toolret.retrieval._base import Retriever
from toolret.retrieval._caller import CallerErrors, OnError
from toolret.retrieval._find_tools import discovered_tool_names
from toolret.retrieval._reuse import REUSE_SECONDS
from toolret.retrieval._selection import Mode, Reason, Selection
from toolret.retrieval._stable import StableToolList
from toolret.retrieval._transcript import current_turn, latest_human_text, tool_calls

__all__ = ["PerRoundRetrieve", "TurnSelections", "bound_names", "make_per_round_retrieve"]

log = logging.getLogger("toolret.selection")

PerRoundRetrieve = Callable[..., Awaitable[list[str]]]
"""``await retrieve(transcript_or_text, active=())`` → the tool names to bind this round."""


def make_per_round_retrieve(
    retriever: Retriever,
    catalog: Catalog,
    k: int | None = None,
    *,
    stable: StableToolList | None = None,
    on_error: OnError | None = None,
) -> PerRoundRetrieve:
    """Build the callable an agent loop calls every round, selecting with ``retriever``
    (an ``InMemoryRetriever`` or a ``ToolRetrievalClient``; the caller owns it, and closes it
    when the loop is done).

    The callable takes the transcript (a list of messages in OpenAI, Anthropic or LangChain
    shape) or the message text, plus the names already active, and returns the active names with
    this round's core and retrieved tools added (``k`` of them: by default the retriever's own,
    12 or ``TOOLRET_K``): catalog tools in catalog order, then any active names the catalog does
    not know, in the order given. The rounds of one message share one selection
    (``TurnSelections``), a fallen-open one too; ``on_error`` is handed what the caller got
    wrong (``toolret.retrieval._caller``).

    With ``stable`` (one ``StableToolList`` per conversation) the catalog tools come in the
    conversation's first-seen order instead, so every round's list extends the last one.
    """
    selections = TurnSelections(retriever, k, on_error=on_error)

    async def retrieve(transcript: str | Sequence[Any], active: Iterable[str] = ()) -> list[str]:
        held = list(dict.fromkeys(active))
        try:
            text = transcript if isinstance(transcript, str) else latest_human_text(transcript)
            selection = await selections.select(catalog, text)
        except Exception as error:  # a round must never fail because retrieval did
            log.warning("toolret: per-round retrieval failed, keeping active tools: %r", error)
            return held
        unknown = [name for name in held if name not in catalog]
        if stable is not None:
            stable.extend(held)
            return [*stable.apply(selection).names, *unknown]
        bound = catalog.subset([*selection.names, *held])
        return [tool.name for tool in bound] + unknown

    return retrieve


class TurnSelections:
    """The selection of each recent human message, for the rounds of its turn.

    ``select(catalog, text)`` selects with ``retriever`` (``k`` of them) once per catalog and
    message: later rounds get the same ``Selection``, and callers asking at the same moment share
    one in-flight ``select``. A selection that fell open (the full roster, for any reason) is
    kept too, for ``seconds`` (the rounds of one turn), so a turn waits for a dependency that is
    down at most once; the message asked again later is selected afresh. The ``size`` most
    recent messages are kept. What the caller got wrong (a closed retriever) goes to
    ``on_error`` and is logged once (``toolret.retrieval._caller``); an invalid ``k`` is refused
    here, when the integration is built (``ConfigurationError``), not met on every turn.
    """

    def __init__(
        self,
        retriever: Retriever,
        k: int | None = None,
        *,
        size: int = 64,
        seconds: float = REUSE_SECONDS,
        on_error: OnError | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise ConfigurationError(f"k={k!r}: pass how many tools to bind (1 or more), or None")
        self.retriever = retriever
        self.k = k
        self.size = size
        self.seconds = seconds
        self.errors = CallerErrors(on_error)
        self._clock = clock
        self._kept: OrderedDict[tuple[int, str], tuple[Catalog, Selection, float]] = OrderedDict()
        self._pending: dict[tuple[int, str], asyncio.Future[Selection]] = {}
        self._told: set[int] = set()
        self._ahead: set[int] = set()

    def index_ahead(self, catalog: Catalog) -> None:
        """Start indexing ``catalog`` now (the in-memory retriever's build, in the background:
        ``toolret.retrieval._ahead``), once per catalog, so the first turn can narrow."""
        if id(catalog) not in self._ahead and index_ahead(self.retriever, catalog):
            self._ahead.add(id(catalog))

    def kept(self, catalog: Catalog, text: str) -> Selection | None:
        """The selection kept for this catalog and message, if any (no waiting)."""
        key = (id(catalog), text)
        kept = self._kept.get(key)
        if kept is None or kept[0] is not catalog or kept[2] < self._clock():
            return None
        self._kept.move_to_end(key)
        return kept[1]

    async def select(self, catalog: Catalog, text: str) -> Selection:
        kept = self.kept(catalog, text)
        if kept is not None:
            return kept
        key = (id(catalog), text)
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._select(catalog, text))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        selection = await asyncio.shield(pending)
        until = self._clock() + self.seconds if selection.mode is Mode.FULL else math.inf
        self._kept[key] = (catalog, selection, until)
        if len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return selection

    async def _select(self, catalog: Catalog, text: str) -> Selection:
        selection = await self.retriever.select(catalog, text, k=self.k)
        if selection.reason is Reason.NOT_INDEXED and id(catalog) not in self._told:
            self._told.add(id(catalog))
            log.info(
                "toolret: the %d tools of this catalog are still being indexed, so this turn "
                "sends every tool; turns narrow once they are (%s)",
                len(catalog),
                indexing_progress(self.retriever, catalog),
            )
        if selection.mode is Mode.FULL and self.retriever.closed:
            name = type(self.retriever).__name__
            self.errors.report(
                ClientStateError(
                    f"the {name} this agent selects with is closed: keep it open "
                    f"(async with {name}(...)) for as long as the agent runs"
                )
            )
        return selection


def bound_names(catalog: Catalog, selection: Selection, messages: Sequence[Any]) -> list[str]:
    """The catalog names a round binds: the turn's selection, then what find_tools found in
    this turn and the tools this turn already called (so a call made under a wider list, or
    awaiting approval, is never left without its tool), in that order, each once."""
    turn = current_turn(messages)
    found = [name for name in discovered_tool_names(turn) if name in catalog]
    called = [call.name for call in tool_calls(turn) if call.name in catalog]
    return list(dict.fromkeys([*selection.names, *found, *called]))
