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
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from toolret._catalog import Catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._find_tools import discovered_tool_names
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
) -> PerRoundRetrieve:
    """Build the callable an agent loop calls every round, selecting with ``retriever``
    (an ``InMemoryRetriever`` or a ``ToolRetrievalClient``; the caller owns it, and closes it
    when the loop is done).

    The callable takes the transcript (a list of messages in OpenAI, Anthropic or LangChain
    shape) or the message text, plus the names already active, and returns the active names with
    this round's core and retrieved tools added (``k`` of them: by default the retriever's own,
    12 or ``TOOLRET_K``): catalog tools in catalog order, then any active names the catalog does
    not know, in the order given.

    With ``stable`` (one ``StableToolList`` per conversation) the catalog tools come in the
    conversation's first-seen order instead, so every round's list extends the last one.
    """

    async def retrieve(transcript: str | Sequence[Any], active: Iterable[str] = ()) -> list[str]:
        held = list(dict.fromkeys(active))
        try:
            text = transcript if isinstance(transcript, str) else latest_human_text(transcript)
            selection = await retriever.select(catalog, text, k=k)
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
    one in-flight ``select``. A failure (a full roster for any reason but a blank message) is not
    kept, so the next round tries again. The ``size`` most recent messages are kept.
    """

    def __init__(self, retriever: Retriever, k: int | None = None, *, size: int = 64) -> None:
        self.retriever = retriever
        self.k = k
        self.size = size
        self._kept: OrderedDict[tuple[int, str], tuple[Catalog, Selection]] = OrderedDict()
        self._pending: dict[tuple[int, str], asyncio.Future[Selection]] = {}

    def kept(self, catalog: Catalog, text: str) -> Selection | None:
        """The selection kept for this catalog and message, if any (no waiting)."""
        key = (id(catalog), text)
        kept = self._kept.get(key)
        if kept is None or kept[0] is not catalog:
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
            pending = asyncio.ensure_future(self.retriever.select(catalog, text, k=self.k))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        selection = await asyncio.shield(pending)
        if selection.mode is not Mode.FULL or selection.reason is Reason.BLANK_MESSAGE:
            self._kept[key] = (catalog, selection)
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return selection


def bound_names(catalog: Catalog, selection: Selection, messages: Sequence[Any]) -> list[str]:
    """The catalog names a round binds: the turn's selection, then what find_tools found in
    this turn and the tools this turn already called (so a call made under a wider list, or
    awaiting approval, is never left without its tool), in that order, each once."""
    turn = current_turn(messages)
    found = [name for name in discovered_tool_names(turn) if name in catalog]
    called = [call.name for call in tool_calls(turn) if call.name in catalog]
    return list(dict.fromkeys([*selection.names, *found, *called]))
