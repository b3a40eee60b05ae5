"""Tools used together: a tool a turn binds, calls or finds brings its usual companions.

From reported turns the worker counts, for each tool, in how many turns the model called it,
and for each pair of tools, in how many it called both (``toolret.feedback._companion_store``):
tool names and counts, never text. A tool ``b``'s strength as a companion of ``a`` is
``turns(a and b) / (turns(a) + PRIOR)``: how often ``a``'s turns also needed ``b``, shrunk
when ``a`` was seen in few turns. A pair counts once it was called together in two turns
(``MIN_TOGETHER``) and with at least a fifth of the anchor's (``MIN_STRENGTH``): one turn is an
accident, and a tool called at random beside everything stays a small share of each.
``Companions`` holds each tool's strongest ``PER_TOOL``.

Both retrievers use them the same way, after ranking, so ``k`` still bounds what is bound:

- ``select``: of the ``k`` places, the last ``select_slots(k)`` go to the strongest companions
  of the tools ranked above them (an anchor's strength discounted by ``ANCHOR_DECAY`` per
  place it ranks below the first), unless they already rank there;
- ``find_tools``: of each capability's ``limit`` tools, the last ``find_slots(limit)`` go to
  the strongest companions of the tools already bound (or called, in the gateway) and of the
  capability's own first finds that the answer does not hold yet.

Places no companion fills keep the ranking's tools, so a catalog with no recorded turns ranks
exactly as before. The shares and constants were chosen on toollens-dev, learning from one
half of its requests and measuring the other (``python -m evals.studies.companions``;
docs/decisions.md, "Tools used together").
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from toolret._catalog import Catalog
from toolret.errors import SchemaMissingError
from toolret.retrieval._breaker import StoreDown
from toolret.retrieval._selection import FoundTools, Ranking, top_k

__all__ = [
    "ANCHOR_DECAY",
    "MAX_CALLED",
    "MIN_STRENGTH",
    "MIN_TOGETHER",
    "NO_COMPANIONS",
    "PER_TOOL",
    "PRIOR",
    "REFRESH_SECONDS",
    "RETRY_SECONDS",
    "CompanionCache",
    "Companions",
    "called_together",
    "companion_answers",
    "find_slots",
    "select_slots",
    "with_companions",
]

SELECT_SHARE = 1 / 3
"""The share of ``select``'s ``k`` places companions may take: 4 of 12."""
FIND_SHARE = 2 / 5
"""The share of find_tools' tools a capability companions may take: 2 of 5."""
ANCHOR_DECAY = 0.8
"""In ``select``, an anchor ranked ``i`` places below the first lends ``0.8 ** i`` of its
companions' strength: the tools ranked first are the likeliest to be needed."""
PRIOR = 2.0
"""Turns added to a tool's own count before dividing: ``a`` called twice, both times with
``b``, makes ``b`` a companion of strength 1/2, not 1."""
MIN_TOGETHER = 1.5
"""Turns two tools must have been called together in before one is the other's companion: one
turn is an accident (a message that asked two unrelated things), two are a pattern. Counts
decay (``toolret.store._companion_sql``), so two turns count when the earlier is at most a
half-life old."""
MIN_STRENGTH = 0.2
"""The weakest companion bound: ``b`` must come with at least about a fifth of ``a``'s turns,
so that tools called at random beside everything, however often, stay below it."""
PER_TOOL = 8
"""Companions kept per tool, strongest first: more than any answer has places for."""
MAX_CALLED = 8
"""Tools of one turn that count, in the order they were first called: a turn that calls
dozens of tools says little about which belong together, and writes at most 36 counts."""

REFRESH_SECONDS = 60.0
"""How long the client uses the counts it read before reading them again: a pattern the worker
learns reaches selections within a minute, for one small query a minute per catalog."""
RETRY_SECONDS = 5.0
"""After a failed read, how long the client ranks without companions before trying again."""

log = logging.getLogger("toolret.selection")
Eligible = Callable[[str], bool]


def select_slots(k: int) -> int:
    """How many of ``select``'s ``k`` places companions may take."""
    return int(k * SELECT_SHARE)


def find_slots(limit: int) -> int:
    """How many of a find_tools capability's ``limit`` tools companions may take."""
    return int(limit * FIND_SHARE)


def called_together(names: Iterable[str]) -> tuple[str, ...]:
    """The tools of one turn that count: distinct, in first-called order, at most
    ``MAX_CALLED``."""
    return tuple(dict.fromkeys(names))[:MAX_CALLED]


