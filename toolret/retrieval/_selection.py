"""The selection policy: which tools a turn is sent.

Pure functions over a catalog and a ranking, plus ``select_guarded``, the one place that turns
every failure into the full roster within the time budget (``within_budget``: a budget that runs
out counts against the dependency waited on, ``toolret.retrieval._breaker``). Retrievers (in
memory, pgvector) supply only a ranking function.

Rules: core tools always; then the top ``k`` non-core tools by score; output in catalog order.
A catalog with no more than ``k`` non-core tools passes through whole without ranking.
A blank message or a resumed turn gets the full roster. Any failure gets the full roster.
A candidate that has no vector yet cannot be ranked: a narrowed selection binds it anyway (it
must stay reachable), lists it in ``unranked`` and says so (``partly_indexed``), so that a
narrowed selection with no reason never binds more than the core tools and ``k``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.errors import (
    EmbedderError,
    EmbedderUnavailableError,
    NotIndexedError,
    SchemaMissingError,
    StoreError,
)
from toolret.retrieval import _tokens as tokens
from toolret.retrieval._breaker import within_budget
from toolret.retrieval._fail_open_log import FAIL_OPEN_LOG, FIND_TOOLS_LOG, FailOpenLog
from toolret.retrieval._signals import ScoreParts, by_tool

__all__ = [
    "DEFAULT_K",
    "DEFAULT_TIME_BUDGET",
    "MAX_CAPABILITIES",
    "MAX_DISCOVERED_TOOLS",
    "TIE_SLACK",
    "FailOpenLog",
    "FoundTools",
    "KeptSelections",
    "Mode",
    "Ranking",
    "Reason",
    "Selection",
    "SelectionPolicy",
    "assign_found",
    "discover",
    "discover_each",
    "full_roster",
    "narrow",
    "passthrough",
    "reason_for",
    "select_guarded",
]

log = logging.getLogger("toolret.selection")

DEFAULT_K = 12
DEFAULT_TIME_BUDGET = 1.5
"""Seconds a selection may take before the full roster is sent instead."""


class Mode(StrEnum):
    """How the tools of a selection were chosen."""

    NARROWED = "narrowed"
    """Core tools plus the top ``k`` by similarity."""
    PASSTHROUGH = "passthrough"
    """The catalog had no more than ``k`` candidates: sent whole, nothing ranked."""
    FULL = "full"
    """The full roster, because of ``reason``."""


class Reason(StrEnum):
    """Why the full roster was sent; or, on a narrowed selection, why it binds more than the
    core tools and ``k`` (``PARTLY_INDEXED``)."""

    BLANK_MESSAGE = "blank_message"
    RESUME = "resume"
    EMBEDDER_UNAVAILABLE = "embedder_unavailable"
    EMBEDDER_ERROR = "embedder_error"
    TIMEOUT = "timeout"
    NOT_INDEXED = "not_indexed"
    SCHEMA_MISSING = "schema_missing"
    """The database has no toolret tables, or an older schema: run ``toolret db upgrade``."""
    STORE_ERROR = "store_error"
    INTERNAL_ERROR = "internal_error"
    PARTLY_INDEXED = "partly_indexed"
    """Narrowed, but some candidates have no vector yet (``Selection.unranked``): bound unranked
    beside the best ``k`` until indexed (asked of the worker, or inline by ``toolret serve``)."""


@dataclass(frozen=True)
class Ranking:
    """Similarity scores of candidate tools (higher is better), perhaps of the best few only.
    ``unranked`` names tools that could not be scored (no vector yet): bound anyway."""

    scores: Mapping[str, float]
    unranked: tuple[str, ...] = ()
    chosen: tuple[str, ...] | None = None
    """Set when the tools are picked after ranking (companions); ``scores`` annotate them."""
    companions: Mapping[str, str] = field(default_factory=dict)
    """Of ``chosen``, the companions picked, each with the ranked tool it goes with."""
    parts: ScoreParts | None = None  # what each signal added (toolret.retrieval._signals)


@dataclass(frozen=True)
class Selection:
    """The tools to send the model this turn, and why."""

    tools: tuple[Tool, ...]
    mode: Mode
    reason: Reason | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    unranked: tuple[str, ...] = ()
    """Candidates bound because they have no vector to rank them by (``PARTLY_INDEXED``)."""
    elapsed_ms: float = 0.0
    schema_tokens: int | None = None
    """Tokens of the definitions sent (``toolret.retrieval._tokens``); None when not counted."""
    roster_tokens: int | None = None
    """Tokens of every definition in the catalog, for comparison."""
    tokenizer: str | None = None
    """What counted them: ``estimate`` or a tokenizer's name."""
    companions: Mapping[str, str] = field(default_factory=dict)
    """Tools bound within ``k`` as a better-ranked tool's usual companion (tool: that one)."""
    signals: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Each ranked tool's score by signal (``dense``, ``sparse``, ``lexical``; they sum to it)."""

    @property
    def names(self) -> list[str]:
        """The selected tool names, in the order they are sent (catalog order unless a
        cache-stable policy ordered them)."""
        return [tool.name for tool in self.tools]

    @property
    def tokens_saved(self) -> int | None:
        """Roster tokens minus the tokens sent; None when not counted."""
        if self.schema_tokens is None or self.roster_tokens is None:
            return None
        return self.roster_tokens - self.schema_tokens

    @property
    def narrowed(self) -> bool:
        """True when fewer tools than the whole roster are sent."""
        return self.mode is Mode.NARROWED


