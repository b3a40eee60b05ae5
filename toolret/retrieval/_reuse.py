"""Reuse within a turn: every round of an agent loop asks again about the same message.

A ReAct loop calls ``select()`` (the per-round hook) and ``find_tools`` several times for one
human message. The query embedding is cached already; these caches keep the rest, for
``REUSE_SECONDS`` after it was computed:

- ``RecentSelections``: the narrowed ``Selection`` for (catalog, message, k), before any
  cache-stable policy is applied — so a ``StableToolList`` that grew between rounds, or
  another conversation's, still gets its own list. Only narrowed selections with every tool
  ranked are kept: a full roster (something failed) or a corpus not yet published asks again.
- ``RecentRankings``: the client's ranking for (model, corpus, score, mode, text), with the
  tools it left out. A later request with more tools left out (``find_tools`` with a grown
  ``bound``) is answered from it when its exact top still holds enough besides those: the
  ranking is exact to a known depth, so whatever is outside that top ranks below all of it.

Both are bounded (least recently used entries go first) and keyed by a digest of the text, so a
pasted megabyte is not kept. A turn ends with ``report_turn``: what was kept for its message is
dropped, so the same message asked afterwards is ranked afresh (with any example learned since).
"""

from __future__ import annotations

import hashlib
import heapq
import time
import weakref
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache

from toolret._catalog import Catalog
from toolret.retrieval._selection import Mode, Ranking, Selection

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

    def forget(self, message: str) -> None:
        """Drop what is kept for ``message`` (its turn has ended: ``report_turn``)."""
        digest = _digest(message)
        for key in [key for key in self._entries if key[1] == digest]:
            self._entries.pop(key, None)

    def keep(self, catalog: Catalog, message: str, k: int, selection: Selection) -> None:
        """Keep a narrowed selection in which every tool was ranked; ignore anything else."""
        if self.seconds <= 0 or selection.mode is not Mode.NARROWED or selection.unranked:
            return
        key = (id(catalog), _digest(message), k)
        self._entries[key] = (weakref.ref(catalog), selection)


class RecentRankings:
    """Recent rankings of the store, reused for requests they answer in full.

    A ranking is kept with the depth to which it is exact (the statement returns the best
    ``depth`` tools outside what it was told to leave out, and hybrid's fusion is exact as deep,
    ``toolret.retrieval._hybrid``); the caller keeps only complete ones (published corpus, nothing
    unranked).
    """

    def __init__(
        self, seconds: float = REUSE_SECONDS, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self._entries: TTLCache[tuple[object, bytes], list[tuple[frozenset[str], _Kept]]] = (
            TTLCache(maxsize=_SIZE, ttl=max(seconds, 0.0), timer=clock)
        )

    def get(self, key: object, text: str, limit: int, exclude: Collection[str]) -> Ranking | None:
        """A kept ranking whose exact top holds ``limit`` tools besides ``exclude``, and that
        left out nothing ``exclude`` does not (so no tool it skipped can be missing)."""
        if self.seconds <= 0:
            return None
        wider = frozenset(exclude)
        for skipped, kept in self._entries.get((key, _digest(text)), ()):
            if skipped <= wider and sum(n not in wider for n in kept.top) >= limit:
                return kept.ranking
        return None

    def forget(self, text: str) -> None:
        """Drop the rankings kept for ``text``."""
        digest = _digest(text)
        for entry in [entry for entry in self._entries if entry[1] == digest]:
            self._entries.pop(entry, None)

    def keep(
        self,
        key: object,
        text: str,
        exclude: Collection[str],
        ranking: Ranking,
        *,
        depth: int,
        candidates: Collection[str],
    ) -> None:
        """Keep the ranking of ``text`` with ``exclude`` left out, exact to ``depth`` places
        among ``candidates`` (the catalog's tools but core ones)."""
        if self.seconds <= 0:
            return
        scores = ranking.scores
        eligible = (n for n in scores if n in candidates and n not in exclude)
        top = tuple(heapq.nlargest(depth, eligible, key=scores.__getitem__))
        entry = (key, _digest(text))
        kept = [*self._entries.get(entry, ())[-3:], (frozenset(exclude), _Kept(ranking, top))]
        self._entries[entry] = kept


@dataclass(frozen=True)
class _Kept:
    ranking: Ranking
    top: tuple[str, ...]
    """The ``depth`` best of ``ranking``: every tool outside it ranks below all of them."""
