"""The OpenAI Agents SDK: core + top-k tools before each model call, by dynamic tool enabling.

``ToolRetrieval`` meets the SDK in its own three places:

- ``tools(...)``: the agent's function tools, each a copy whose ``is_enabled`` also asks
  toolret (a tool's own condition still applies), followed by find_tools;
- ``mcp_filter``: the ``tool_filter`` of each MCP server attached to the agent
  (``MCPServerStdio(..., tool_filter=retrieval.mcp_filter)``);
- it is the agent's hooks (``Agent(hooks=retrieval)``, an ``AgentHooks``): when a run starts it
  builds the catalog from the agent's function tools and its MCP servers' listings (nothing is
  restated), and it reads each model call's input and output: the SDK shows ``is_enabled`` only
  the run's input, and the next call must see what find_tools found in this one.

Before every model call the enabled tools are the catalog's core tools, the top ``k`` for the
latest user message (any language), what find_tools found in this turn and what the turn already
called; tools the catalog does not know stay enabled. The calls of one run share one selection
and one query embedding, and concurrent ``is_enabled`` checks share one ``select``.

Fail-open: whatever fails (the catalog, the retriever, an MCP listing), every tool is enabled;
an agent whose hooks are not this object gets every tool too, and a warning that says so. A run
resumed from its ``RunState`` (after an approval) is never narrowed before its first model call,
so an approved call finds its tool, even one find_tools found before the pause. There
is no cache-stable option: the SDK sends tools in the agent's order (MCP tools first), so a tool
enabled later lands inside the list, not at its end.
The SDK is an optional extra: ``pip install 'toolret[openai-agents]'``.

    retrieval = ToolRetrieval(retriever, core=["inspect_schema"])
    agent = Agent(name="crm", tools=retrieval.tools(tools), hooks=retrieval)
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import inspect
import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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
from toolret.retrieval._transcript import field as read_field, latest_human_text, tool_calls

try:
    from agents import Agent, AgentBase, AgentHooks, FunctionTool, RunContextWrapper, Tool
    from agents.items import ModelResponse, TResponseInputItem
    from agents.mcp import ToolFilterContext
    from agents.tool_context import ToolContext
    from mcp.types import Tool as MCPTool
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ConfigurationError(
        "toolret's OpenAI Agents SDK integration needs it: pip install 'toolret[openai-agents]'"
    ) from error

__all__ = ["ToolRetrieval", "catalog_from_openai_agents"]

_LISTING: contextvars.ContextVar[bool] = contextvars.ContextVar("toolret_listing", default=False)
"""Set while the hooks list the agent's MCP tools: the filter lets every tool through then."""
_KEPT = 1024
_UNAVAILABLE = "tool search is unavailable right now; continue with the tools you have"
_SOURCE = AgentSource("OpenAI Agents SDK", "catalog_from_openai_agents")


def catalog_from_openai_agents(
    tools: Iterable[FunctionTool | MCPTool], **options: Unpack[CatalogOptions]
) -> Catalog:
    """A catalog from the SDK's function tools (``@function_tool``) and MCP tools (a server's
    ``list_tools()``), named as the model sees them (an MCP tool by its own name); keyword
    arguments as ``catalog_from_openai``. Function tools come first, as the SDK declares them;
    they are yours (a thin description is a warning that says where to fix it)."""
    return agent_catalog([_definition(tool) for tool in tools], **options)


@dataclass
class _Run:
    """What one run's model calls were sent and answered, as the hooks saw them."""

    input: list[TResponseInputItem] = field(default_factory=list)
    output: list[Any] = field(default_factory=list)
    calls: int = 0
    bound: tuple[int, frozenset[str] | asyncio.Future[frozenset[str]]] | None = None