def full_roster(catalog: Catalog, reason: Reason) -> Selection:
    """Every tool, with the reason retrieval was not used."""
    return Selection(catalog.tools, Mode.FULL, reason)


def passthrough(catalog: Catalog) -> Selection:
    """Every tool, because there was nothing to narrow."""
    return Selection(catalog.tools, Mode.PASSTHROUGH)


def needs_ranking(catalog: Catalog, k: int) -> bool:
    """Whether the catalog has more than ``k`` candidates (otherwise it passes through)."""
    return len(catalog.candidates) > k


SCORE_RESOLUTION = 1e-6
"""Scores closer than this rank as ties (``top_k``)."""
TIE_SLACK = 2
"""Tools a retriever that ranks only the best few (the client's statement) ranks past ``k``: a
tie straddling the ``k``-th place is then broken by ``top_k``, as in the in-memory retriever."""


def top_k(
    catalog: Catalog, scores: Mapping[str, float], k: int, exclude: Iterable[str] = ()
) -> list[str]:
    """The ``k`` best-scoring candidates; ties go to the tool whose name sorts first.

    Scores are compared to ``SCORE_RESOLUTION``: the store computes cosines in float32 in its
    own order and numpy in another, so the same score differs by up to 3e-7 between the two
    retrievers, and closer scores are ties. Ties (tools described alike score exactly the same)
    go by name, as the store's statements order them, so both retrievers pick the same tools."""
    skip = set(exclude)
    ranked = [
        name for name in scores if name in catalog and not catalog[name].core and name not in skip
    ]
    return heapq.nsmallest(
        k, ranked, key=lambda name: (-round(scores[name] / SCORE_RESOLUTION), name)
    )


def narrow(catalog: Catalog, ranking: Ranking, k: int) -> Selection:
    """Core tools, the top ``k`` ranked candidates and any unranked ones, in catalog order;
    ``PARTLY_INDEXED`` when there are unranked ones."""
    if not ranking.scores:
        return full_roster(catalog, Reason.NOT_INDEXED)
    chosen = (
        list(ranking.chosen) if ranking.chosen is not None else top_k(catalog, ranking.scores, k)
    )
    picked = set(chosen)
    unranked = tuple(
        name
        for name in dict.fromkeys(ranking.unranked)
        if name in catalog and not catalog[name].core and name not in picked
    )
    names = {tool.name for tool in catalog.core} | picked | set(unranked)
    scores = {name: float(ranking.scores[name]) for name in chosen if name in ranking.scores}
    reason = Reason.PARTLY_INDEXED if unranked else None
    added = {name: anchor for name, anchor in ranking.companions.items() if name in picked}
    parts = by_tool(ranking.parts, scores)
    return Selection(
        catalog.subset(names),
        Mode.NARROWED,
        reason,
        scores,
        unranked,
        companions=added,
        signals=parts,
    )


