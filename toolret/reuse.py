"""Reuse within a turn: every round of an agent loop asks again about the same message.

A ReAct loop calls ``select()`` (the per-round hook) and ``find_tools`` several times for one
human message. The query embedding is cached already; these caches keep the rest, for
``REUSE_SECONDS`` after it was computed:

- ``RecentSelections``: the narrowed ``Selection`` for (catalog, message, k), before any
  cache-stable policy is applied — so a ``StableToolList`` that grew between rounds, or
  another conversation's, still gets its own list. Only narrowed selections with every tool
  ranked are kept: a full roster (something failed) or a corpus not yet published asks again.
- ``RecentRankings``: the store's ranking for (model, corpus, score, text), with the tools it
  left out. A later request with more tools left out (``find_tools`` with a grown ``bound``) is
  answered from it when the tools it ranked still hold enough besides those: the store returns
  the best tools outside what it was told to leave out, so whatever it did not return ranks
  below all of them.

Both are bounded (least recently used entries go first) and keyed by a digest of the text, so a
pasted megabyte is not kept.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from collections.abc import Callable, Collection
from typing import Any

from cachetools import TTLCache

from toolret.catalog import Catalog
from toolret.selection import Mode, Selection

__all__ = ["REUSE_SECONDS", "RecentRankings", "RecentSelections"]

REUSE_SECONDS = 60.0
"""How long a selection or ranking is reused: the rounds of one turn (tool calls included)
follow each other within seconds; a message asked again a minute later is asked afresh."""
_SIZE = 256


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class RecentSelections:
    """Narrowed selections of recent messages, per catalog (held weakly) and ``k``."""

    def __init__(
        self, seconds: float = REUSE_SECONDS, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self._entries: TTLCache[tuple[int, bytes, int], tuple[Any, Selection]] = TTLCache(
            maxsize=_SIZE, ttl=max(seconds, 0.0), timer=clock
        )

    def get(self, catalog: Catalog, message: str, k: int) -> Selection | None:
        """The selection kept for this catalog, message and ``k``, if any."""
        if self.seconds <= 0:
            return None
        entry = self._entries.get((id(catalog), _digest(message), k))
        if entry is None or entry[0]() is not catalog:  # another catalog took the id
            return None
        return entry[1]

    def keep(self, catalog: Catalog, message: str, k: int, selection: Selection) -> None:
        """Keep a narrowed selection in which every tool was ranked; ignore anything else."""
        if self.seconds <= 0 or selection.mode is not Mode.NARROWED or selection.unranked:
            return
        key = (id(catalog), _digest(message), k)
        self._entries[key] = (weakref.ref(catalog), selection)


class RecentRankings:
    """The store's recent rankings, reused for requests they answer in full.

    Values are whatever the store returned (``toolret.store.StoreRanking``); the caller keeps
    only complete ones (published corpus, no unranked tools).
    """

    def __init__(
        self, seconds: float = REUSE_SECONDS, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self._entries: TTLCache[tuple[object, bytes], list[tuple[frozenset[str], Any]]] = TTLCache(
            maxsize=_SIZE, ttl=max(seconds, 0.0), timer=clock
        )

    def get(self, key: object, text: str, limit: int, exclude: Collection[str]) -> Any | None:
        """A kept ranking that holds ``limit`` ranked tools besides ``exclude``, and that left
        out nothing ``exclude`` does not (so no tool it skipped can be missing)."""
        if self.seconds <= 0:
            return None
        wider = frozenset(exclude)
        for skipped, ranking in self._entries.get((key, _digest(text)), ()):
            if skipped <= wider and sum(n not in exclude for n in ranking.scores) >= limit:
                return ranking
        return None

    def keep(self, key: object, text: str, exclude: Collection[str], ranking: Any) -> None:
        """Keep the ranking the store returned for ``text`` with ``exclude`` left out."""
        if self.seconds <= 0:
            return
        entry = (key, _digest(text))
        kept = [*self._entries.get(entry, ())[-3:], (frozenset(exclude), ranking)]
        self._entries[entry] = kept
