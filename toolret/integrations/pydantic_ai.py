"""PydanticAI: core + top-k tools before each model request, as a capability of the agent.

``ToolRetrieval`` is a PydanticAI capability (``Agent(..., capabilities=[ToolRetrieval(...)])``).
Its ``prepare_tools`` hook runs before every model request with the function tools of that step
(the agent's ``tools``, its toolsets and the MCP servers attached to it, as ``ToolDefinition``s)
and keeps the catalog's core tools, the top ``k`` for the latest user prompt (any language), what
find_tools found in this turn and what the turn already called; what it hands back is also what
the step may execute. Its toolset adds find_tools, answered by the retriever. The steps of one
turn share one selection and one query embedding; the turn ends with the next user prompt.

The catalog is built from the tool definitions the hook is given, so nothing is restated; pass
``catalog=`` (``catalog_from_pydantic_ai``) to index it ahead with the worker, or to add
examples and domains. With ``stable=True`` the tools come in the conversation's first-seen
order, core first, and only grow (``StableToolList``, one per ``conversation_id``, kept in this
process), so each request's tool list extends the last one and the provider's prompt cache holds.

Whatever fails (the catalog, the retriever, the hook itself), the step gets every tool it had.
PydanticAI is an optional extra: ``pip install 'toolret[pydantic-ai]'``.

    retrieval = ToolRetrieval(retriever, core=["inspect_schema"])
    agent = Agent("openai:gpt-5.4", tools=tools, capabilities=[retrieval])
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from typing import Any, Unpack

from cachetools import LRUCache

from toolret._catalog import Catalog
from toolret.adapters._source import CatalogOptions, ExamplesSource
from toolret.errors import ConfigurationError
from toolret.integrations._catalogs import AgentSource, CatalogMemo, Definition, agent_catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._caller import OnError
from toolret.retrieval._find_tools import (
    CAPABILITIES_SCHEMA,
    FIND_TOOLS_NAME,
    answer_find_tools,
    check_search_name,
    find_tools_description,
)
from toolret.retrieval._rounds import TurnSelections, bound_names
from toolret.retrieval._stable import StableToolList
from toolret.retrieval._transcript import latest_human_text

try:
    from pydantic_ai import RunContext
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.tools import Tool, ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, FunctionToolset
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ConfigurationError(
        "toolret's PydanticAI capability needs PydanticAI: pip install 'toolret[pydantic-ai]'"
    ) from error

__all__ = ["ToolRetrieval", "catalog_from_pydantic_ai"]

_KINDS = ("function", "external", "unapproved")
"""The tool kinds a catalog ranks; output tools and deferred tools are left as they are."""
_KEPT = 1024
"""Conversations (stable lists) and runs (their catalog, for find_tools) kept in this process."""
_UNAVAILABLE = "tool search is unavailable right now; continue with the tools you have"
_INSTEAD = "pass ToolRetrieval(..., find_tools=False)"
_AGENT_TOOLSET = "<agent>"
"""The ``toolset_id`` PydanticAI gives the agent's own function tools."""
_SOURCE = AgentSource("PydanticAI", "catalog_from_pydantic_ai")


def catalog_from_pydantic_ai(
    tools: Iterable[Tool[Any] | ToolDefinition | Callable[..., Any]],
    **options: Unpack[CatalogOptions],
) -> Catalog:
    """A catalog from PydanticAI tools: ``Tool``s, plain functions (as ``Agent(tools=...)``
    takes them) or ``ToolDefinition``s (an MCP server's, from its toolset); keyword arguments as
    ``catalog_from_openai``. Each tool's name, description and parameter schema are PydanticAI's
    own, so the catalog matches what ``ToolRetrieval`` sees. Functions and ``Tool``s are yours
    (a thin description is a warning that says where to fix it, ``Tool.read_from``)."""
    definitions = [
        _definition(t) if isinstance(t, ToolDefinition) else _definition(_tool_def(t), True)
        for t in tools
    ]
    return agent_catalog(definitions, **options)