RankFunction = Callable[[str], Awaitable[Ranking]]


class SelectionPolicy(Protocol):
    """Turns a turn's selection into what is sent: ``toolret.retrieval._stable.StableToolList``."""

    def apply(self, selection: Selection) -> Selection: ...


class KeptSelections(Protocol):
    """The selections of a turn, kept to answer the same message again:
    ``toolret.retrieval._reuse.RecentSelections``."""

    def get(self, catalog: Catalog, message: str, k: int) -> Selection | None: ...

    def keep(self, catalog: Catalog, message: str, k: int, selection: Selection) -> None: ...


MAX_DISCOVERED_TOOLS = 5
"""find_tools returns at most this many a capability: by then the model names a capability it
knows it needs, so precision beats recall, and it can always ask again."""
MAX_CAPABILITIES = 5
"""find_tools ranks at most this many capabilities a call, one query embedding each."""


class FoundTools(list[Tool]):
    """find_tools' answer: the tools found, best first; empty when no search could run, with
    ``reason`` (``NOT_INDEXED``: being embedded) telling "nothing matches" from "not yet"."""

    def __init__(self, tools: Iterable[Tool] = (), reason: Reason | None = None) -> None:
        super().__init__(tools)
        self.reason = reason


async def discover(
    catalog: Catalog,
    capability: str,
    rank: RankFunction,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    time_budget: float = DEFAULT_TIME_BUDGET,
    fail_log: FailOpenLog | None = None,
) -> FoundTools:
    """find_tools' answer: at most ``limit`` candidates for a capability phrase, none already
    bound, best first. Empty on a blank phrase; on any failure empty with the reason, logged
    once per cause (``fail_log``, else the module's); bounded by the budget."""
    if not capability.strip() or limit <= 0:
        return FoundTools()
    fail_log = fail_log or FIND_TOOLS_LOG
    try:
        ranking = await within_budget(lambda: rank(capability), time_budget)
    except Exception as error:
        reason = reason_for(error)
        fail_log.failed(reason, error)
        return FoundTools(reason=reason)
    fail_log.narrowed()
    if catalog.candidates and not ranking.scores:
        return FoundTools(reason=Reason.NOT_INDEXED)
    names = top_k(catalog, ranking.scores, limit, exclude=bound)
    return FoundTools(catalog[name] for name in names)


def assign_found(answers: Sequence[FoundTools], limit: int) -> list[FoundTools]:
    """Each capability's answer cut to ``limit`` (its reason kept), no tool under two: slots dealt
    round by round (every one's best, then second…), so a tool two capabilities rank goes to the
    one ranking it higher (the earlier on a tie), and none takes a later one's best."""
    taken: set[str] = set()
    kept: list[list[Tool]] = [[] for _ in answers]
    cursors = [0] * len(answers)
    for _ in range(limit):
        for i, found in enumerate(answers):
            while cursors[i] < len(found) and found[cursors[i]].name in taken:
                cursors[i] += 1
            if cursors[i] < len(found) and len(kept[i]) < limit:
                kept[i].append(found[cursors[i]])
                taken.add(found[cursors[i]].name)
                cursors[i] += 1
    return [FoundTools(tools, found.reason) for tools, found in zip(kept, answers, strict=True)]