@dataclass(frozen=True)
class Companions:
    """Each tool's strongest companions, ``(name, strength)`` best first."""

    of: Mapping[str, tuple[tuple[str, float], ...]] = field(default_factory=dict)

    @classmethod
    def from_counts(
        cls,
        turns: Mapping[str, float],
        pairs: Mapping[tuple[str, str], float],
        *,
        prior: float = PRIOR,
        per_tool: int = PER_TOOL,
        min_together: float = MIN_TOGETHER,
        min_strength: float = MIN_STRENGTH,
    ) -> Companions:
        """From the turns each tool was called in and the turns each pair (either order) was
        called together in; a pair needs ``min_together`` turns, a companion ``min_strength``."""
        found: dict[str, list[tuple[str, float]]] = {}
        for (a, b), together in pairs.items():
            if a == b or together < min_together or together <= 0:
                continue
            for anchor, companion in ((a, b), (b, a)):
                # Rounded: counts decay continuously, and two processes reading a minute apart
                # must order equal companions alike (by name), not by the decay between reads.
                strength = round(together / (max(turns.get(anchor, 0.0), together) + prior), 4)
                if strength >= min_strength:
                    found.setdefault(anchor, []).append((companion, strength))
        return cls(
            {
                anchor: tuple(sorted(listed, key=lambda item: (-item[1], item[0]))[:per_tool])
                for anchor, listed in found.items()
            }
        )

    @classmethod
    def from_turns(
        cls,
        turns: Iterable[Iterable[str]],
        *,
        prior: float = PRIOR,
        min_together: float = MIN_TOGETHER,
        min_strength: float = MIN_STRENGTH,
    ) -> Companions:
        """From the names of the tools each turn called (a list per turn), counted as the
        worker counts reported turns (``called_together``); for the in-memory retriever."""
        alone: dict[str, float] = {}
        pairs: dict[tuple[str, str], float] = {}
        for names in turns:
            called = called_together(names)
            for i, a in enumerate(called):
                alone[a] = alone.get(a, 0.0) + 1
                for b in called[i + 1 :]:
                    key = (a, b) if a < b else (b, a)
                    pairs[key] = pairs.get(key, 0.0) + 1
        return cls.from_counts(
            alone, pairs, prior=prior, min_together=min_together, min_strength=min_strength
        )

    def __bool__(self) -> bool:
        return bool(self.of)

    def strongest(
        self,
        anchors: Sequence[str],
        *,
        weights: Sequence[float] | None = None,
        skip: Iterable[str] = (),
        eligible: Eligible = lambda name: True,
    ) -> list[tuple[str, str]]:
        """``(companion, anchor)`` for the anchors' companions, strongest first (ties by name):
        each companion once, under the anchor that lends it the most, none in ``skip`` or among
        the anchors, only ``eligible`` ones. ``weights`` scale each anchor's strengths."""
        excluded = set(skip) | set(anchors)
        best: dict[str, tuple[float, str]] = {}
        for i, anchor in enumerate(anchors):
            weight = 1.0 if weights is None else weights[i]
            for name, strength in self.of.get(anchor, ()):
                value = weight * strength
                if name in excluded or value <= best.get(name, (0.0, ""))[0]:
                    continue
                if eligible(name):
                    best[name] = (value, anchor)
        ordered = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
        return [(name, anchor) for name, (_, anchor) in ordered]

    def in_select(
        self,
        ranked: Sequence[str],
        k: int,
        eligible: Eligible,
        *,
        slots: int | None = None,
        decay: float = ANCHOR_DECAY,
    ) -> tuple[list[str], dict[str, str]]:
        """``select``'s ``k`` tools from ``ranked`` (best first, at least ``k`` when the
        catalog has them): the first ``k - select_slots(k)``, the strongest companions of those
        (``ANCHOR_DECAY``), then the ranking's next. Also each companion's anchor. ``slots``
        and ``decay`` override the measured choices (for the study)."""
        slots = select_slots(k) if slots is None else slots
        base = list(ranked[: k - slots])
        if not slots or not self:
            return list(ranked[:k]), {}
        weights = [decay**i for i in range(len(base))]
        added = dict(self.strongest(base, weights=weights, eligible=eligible)[:slots])
        rest = [name for name in ranked[len(base) :] if name not in added]
        return [*base, *added, *rest][:k], added

    def in_answers(
        self,
        answers: Sequence[Sequence[str]],
        limit: int,
        *,
        anchors: Sequence[str] = (),
        skip: Iterable[str] = (),
        eligible: Eligible = lambda name: True,
        slots: int | None = None,
    ) -> list[list[str]]:
        """find_tools' answers (one list per capability, at most ``limit`` each, none
        repeated), each with its last ``find_slots(limit)`` (or ``slots``) places given to the
        strongest companions of ``anchors`` and of its own first tools that no answer holds yet
        and ``skip`` does not name; what they displace is dropped."""
        slots = find_slots(limit) if slots is None else slots
        if not slots or not self:
            return [list(answer) for answer in answers]
        taken = set(skip).union(*answers)
        out = []
        for answer in answers:
            first = list(answer[: limit - slots])
            found = self.strongest([*anchors, *first], skip=taken, eligible=eligible)
            added = [name for name, _ in found[:slots]]
            taken.update(added)
            out.append([*first, *added, *answer[len(first) :]][:limit])
        return out


