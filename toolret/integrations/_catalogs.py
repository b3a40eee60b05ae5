"""Catalogs built from a framework's own tool definitions, once per distinct set of tools.

A framework hands its hook the tools of each step (PydanticAI's ``ToolDefinition``s, the OpenAI
Agents SDK's function tools and MCP listings). ``CatalogMemo.of`` turns them into a ``Catalog``
(``agent_catalog``) and keeps the last few: the same names, descriptions and schemas
give back the same ``Catalog`` object, so a selection and its vectors are reused, and building
is paid once per change of tools. Core tools the definitions lack are skipped (an MCP server may
be down) and logged once; a set that cannot become a catalog gives None and the caller sends
every tool: the agent's tools are the caller's to fix, so that is logged once as an error and
handed to the integration's ``on_error`` (``toolret.retrieval._caller``).

A tool the user wrote (a function of their agent, not an MCP server's) carries ``read_from``:
its thin description is then a warning that calls it theirs and says where to fix it, not a
third party's; it stays a warning, as the hook must not fail the turn.
"""

from __future__ import annotations

import copy
import logging
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from toolret._catalog import Catalog
from toolret._tool import AgentSource, Tool
from toolret.adapters._source import CatalogOptions, Entry, ExamplesSource, build_catalog
from toolret.errors import ToolretError
from toolret.retrieval._caller import CallerErrors

__all__ = ["AgentSource", "CatalogMemo", "Definition", "OnceLog", "agent_catalog"]

log = logging.getLogger("toolret.selection")

_KEPT = 8


@dataclass(frozen=True)
class Definition:
    """One tool as a framework defines it: name, description, JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_from: AgentSource | None = None
    """The user's own agent, for a tool they wrote; None for an MCP server's."""

    def openai(self) -> dict[str, Any]:
        function = {"name": self.name, "description": self.description}
        return {"type": "function", "function": {**function, "parameters": self.parameters}}


def agent_catalog(definitions: Sequence[Definition], **options: Unpack[CatalogOptions]) -> Catalog:
    """The catalog of an agent's tools, each with its OpenAI function JSON as ``definition``
    (what ``catalog_from_openai`` would build) and ``read_from``; options as there.
    ``third_party=False`` makes every tool the application's: a flaw raises."""
    strict = options.get("third_party") is False
    entries = []
    for index, d in enumerate(definitions):
        definition = copy.deepcopy(d.openai())  # the catalog's own, as catalog_from_openai's
        schema = definition["function"]["parameters"]
        tool = Tool(d.name, d.description, input_schema=schema, definition=definition,
                    read_from=None if strict else d.read_from)  # fmt: skip
        entries.append(Entry(f"tools[{index}]", tool))
    return build_catalog(entries, **options)


class OnceLog:
    """Logs each distinct warning once: a hook runs every round, its cause rarely changes."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def warning(self, message: str) -> None:
        if message not in self._seen:
            self._seen.add(message)
            log.warning(message)


class CatalogMemo:
    """The catalogs of the last few distinct tool sets, with ``core`` and ``examples``."""

    def __init__(
        self,
        core: Iterable[str] = (),
        examples: ExamplesSource = None,
        errors: CallerErrors | None = None,
    ) -> None:
        self.core = tuple(core)
        self.examples = examples
        self.log = OnceLog()
        self.errors = errors or CallerErrors()
        self._kept: OrderedDict[tuple[tuple[str, str], ...], _Kept] = OrderedDict()

    def of(self, definitions: Sequence[Definition]) -> Catalog | None:
        """The catalog of these tools (None when they cannot make one)."""
        key = tuple((d.name, d.description) for d in definitions)
        kept = self._kept.get(key)
        if kept is not None and kept.schemas == tuple(d.parameters for d in definitions):
            self._kept.move_to_end(key)
            return kept.catalog
        names = {d.name for d in definitions}
        missing = [name for name in self.core if name not in names]
        if missing:
            self.log.warning(f"toolret: core tools {missing} are not among the agent's tools")
        core = [name for name in self.core if name in names]
        try:
            catalog = agent_catalog(definitions, core=core, examples=self.examples)
        except ToolretError as error:
            self.errors.report(error)
            return None
        except Exception as error:
            self.log.warning(f"toolret: the agent's tools make no catalog, sending all: {error}")
            return None
        self._kept[key] = _Kept(catalog, tuple(d.parameters for d in definitions))
        if len(self._kept) > _KEPT:
            self._kept.popitem(last=False)
        return catalog


@dataclass(frozen=True)
class _Kept:
    catalog: Catalog
    schemas: tuple[Mapping[str, Any], ...]