async def discover_each(
    catalog: Catalog,
    capabilities: Sequence[str],
    rank: RankFunction,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    time_budget: float = DEFAULT_TIME_BUDGET,
) -> list[FoundTools]:
    """``discover`` for several capabilities at once, ranked concurrently (each within
    ``time_budget``): up to ``limit`` tools each, none repeated across them (``assign_found``).
    ``rank`` must rank at least ``limit`` × the number of capabilities deep."""
    skip = set(bound)
    answers = await asyncio.gather(
        *(
            discover(
                catalog,
                capability,
                rank,
                bound=skip,
                limit=limit * len(capabilities),
                time_budget=time_budget,
            )
            for capability in capabilities
        )
    )
    return assign_found(answers, limit)


async def select_guarded(
    catalog: Catalog,
    message: str,
    rank: RankFunction,
    *,
    k: int = DEFAULT_K,
    time_budget: float = DEFAULT_TIME_BUDGET,
    resume: bool = False,
    stable: SelectionPolicy | None = None,
    recent: KeptSelections | None = None,
    fail_open_log: FailOpenLog | None = None,
) -> Selection:
    """Apply the selection rules around ``rank``; never raises, never exceeds ``time_budget``.

    ``stable`` (a ``toolret.retrieval._stable.StableToolList``) keeps one conversation's tool
    list growing as a byte-stable prefix instead of sending this turn's subset in catalog order.
    ``recent`` (``toolret.retrieval._reuse.RecentSelections``) answers a message asked again
    within a turn with the selection already made, before ``stable`` applies. Every selection
    carries the tokens of the definitions it sends and of the whole roster. ``fail_open_log`` is
    the retriever's own ``FailOpenLog`` (each logs its outages once); without it, the module's.
    """
    fail_open_log = fail_open_log or FAIL_OPEN_LOG
    started = time.perf_counter()
    reused = None if resume or recent is None else recent.get(catalog, message, k)
    if reused is not None:
        selection = reused
    else:
        try:
            selection = await _select(catalog, message, rank, k, time_budget, resume)
        except Exception as error:  # fail-open is the contract; cancellation still propagates
            reason = reason_for(error)
            fail_open_log.failed(reason, error)
            selection = full_roster(catalog, reason)
        else:
            if selection.mode is Mode.NARROWED:
                fail_open_log.narrowed()
        if recent is not None and not resume:
            recent.keep(catalog, message, k, selection)
    if stable is not None:
        try:
            selection = stable.apply(selection)
        except Exception as error:
            log.warning("toolret: the cache-stable list failed, sending the roster: %r", error)
            selection = full_roster(catalog, Reason.INTERNAL_ERROR)
    elapsed = (time.perf_counter() - started) * 1000
    return dataclasses.replace(
        selection,
        elapsed_ms=elapsed,
        schema_tokens=tokens.schema_tokens(selection.tools),
        roster_tokens=tokens.roster_tokens(catalog),
        tokenizer=tokens.tokenizer_name(),
    )


async def _select(
    catalog: Catalog, message: str, rank: RankFunction, k: int, budget: float, resume: bool
) -> Selection:
    if resume:
        return full_roster(catalog, Reason.RESUME)
    if not needs_ranking(catalog, k):
        return passthrough(catalog)
    if not message or not message.strip():
        return full_roster(catalog, Reason.BLANK_MESSAGE)
    ranking = await within_budget(lambda: rank(message), budget)
    return narrow(catalog, ranking, k)


def reason_for(error: BaseException) -> Reason:
    """The fail-open reason an error stands for (``internal_error`` for anything unexpected)."""
    if isinstance(error, TimeoutError):
        return Reason.TIMEOUT
    if isinstance(error, EmbedderUnavailableError):
        return Reason.EMBEDDER_UNAVAILABLE
    if isinstance(error, EmbedderError):
        return Reason.EMBEDDER_ERROR
    if isinstance(error, NotIndexedError):
        return Reason.NOT_INDEXED
    if isinstance(error, SchemaMissingError):
        return Reason.SCHEMA_MISSING
    if isinstance(error, StoreError):
        return Reason.STORE_ERROR
    return Reason.INTERNAL_ERROR
