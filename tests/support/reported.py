"""Reported turns stored as the worker stores them (``FeedbackStore.record``), for the console's
Misses page: each a message and the one tool it called that its selection had not bound."""

from __future__ import annotations

from collections.abc import Sequence

from toolret._catalog import Catalog
from toolret._profile import corpus_hash
from toolret.embedders._base import Embedder
from toolret.feedback._signals import TurnFeedback
from toolret.feedback._store import FeedbackStore
from toolret.store._pool import StorePool

__all__ = ["report_misses"]


async def report_misses(
    store: StorePool,
    catalog: Catalog,
    embedder: Embedder,
    turns: Sequence[tuple[str, str]],
    *,
    keep_text: bool = False,
    bound: tuple[str, ...] = ("delete_record",),
) -> None:
    """Store one narrowed turn per (message, missed tool), ``bound`` bound, its text kept when
    ``keep_text`` (``TOOLRET_FEEDBACK_TEXT=1``)."""
    feedback = FeedbackStore(store)
    for text, missed in turns:
        vector = tuple(float(v) for v in await embedder.embed_query(text))
        await feedback.record(
            TurnFeedback(
                embedder.model_id,
                corpus_hash(catalog, embedder),
                12,
                bound=bound,
                core=(),
                hits=(),
                misses=(missed,),
                discovered=(),
                find_tools_calls=0,
                vector=vector,
                text=text if keep_text else None,
            )
        )
