"""What the gateway learns from its clients' calls: find_tools misses and tools used together.

The gateway sees no turns and no messages, only each connection's requests. On a connection
that is one client's (the older protocol, before 2026, with a channel of its own; under the 2026
protocol and over stateless HTTP each request stands alone, so nothing is learned there):

- **misses**: when a call through ``call_tool`` names a tool that an earlier find_tools call did
  not return and a later one did (the model rephrased until it found it), each earlier
  capability is reported as a miss of that tool (``report_miss``), which the worker learns
  from when the gateway learns (``TOOLRET_LEARN=1``, ``REDIS_URL``);
- **tools used together**: the tools a connection calls with no pause of ``TURN_GAP`` seconds
  between two calls are one turn's. The turn's tools are the anchors of the connection's next
  find_tools (their usual companions take an answer's last places), and once the turn ends (the
  next call comes after the gap, or it holds ``MAX_CALLED`` tools) its names are sent to the
  worker to count (``ToolRetrievalClient.report_calls``): names only.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolret._catalog import Catalog
from toolret.retrieval._companions import MAX_CALLED
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, Mode, Selection

if TYPE_CHECKING:
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["MAX_SEARCHES", "TURN_GAP", "Traffic", "report_miss"]

MAX_SEARCHES = 8
"""find_tools calls a connection keeps between two call_tool calls."""
TURN_GAP = 60.0
"""Seconds without a call that end a connection's turn: a turn's calls follow each other within
seconds, while the next request waits for a person. A choice, not a measurement: no timed
traffic was at hand."""

Searched = list[tuple[str, set[str]]]
"""One find_tools call: each capability and the names it returned."""


async def report_miss(
    client: ToolRetrievalClient,
    catalog: Catalog | None,
    capability: str,
    shown: set[str],
    called: str,
) -> bool:
    """Report that ``capability`` needed ``called`` though find_tools showed ``shown``: a
    miss the worker learns from when the client learns (``TOOLRET_LEARN``, ``REDIS_URL``);
    the capability's vector is the one its search embedded. Never raises."""
    if catalog is None or called not in catalog:
        return False
    selection = Selection(catalog.subset(shown), Mode.NARROWED)
    return await client.report_turn(
        catalog, selection, [called], message=capability, k=MAX_DISCOVERED_TOOLS
    )


@dataclass
class _Connection:
    searches: list[Searched] = field(default_factory=list)
    turn: list[str] = field(default_factory=list)
    last_call: float = float("-inf")


class Traffic:
    """Each connection's find_tools calls since its last call_tool, and its current turn.

    ``catalog`` returns the gateway's current catalog; ``client`` reports to the worker.
    """

    def __init__(
        self,
        client: ToolRetrievalClient,
        catalog: Callable[[], Catalog | None],
        *,
        gap: float = TURN_GAP,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self._catalog = catalog
        self.gap = gap
        self._clock = clock
        self._connections: weakref.WeakKeyDictionary[object, _Connection] = (
            weakref.WeakKeyDictionary()
        )

    def turn(self, connection: object) -> tuple[str, ...]:
        """The tools ``connection`` called in its current turn (none once it has ended)."""
        state = self._connections.get(connection)
        if state is None or self._clock() - state.last_call >= self.gap:
            return ()
        return tuple(state.turn)

    def searched(self, connection: object, answer: Mapping[str, Any]) -> None:
        """Keep a find_tools answer (``results``: each capability and its tools)."""
        state = self._connections.setdefault(connection, _Connection())
        state.searches.append(
            [(r["capability"], {t["name"] for t in r["tools"]}) for r in answer["results"]]
        )
        del state.searches[:-MAX_SEARCHES]

    async def called(self, connection: object, name: str, *, one_client: bool) -> int:
        """``connection`` called ``name`` through call_tool: report the misses it reveals
        (``learn_from_call``); on a connection that is ``one_client``'s, count it in the
        connection's turn, reporting turns that ended. How many misses were reported."""
        state = self._connections.setdefault(connection, _Connection())
        reported = await self.learn_from_call(state, name)
        if one_client:
            now = self._clock()
            self.end_turns(now)
            if name not in state.turn:
                state.turn.append(name)
            state.last_call = now
            if len(state.turn) >= MAX_CALLED:
                self._report(state)
        return reported

    def end_turns(self, now: float | None = None) -> int:
        """Report every connection's turn that has ended; how many were."""
        now = self._clock() if now is None else now
        ended = [s for s in self._connections.values() if s.turn and now - s.last_call >= self.gap]
        for state in ended:
            self._report(state)
        return len(ended)

    async def learn_from_call(self, state: _Connection, name: str) -> int:
        """When ``name`` was not returned by earlier find_tools calls of the connection and was
        by a later one, report each earlier capability as a miss of it; forget the searches."""
        searched, state.searches = state.searches, []
        found_at = next(
            (i for i, call in enumerate(searched) if any(name in names for _, names in call)),
            None,
        )
        if found_at is None:
            return 0
        reported = 0
        for call in searched[:found_at]:
            for capability, names in call:
                reported += await report_miss(self.client, self._catalog(), capability, names, name)
        return reported

    def _report(self, state: _Connection) -> None:
        tools, state.turn = state.turn, []
        catalog = self._catalog()
        self.client.report_calls(_non_core(tools, catalog))


def _non_core(tools: Sequence[str], catalog: Catalog | None) -> list[str]:
    known: Iterable[str] = tools if catalog is None else (t for t in tools if t in catalog)
    return [t for t in known if catalog is None or not catalog[t].core]