class ToolRetrieval(AgentHooks[Any]):
    """Enables, before each model call, core + top ``k`` + this turn's finds.

    ``retriever`` is an ``InMemoryRetriever`` or a ``ToolRetrievalClient`` (the caller opens and
    closes it). ``core`` names the tools always enabled and ``examples`` adds example requests
    per tool (both as ``catalog_from_openai``); ``catalog`` replaces the one built when a run
    starts (tools it does not know stay enabled). A tool of yours named find_tools (a function
    tool, a ``catalog`` tool, an MCP server's) raises ``CatalogError``: the SDK would keep one of
    the two. Subclass it to add hooks of your own, calling ``super()`` in ``on_start``,
    ``on_llm_start`` and ``on_llm_end``. ``on_error`` is handed what the caller got wrong (tools
    that make no catalog, a closed retriever), logged once as an error, not as an outage. An
    in-memory retriever starts indexing the catalog as soon as one is known: ``catalog=`` inside
    a running event loop, else when the first run starts.
    """

    def __init__(
        self,
        retriever: Retriever,
        *,
        core: Iterable[str] = (),
        examples: ExamplesSource = None,
        catalog: Catalog | None = None,
        k: int | None = None,
        on_error: OnError | None = None,
    ) -> None:
        self.retriever = retriever
        self.catalog = catalog
        if catalog is not None:
            check_search_name(catalog.names, instead=None)
        self._selections = TurnSelections(retriever, k, on_error=on_error)
        self._catalogs = CatalogMemo(core, examples, self._selections.errors)
        if catalog is not None:
            self._selections.index_ahead(catalog)
        self._agents: dict[int, tuple[weakref.ref[Any], Catalog]] = {}
        self._runs: weakref.WeakKeyDictionary[RunContextWrapper[Any], _Run] = (
            weakref.WeakKeyDictionary()
        )
        self._calls: LRUCache[str, _Run] = LRUCache(_KEPT)
        self._started: dict[int, weakref.ref[Any]] = {}
        self._answers: LRUCache[str, str] = LRUCache(_KEPT)

    # -- what the agent is given --------------------------------------------------------------

    def tools(self, tools: Sequence[Tool]) -> list[Tool]:
        """The agent's tools: each function tool enabled only when toolret binds it (and its own
        ``is_enabled`` allows), other tools as they are, then find_tools."""
        check_search_name([tool.name for tool in tools], instead=None)
        gated: list[Tool] = [
            dataclasses.replace(tool, is_enabled=self._gate(tool))
            if isinstance(tool, FunctionTool)
            else tool
            for tool in tools
        ]
        return [*gated, self._find_tools_tool()]

    async def mcp_filter(self, context: ToolFilterContext, tool: MCPTool) -> bool:
        """An MCP server's ``tool_filter``: the tool is listed when toolret binds it."""
        if _LISTING.get():
            return True
        return await self._enabled(context.run_context, context.agent, tool.name)

    # -- the hooks ----------------------------------------------------------------------------

    async def on_start(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> None:
        """Build the catalog of the agent's tools as the run starts, and select for the run's
        latest user message, so the first call's checks read it at once (docs/decisions.md,
        "Framework integrations: what a turn adds")."""
        usage, key = context.usage, id(context.usage)  # the run's, shared with its context
        self._started[key] = weakref.ref(usage, lambda _: self._started.pop(key, None))
        catalog = self.catalog or await self._listed(context, agent)
        if catalog is not None and self._wired(agent):
            self._selections.index_ahead(catalog)
            await self._selections.select(catalog, latest_human_text(context.turn_input))

    async def _listed(self, context: RunContextWrapper[Any], agent: Agent[Any]) -> Catalog | None:
        """The catalog of the agent's function tools and its MCP servers' tools (None when they
        cannot be listed or make no catalog: every tool is then enabled)."""
        try:
            functions = [t for t in agent.tools if isinstance(t, FunctionTool)]
            definitions = [_definition(t) for t in functions if t.name != FIND_TOOLS_NAME]
            listing = _LISTING.set(True)
            try:
                for server in agent.mcp_servers:
                    listed = await server.list_tools(context, agent)
                    definitions += [_definition(tool) for tool in listed]
            finally:
                _LISTING.reset(listing)
        except Exception as error:
            self._catalogs.log.warning(f"toolret: cannot list the agent's tools: {error!r}")
            definitions = None
        if definitions is not None:  # an MCP server's find_tools: the SDK would keep one
            check_search_name([d.name for d in definitions], instead=None)
        catalog = self._catalogs.of(definitions) if definitions is not None else None
        key = id(agent)
        if catalog is None:
            self._agents.pop(key, None)
        else:  # kept while the agent lives (an Agent is not hashable)
            self._agents[key] = (weakref.ref(agent, lambda _: self._agents.pop(key, None)), catalog)
        return catalog

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self._run(context).input = list(input_items)

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        run = self._run(context)
        run.output = list(response.output)
        run.calls += 1
        for call in tool_calls(run.output):  # output items as objects or dicts
            if call.name == FIND_TOOLS_NAME and call.id is not None:
                self._calls[call.id] = run

    # -- enabling -----------------------------------------------------------------------------

    def _gate(self, tool: FunctionTool) -> Any:
        own = tool.is_enabled
        name = tool.name

        async def is_enabled(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
            if own is False:
                return False
            if own is not True:
                allowed = own(context, agent)
                if not (await allowed if inspect.isawaitable(allowed) else allowed):
                    return False
            return await self._enabled(context, agent, name)

        return is_enabled

    async def _enabled(self, context: RunContextWrapper[Any], agent: Any, name: str) -> bool:
        try:
            catalog = self._catalog_for(agent)
            if catalog is None or name not in catalog:
                return True
            return name in await self._bound(context, catalog)
        except Exception as error:  # fail-open: the tool stays enabled
            self._catalogs.log.warning(f"toolret: Agents SDK tool selection failed: {error!r}")
            return True

    def _catalog_for(self, agent: Any) -> Catalog | None:
        if not self._wired(agent):
            self._catalogs.log.warning(
                "toolret: the agent's hooks are not its ToolRetrieval, so every tool is sent: "
                "pass Agent(..., hooks=retrieval)"
            )
            return None
        if self.catalog is not None:
            return self.catalog
        kept = self._agents.get(id(agent))
        if kept is None or kept[0]() is not agent:
            return None
        return kept[1]

    def _wired(self, agent: Any) -> bool:
        return getattr(agent, "hooks", None) is self

    async def _bound(self, context: RunContextWrapper[Any], catalog: Catalog) -> frozenset[str]:
        """The names this model call binds, computed once per call of the run (the SDK checks
        every tool of one call concurrently): at once when the turn's selection is kept (the
        run's start selected it), else from one shared ``select``."""
        run = self._run(context)
        if not run.calls and not self._fresh(context):  # resumed: never narrowed
            return frozenset(catalog.names)
        if run.bound is None or run.bound[0] != run.calls:
            transcript = self._transcript(run, context)
            kept = self._selections.kept(catalog, latest_human_text(transcript))
            if kept is not None:
                run.bound = (run.calls, frozenset(bound_names(catalog, kept, transcript)))
            else:
                run.bound = (run.calls, asyncio.ensure_future(self._names(catalog, transcript)))
        names = run.bound[1]
        if isinstance(names, frozenset):
            return names
        return names.result() if names.done() else await asyncio.shield(names)

    async def _names(self, catalog: Catalog, transcript: Sequence[Any]) -> frozenset[str]:
        selection = await self._selections.select(catalog, latest_human_text(transcript))
        return frozenset(bound_names(catalog, selection, transcript))

    def _fresh(self, context: RunContextWrapper[Any]) -> bool:
        """True when ``on_start`` began this run. A run resumed from a ``RunState`` (after an
        approval) starts without it, and the SDK shows no hook what its first part called: it
        gets every tool until its first model call, so an approved call always finds its tool."""
        started = self._started.get(id(context.usage))
        return started is not None and started() is context.usage

    def _transcript(self, run: _Run, context: RunContextWrapper[Any]) -> list[Any]:
        """The run's transcript so far: the last call's input and output, and the answers of its
        find_tools calls; before the first call, the run's input."""
        if not run.calls:
            return list(context.turn_input)
        answers = [
            {"type": "function_call_output", "call_id": call.id, "output": answer}
            for call in tool_calls(run.output)
            if call.id is not None and (answer := self._answers.get(call.id)) is not None
        ]
        return [*run.input, *run.output, *answers]

    def _run(self, context: RunContextWrapper[Any]) -> _Run:
        run = self._runs.get(context)
        if run is None:
            run = self._runs[context] = _Run()
        return run

    # -- find_tools ---------------------------------------------------------------------------

    def _find_tools_tool(self) -> FunctionTool:
        description = find_tools_description(self.catalog)
        schema = json.loads(json.dumps(CAPABILITIES_SCHEMA))
        return FunctionTool(
            name=FIND_TOOLS_NAME,
            description=description,
            params_json_schema=schema,
            on_invoke_tool=self._answer,
        )

    async def _answer(self, context: ToolContext[Any], arguments: str) -> str:
        """find_tools: the tools for each capability asked, none of those this call bound."""
        run = self._calls.get(context.tool_call_id)
        catalog = self._catalog_for(context.agent) if context.agent is not None else None
        if run is None or catalog is None:
            return json.dumps({"error": _UNAVAILABLE, "results": []})
        transcript = [*run.input, *run.output]
        selection = await self._selections.select(catalog, latest_human_text(transcript))
        bound = bound_names(catalog, selection, transcript)
        answer = await answer_find_tools(self.retriever, catalog, arguments, bound=bound)
        self._answers[context.tool_call_id] = answer
        run.bound = None  # the SDK may list the tools again before the next call: read it
        return answer


def _definition(tool: FunctionTool | MCPTool) -> Definition:
    if isinstance(tool, FunctionTool):
        return Definition(tool.name, tool.description, tool.params_json_schema, _SOURCE)
    schema = read_field(tool, "input_schema") or read_field(tool, "inputSchema")  # MCP 2 or 1
    return Definition(tool.name, tool.description or "", schema or {"type": "object"})
