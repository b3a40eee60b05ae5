"""Cache-stable tool lists: within a conversation the bound set only grows.

A provider caches the prompt by prefix, and the tool definitions come first. Sending each turn
its own subset in catalog order (the default) changes that prefix whenever the subset changes,
and the whole conversation is billed again. A ``StableToolList`` instead keeps one
conversation's tools in first-seen order, core tools first: a turn adds the tools it needs at
the end and never removes or moves one, so each turn's tool list extends the previous one as a
byte-identical prefix.

The trade-off: the list grows over a long conversation (bounded by the roster). Measure it with
``python -m evals.studies.cache_stability``.

    stable = StableToolList(catalog)                     # one per conversation
    sel = await client.select(catalog, message, stable=stable)
    session["tools"] = stable.names                      # persist; restore with names=...

A full-roster turn (fail-open, resume) sends the list so far followed by every other tool in
catalog order, so it too extends the prefix; it does not add those tools to the list, so later
turns return to the narrowed list (one cache miss after the failure instead of the whole roster
for the rest of the conversation).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.retrieval._selection import Mode, Selection

__all__ = ["StableToolList"]


class StableToolList:
    """The tools one conversation has bound so far: core first, then in first-seen order.

    ``names`` restores a list persisted from an earlier request (names the catalog no longer
    has are dropped; core tools are always first). ``limit`` bounds the list: a turn that would
    grow it past ``limit`` tools starts it over from core + that turn's selection (one cache
    miss), so a long conversation does not drift to the whole roster. Not shared between
    conversations.
    """

    def __init__(
        self, catalog: Catalog, names: Iterable[str] = (), *, limit: int | None = None
    ) -> None:
        self.catalog = catalog
        self.limit = limit
        self.restarts = 0
        """How many times the list started over because of ``limit``."""
        self._names: dict[str, None] = dict.fromkeys(tool.name for tool in catalog.core)
        self.extend(names)

    @property
    def names(self) -> list[str]:
        """The bound names in the order they are sent."""
        return list(self._names)

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The bound tools in the order they are sent."""
        return tuple(self.catalog[name] for name in self._names)

    def __len__(self) -> int:
        return len(self._names)

    def extend(self, names: Iterable[str]) -> tuple[Tool, ...]:
        """Add the names not yet bound, in the order given (unknown names are skipped), and
        return the whole list: what to send from now on."""
        for name in names:
            if name in self.catalog:
                self._names.setdefault(name, None)
        return self.tools

    def apply(self, selection: Selection) -> Selection:
        """This turn's selection as the grown list; a full roster as the list plus the rest."""
        if selection.mode is Mode.FULL:
            rest = [tool for tool in self.catalog.tools if tool.name not in self._names]
            return dataclasses.replace(selection, tools=(*self.tools, *rest))
        if self.limit is not None:
            grown = set(self._names) | {n for n in selection.names if n in self.catalog}
            if len(grown) > self.limit:
                self._names = dict.fromkeys(tool.name for tool in self.catalog.core)
                self.restarts += 1
        return dataclasses.replace(selection, tools=self.extend(selection.names))

    def __repr__(self) -> str:
        return f"<StableToolList {len(self._names)} of {len(self.catalog)} tools>"