NO_COMPANIONS = Companions()
"""No recorded turns (or companions turned off): rankings are used as they are."""


def with_companions(catalog: Catalog, ranking: Ranking, k: int, companions: Companions) -> Ranking:
    """``ranking`` with its ``k`` tools chosen: the best ranked, then the strongest companions
    of those (``Companions.in_select``); ``ranking`` itself when no companion applies."""
    if not companions or not ranking.scores:
        return ranking
    ranked = top_k(catalog, ranking.scores, k)
    chosen, added = companions.in_select(ranked, k, lambda name: _candidate(catalog, name))
    if not added:
        return ranking
    return dataclasses.replace(ranking, chosen=tuple(chosen), companions=added)


def companion_answers(
    catalog: Catalog,
    answers: Sequence[FoundTools],
    limit: int,
    companions: Companions,
    *,
    anchors: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> list[FoundTools]:
    """find_tools' dealt answers (``assign_found``) with the last places of each given to the
    companions of ``anchors`` (the tools bound, or called) and of its own first finds
    (``Companions.in_answers``), none core, none in ``skip``; reasons kept."""
    if not companions:
        return list(answers)
    skipped = set(skip)
    lists = companions.in_answers(
        [[tool.name for tool in found] for found in answers],
        limit,
        anchors=[name for name in dict.fromkeys(anchors) if name in catalog],
        skip=skipped,
        eligible=lambda name: _candidate(catalog, name) and name not in skipped,
    )
    return [
        FoundTools((catalog[name] for name in names), found.reason)
        for names, found in zip(lists, answers, strict=True)
    ]


def _candidate(catalog: Catalog, name: str) -> bool:
    return name in catalog and not catalog[name].core


@dataclass
class _Entry:
    companions: Companions = field(default_factory=Companions)
    expires: float = float("-inf")
    reading: asyncio.Task[Companions] | None = None


class CompanionCache:
    """Each catalog's companions as ``read`` last returned them, read again after ``refresh``
    seconds; concurrent requests share one read, and none waits for it longer than ``wait``
    (it then goes on with what was read before, or none). A failed read gives none until
    ``RETRY_SECONDS`` later; it is logged once, not per selection, until a read succeeds (a
    missing table as info: the store reports the schema)."""

    def __init__(
        self,
        read: Callable[[Catalog], Awaitable[Companions]],
        *,
        wait: float,
        refresh: float = REFRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.wait = wait
        self.refresh = refresh
        self._clock = clock
        self._entries: weakref.WeakKeyDictionary[Catalog, _Entry] = weakref.WeakKeyDictionary()
        self._failing = False

    def fresh(self, catalog: Catalog) -> Companions | None:
        """The catalog's companions if they need no read now (what ``get`` would return at
        once), else None."""
        entry = self._entries.get(catalog)
        if entry is None or self._clock() >= entry.expires:
            return None
        return entry.companions

    async def get(self, catalog: Catalog) -> Companions:
        """The catalog's companions; never raises."""
        entry = self._entries.get(catalog)
        if entry is None:
            entry = self._entries[catalog] = _Entry()
        if self._clock() < entry.expires:
            return entry.companions
        if entry.reading is None:
            entry.reading = asyncio.ensure_future(self._refresh(catalog, entry))
        try:
            async with asyncio.timeout(self.wait):
                return await asyncio.shield(entry.reading)
        except TimeoutError:
            return entry.companions

    async def _refresh(self, catalog: Catalog, entry: _Entry) -> Companions:
        try:
            entry.companions = await self._read(catalog)
        except Exception as error:
            entry.companions = NO_COMPANIONS
            entry.expires = self._clock() + RETRY_SECONDS
            if not self._failing:
                self._failing = True
                # A database without the table: its schema error is the store's to report
                # (once); selections narrow on the ranking alone meanwhile.
                level = logging.INFO if isinstance(error, SchemaMissingError) else logging.WARNING
                if isinstance(error, StoreDown):  # the database's breaker has said it is down
                    level = logging.DEBUG
                log.log(level, "toolret: ranking without tools used together: %r", error)
        else:
            entry.expires = self._clock() + self.refresh
            if self._failing:
                self._failing = False
                log.info("toolret: tools used together are read again")
        finally:
            entry.reading = None
        return entry.companions

    async def aclose(self) -> None:
        """Cancel the reads in flight."""
        tasks = [e.reading for e in self._entries.values() if e.reading is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