class ToolRetrieval(AbstractCapability[Any]):
    """Narrows each model request's function tools to core + top ``k`` + this turn's finds.

    ``retriever`` is an ``InMemoryRetriever`` or a ``ToolRetrievalClient`` (the caller opens and
    closes it). ``core`` names the tools always sent; ``examples`` adds example requests per tool
    (both as ``catalog_from_openai``); ``catalog`` replaces the one built from the step's tools
    (tools it does not know are always sent). ``find_tools=False`` adds no find_tools tool;
    without it, an agent function tool or a ``catalog`` tool named find_tools raises
    ``CatalogError`` when the agent is built (an MCP server's, PydanticAI's own name conflict).
    ``on_error`` is handed what the caller got wrong (tools that make no catalog, a closed
    retriever), logged once as an error, not as an outage. An in-memory retriever starts
    indexing the catalog as soon as one is known: ``catalog=`` inside a running event loop, else
    the first step's tools.
    """

    def __init__(
        self,
        retriever: Retriever,
        *,
        core: Iterable[str] = (),
        examples: ExamplesSource = None,
        catalog: Catalog | None = None,
        k: int | None = None,
        stable: bool = False,
        stable_limit: int | None = None,
        find_tools: bool = True,
        on_error: OnError | None = None,
    ) -> None:
        self.retriever = retriever
        self.catalog = catalog
        self.stable = stable
        self.stable_limit = stable_limit
        self.find_tools = find_tools
        if find_tools and catalog is not None:
            check_search_name(catalog.names, instead=_INSTEAD)
        self._selections = TurnSelections(retriever, k, on_error=on_error)
        self._catalogs = CatalogMemo(core, examples, self._selections.errors)
        if catalog is not None:
            self._selections.index_ahead(catalog)
        self._stable: LRUCache[str, StableToolList] = LRUCache(_KEPT)
        self._runs: LRUCache[str, Catalog] = LRUCache(_KEPT)
        schema = json.loads(json.dumps(CAPABILITIES_SCHEMA))
        description = find_tools_description()
        tool = Tool.from_schema(self._answer, FIND_TOOLS_NAME, description, schema, takes_ctx=True)
        self._toolset: FunctionToolset[Any] = FunctionToolset([tool])

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a retriever: not part of an agent spec

    def for_agent(self, agent: AbstractAgent[Any, Any]) -> AbstractCapability[Any]:
        """Refuse, as the agent is built, a function tool of its own named find_tools."""
        if self.find_tools:
            for toolset in agent.toolsets:
                if isinstance(toolset, FunctionToolset) and toolset is not self._toolset:
                    check_search_name(toolset.tools, instead=_INSTEAD)
        return self

    def get_toolset(self) -> AbstractToolset[Any] | None:
        return self._toolset if self.find_tools else None

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        """The step's tools, narrowed: core tools, find_tools and the tools the catalog does not
        know, then the rest of the bound tools; every tool it was given on any failure."""
        try:
            return await self._narrowed(ctx, tool_defs)
        except Exception as error:  # fail-open: the step keeps every tool it had
            self._catalogs.log.warning(f"toolret: PydanticAI tool selection failed: {error!r}")
            return tool_defs

    async def bound(self, ctx: RunContext[Any], catalog: Catalog) -> list[str]:
        """The catalog names this step binds (``bound_names``; with ``stable``, the
        conversation's list grown by them)."""
        messages = ctx.messages
        selection = await self._selections.select(catalog, latest_human_text(messages))
        names = bound_names(catalog, selection, messages)
        if not self.stable:
            return names
        conversation = ctx.conversation_id or ""
        stable = self._stable.get(conversation)
        if stable is None or stable.catalog is not catalog:  # new, or the tools changed
            held = stable.names if stable is not None else ()
            stable = StableToolList(catalog, held, limit=self.stable_limit)
            self._stable[conversation] = stable
        stable.apply(selection)
        stable.extend(names)
        return stable.names

    async def _narrowed(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        ranked = [td for td in tool_defs if _ranked(td)]
        catalog = self.catalog or self._catalogs.of([_definition(td) for td in ranked])
        if catalog is None:
            return tool_defs
        self._selections.index_ahead(catalog)
        self._runs[ctx.run_id or ""] = catalog  # what find_tools searches in this run
        order = {name: i for i, name in enumerate(await self.bound(ctx, catalog))}
        kept = sorted((td for td in ranked if td.name in order), key=lambda td: order[td.name])
        core = [td for td in kept if catalog[td.name].core]
        rest = [td for td in kept if not catalog[td.name].core]
        other = [td for td in tool_defs if td.name not in catalog or not _ranked(td)]
        other.sort(key=lambda td: td.name != FIND_TOOLS_NAME)
        if other and other[0].name == FIND_TOOLS_NAME:  # what lies behind it, in its description
            other[0] = dataclasses.replace(other[0], description=find_tools_description(catalog))
        return [*core, *other, *rest]

    async def _answer(self, ctx: RunContext[Any], **arguments: Any) -> str:
        """find_tools: the tools for each capability asked, none of those bound now, in the
        catalog this run's steps were narrowed with."""
        catalog = self.catalog or self._runs.get(ctx.run_id or "")
        if catalog is None:
            return json.dumps({"error": _UNAVAILABLE, "results": []})
        bound = await self.bound(ctx, catalog)
        return await answer_find_tools(self.retriever, catalog, arguments, bound=bound)


def _ranked(tool_def: ToolDefinition) -> bool:
    return (
        tool_def.kind in _KINDS and not tool_def.defer_loading and tool_def.name != FIND_TOOLS_NAME
    )


def _tool_def(tool: Tool[Any] | ToolDefinition | Callable[..., Any]) -> ToolDefinition:
    if isinstance(tool, ToolDefinition):
        return tool
    return (tool if isinstance(tool, Tool) else Tool(tool)).tool_def


def _definition(tool_def: ToolDefinition, yours: bool = False) -> Definition:
    """The definition of a tool, the user's when it is one of the agent's own functions (an MCP
    server's comes from its own toolset)."""
    yours = yours or tool_def.toolset_id == _AGENT_TOOLSET
    return Definition(tool_def.name, tool_def.description or "", tool_def.parameters_json_schema,
                      _SOURCE if yours else None)  # fmt: skip
