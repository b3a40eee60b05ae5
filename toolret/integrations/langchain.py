"""A LangChain / LangGraph agent middleware: core + top-k tools before each model call, no LLM.

``ToolRetrievalMiddleware`` sits where ``LLMToolSelectorMiddleware`` sits (``create_agent(...,
middleware=[...])``, the framework's ``AgentMiddleware.wrap_model_call``), but chooses with
toolret's ranking instead of a model call. Before each model call it narrows the request's tools
to the catalog's core tools, the top ``k`` for the latest human message (any language) and the
tools find_tools discovered in this turn; tools the catalog does not know (find_tools itself,
provider tools) pass through. The rounds of one turn share the latest human message, so they
share one selection and one query embedding.

With ``stable=True`` the tools come in the conversation's first-seen order, core first, and only
grow (``StableToolList``), kept in the agent state under ``toolret_tools``, so the provider's
prompt cache holds across turns.

LangChain is an optional extra: ``pip install 'toolret[langchain]'``.

    middleware = ToolRetrievalMiddleware(InMemoryRetriever(), catalog_from_langchain(tools))
    agent = create_agent(model, tools=tools, middleware=[middleware])
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypeVar, Unpack

from toolret._catalog import Catalog
from toolret.adapters._source import CatalogOptions
from toolret.errors import ConfigurationError
from toolret.integrations._catalogs import AgentSource, Definition, agent_catalog
from toolret.retrieval._base import Retriever
from toolret.retrieval._caller import OnError
from toolret.retrieval._find_tools import (
    FIND_TOOLS_NAME,
    answer_find_tools,
    check_search_name,
    discovered_tool_names,
    find_tools_description,
)
from toolret.retrieval._rounds import TurnSelections, bound_names
from toolret.retrieval._stable import StableToolList
from toolret.retrieval._transcript import latest_human_text

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
    from langchain.tools import ToolRuntime
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ConfigurationError(
        "toolret's LangChain middleware needs LangChain: pip install 'toolret[langchain]'"
    ) from error

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelResponse

__all__ = ["STATE_KEY", "ToolRetrievalMiddleware", "ToolretState", "catalog_from_langchain"]

STATE_KEY = "toolret_tools"
_T = TypeVar("_T")
_SOURCE = AgentSource("LangChain", "catalog_from_langchain")


class ToolretState(AgentState[Any]):
    """The agent state with the conversation's cache-stable tool list (``stable=True``)."""

    toolret_tools: NotRequired[list[str]]


def catalog_from_langchain(tools: Sequence[Any], **options: Unpack[CatalogOptions]) -> Catalog:
    """A catalog from LangChain tools (``BaseTool``, ``@tool`` functions, or tool dicts), via
    their OpenAI function definitions; keyword arguments as ``catalog_from_openai``. They are
    yours: a thin description is a warning that says where to fix it (``Tool.read_from``)."""
    definitions = []
    for tool in tools:
        function = convert_to_openai_tool(tool)["function"]
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        definitions.append(
            Definition(function["name"], function.get("description", ""), parameters, _SOURCE)
        )
    return agent_catalog(definitions, **options)


