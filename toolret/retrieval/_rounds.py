"""The per-round hook for an agent loop: ``make_per_round_retrieve`` (a ``per_round_retrieve``).

Every round of a ReAct loop asks which tools to bind. The hook selects, with the retriever it is
given (the caller opens and closes it), on the most recent human message of the transcript and
adds what it finds to the tools the loop already holds active; it never removes one. The query
embedding is cached by model and text, so the 25 rounds of one message cost one embedding and
then well under a millisecond each. A failure is logged and the round goes on with the tools it
already had.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from toolret._catalog import Catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._stable import StableToolList
from toolret.retrieval._transcript import latest_human_text

__all__ = ["PerRoundRetrieve", "make_per_round_retrieve"]

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