class ToolRetrievalMiddleware(AgentMiddleware[ToolretState, Any, Any]):
    """Narrows each model call's tools to core + top ``k`` + this turn's find_tools discoveries.

    ``retriever`` is an ``InMemoryRetriever`` or a ``ToolRetrievalClient``; ``catalog`` holds
    the agent's tools (``catalog_from_langchain``); a tool of yours named find_tools raises
    ``CatalogError`` unless ``find_tools=False``, which registers no find_tools tool. Selection
    never fails the call: whatever goes wrong, the full roster is sent (toolret's fail-open
    contract). The sync path runs the retriever on one private event loop thread.
    ``on_error`` is handed what the caller got wrong (a closed retriever), logged once as an
    error, not as an outage. Built inside a running event loop, it starts indexing ``catalog``
    in an in-memory retriever at once.
    """

    state_schema = ToolretState

    def __init__(
        self,
        retriever: Retriever,
        catalog: Catalog,
        *,
        k: int | None = None,
        stable: bool = False,
        stable_limit: int | None = None,
        find_tools: bool = True,
        on_error: OnError | None = None,
    ) -> None:
        super().__init__()
        self.retriever = retriever
        self.catalog = catalog
        self.k = k
        self.stable = stable
        self.stable_limit = stable_limit
        self._selections = TurnSelections(retriever, k, on_error=on_error)
        self._selections.index_ahead(catalog)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_lock = threading.Lock()
        if find_tools:
            check_search_name(catalog.names, instead="pass find_tools=False")
        self.tools: list[BaseTool] = [self._find_tools_tool()] if find_tools else []

    @property
    def name(self) -> str:
        return "ToolRetrievalMiddleware"

    # -- the hooks ----------------------------------------------------------------------------

    async def abefore_model(self, state: ToolretState, runtime: Any) -> dict[str, Any] | None:
        """With ``stable``: grow the conversation's tool list in the state."""
        if not self.stable:
            return None
        return {STATE_KEY: await self._grown(state)}

    def before_model(self, state: ToolretState, runtime: Any) -> dict[str, Any] | None:
        if not self.stable:
            return None
        return {STATE_KEY: self._run(self._grown(state))}

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> Any:
        """Call the model with the narrowed tools."""
        return await handler(await self._narrowed(request))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> Any:
        return handler(self._run(self._narrowed(request)))

    # -- selection ----------------------------------------------------------------------------

    async def select(self, messages: Sequence[Any]) -> list[str]:
        """The catalog names to bind for this transcript: the selection, then what this turn's
        find_tools calls found and the tools it called (``bound_names``)."""
        selection = await self._selections.select(self.catalog, latest_human_text(messages))
        return bound_names(self.catalog, selection, messages)

    async def bound(self, state: Mapping[str, Any]) -> list[str]:
        """The catalog names the current model call is sent: the conversation's stable list,
        else this turn's selection and discoveries."""
        held = _names(state.get(STATE_KEY)) if self.stable else []
        return held or await self.select(list(state.get("messages", [])))

    async def _find_tools(self, capabilities: list[str], state: Mapping[str, Any]) -> str:
        return await answer_find_tools(
            self.retriever,
            self.catalog,
            {"capabilities": capabilities},
            bound=await self.bound(state),
        )

    def _find_tools_tool(self) -> BaseTool:
        """find_tools as a LangChain tool: ``capabilities`` from the model, the agent state
        injected (``ToolRuntime``) for what is already bound; its description says what lies
        behind it."""

        async def find_tools(capabilities: list[str], runtime: ToolRuntime) -> str:
            return await self._find_tools(capabilities, runtime.state)

        def find_tools_sync(capabilities: list[str], runtime: ToolRuntime) -> str:
            return self._run(self._find_tools(capabilities, runtime.state))

        return StructuredTool.from_function(
            func=find_tools_sync,
            coroutine=find_tools,
            name=FIND_TOOLS_NAME,
            description=find_tools_description(self.catalog),
        )

    async def _grown(self, state: ToolretState) -> list[str]:
        messages = list(state.get("messages", []))
        held = _names(state.get(STATE_KEY))
        stable = StableToolList(self.catalog, held, limit=self.stable_limit)
        selection = await self._selections.select(self.catalog, latest_human_text(messages))
        stable.apply(selection)
        stable.extend(name for name in discovered_tool_names(messages) if name in self.catalog)
        return stable.names

    async def _narrowed(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with its tools narrowed: core tools, then the tools the catalog does not
        know (find_tools, provider tools), then the rest of the bound tools in order."""
        try:
            names = await self.bound({**request.state, "messages": request.messages})
        except Exception:  # fail-open: the request goes out with every tool it had
            return request
        order = {name: i for i, name in enumerate(names)}
        known = [tool for tool in request.tools if _name(tool) in order]
        known.sort(key=lambda tool: order.get(_name(tool) or "", 0))
        core = [tool for tool in known if self.catalog[_name(tool) or ""].core]
        rest = [tool for tool in known if not self.catalog[_name(tool) or ""].core]
        other = [tool for tool in request.tools if _name(tool) not in self.catalog]
        return request.override(tools=[*core, *other, *rest])

    # -- the sync path ------------------------------------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run on this middleware's own event loop thread (the retriever's tasks and pools
        belong to one loop)."""
        with self._loop_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="toolret-langchain", daemon=True
                )
                thread.start()
                self._loop = loop
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()


def _names(value: object) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        return name if isinstance(name, str) else None
    name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None
