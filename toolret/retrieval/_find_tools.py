"""find_tools: the model widens its own tool set when a plan needs more than it was sent.

Bind ``find_tools_definition(shape, catalog)`` with the selection: its description says what
lies behind it (``tools_behind``: how many tools, from which servers or areas), so the model
knows when to ask. The model calls it with one or several capabilities in plain language (any
language); ``answer_find_tools`` ranks each and returns up to ``MAX_DISCOVERED_TOOLS`` tools
not already bound per capability, none repeated across them, as the JSON of the tool result:

    {"capabilities": ["link two records", "send the summary by email"]}
    -> {"results": [{"capability": "link two records", "tools": [{"name", "description"}, ...]},
                    {"capability": "send the summary by email", "tools": [...]}]}

On the next step the agent binds the tools ``discovered_tool_names(messages)`` reads back from
the transcript: discoveries are a pure function of the current turn's messages, so they reset
with every human message and never accumulate in stored state. Each capability costs one query
embedding; they are ranked concurrently, each within the finder's time budget.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.adapters._mcp import mcp_origin
from toolret.errors import CatalogError
from toolret.retrieval._base import Retriever
from toolret.retrieval._companions import companion_answers
from toolret.retrieval._selection import (
    MAX_CAPABILITIES,
    MAX_DISCOVERED_TOOLS,
    FoundTools,
    Reason,
    assign_found,
)
from toolret.retrieval._transcript import (
    current_turn,
    field,
    result_payload,
    tool_calls,
    tool_results,
)

__all__ = [
    "BEHIND_LENGTH",
    "CAPABILITIES_SCHEMA",
    "FIND_TOOLS_NAME",
    "MAX_CAPABILITIES",
    "MAX_DISCOVERED_TOOLS",
    "FindToolsShape",
    "answer_find_tools",
    "capabilities_of",
    "check_search_name",
    "discovered_tool_names",
    "find_each",
    "find_tools_definition",
    "find_tools_description",
    "tools_behind",
    "unavailable_message",
]

log = logging.getLogger("toolret.selection")

FIND_TOOLS_NAME = "find_tools"
FindToolsShape = Literal["openai", "openai_responses", "anthropic", "gemini", "mcp"]

FIND_TOOLS_DESCRIPTION = (
    "Find more tools. The tools you have are a selection from a larger set; call this when you "
    "need a capability none of them offers. Describe each capability in plain language, in any "
    "language: what you want to do, not a tool name (for example 'link two records' or "
    f"'أضف حقلا إلى الكائن'). Ask for every capability your plan still needs in one call, up to "
    f"{MAX_CAPABILITIES}; each gets up to {MAX_DISCOVERED_TOOLS} matching tools, callable from "
    "your next step."
)
BEHIND_LENGTH = 400
"""The most characters ``tools_behind`` spends naming servers or areas."""
CAPABILITIES_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "capabilities": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": MAX_CAPABILITIES,
            "description": "One short phrase per capability you need, in plain language "
            "(any language).",
        }
    },
    "required": ["capabilities"],
    "additionalProperties": False,
}
"""The arguments of find_tools, and of toolret's search tool in every provider's shape."""
_NO_MATCH = "no further tools match; rephrase the capability or use the tools you have"


def tools_behind(catalog: Catalog) -> str:
    """What lies behind find_tools, in one sentence: how many tools, and the MCP servers (else
    the domains) they come from, the largest first, named within ``BEHIND_LENGTH`` characters.
    A pure function of the catalog, so a definition built from it is byte-stable."""
    candidates = catalog.candidates
    if not candidates:
        return "Behind it: no further tools."
    servers = [mcp_origin(tool) for tool in candidates]
    by_server = any(origin is not None for origin in servers)
    groups = Counter(
        origin[0] if origin is not None else tool.domain if not by_server else ""
        for origin, tool in zip(servers, candidates, strict=True)
    )
    named = sorted((name for name in groups if name), key=lambda name: (-groups[name], name))
    text = f"Behind it: {_count(len(candidates), 'tool')}"
    if not named:
        return text + "."
    kind = "server" if by_server else "area"
    shown: list[str] = []
    used = 0
    for name in named:
        if used + len(name) + 2 > BEHIND_LENGTH:
            break
        shown.append(name)
        used += len(name) + 2
    rest = len(named) - len(shown)
    listing = ", ".join(shown) + (f" and {rest} more" if rest else "")
    return f"{text} from {_count(len(named), kind)}: {listing}."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def find_tools_description(catalog: Catalog | None = None) -> str:
    """find_tools' description, with what lies behind it when ``catalog`` is given."""
    if catalog is None:
        return FIND_TOOLS_DESCRIPTION
    return f"{FIND_TOOLS_DESCRIPTION} {tools_behind(catalog)}"


def check_search_name(
    names: Iterable[str],
    name: str = FIND_TOOLS_NAME,
    *,
    instead: str | None = "bind no find_tools",
) -> None:
    """Raise ``CatalogError`` when one of ``names`` (the user's tools) is ``name``, the name of
    toolret's own search tool. Beside it the model would see two tools of one name: providers
    refuse such a request, PydanticAI raises a name conflict, the Agents SDK keeps one of the
    two; and a call could not be told apart. ``instead`` is the integration's other fix."""
    if name in names:
        raise CatalogError(
            f"your tools include one named {name!r}, the name of toolret's own tool search, "
            f"which is bound beside them: rename yours{f', or {instead}' if instead else ''}",
            tool=name,
        )


def find_tools_definition(
    shape: FindToolsShape = "openai", catalog: Catalog | None = None
) -> dict[str, Any]:
    """The find_tools definition to bind: ``openai`` (Chat Completions), ``openai_responses``,
    ``anthropic``, ``gemini`` (a ``FunctionDeclaration``, its schema as JSON Schema) or ``mcp``
    (a ``tools/list`` entry). With ``catalog``, the description names what lies behind it
    (``tools_behind``), and a catalog with a tool of its own named find_tools raises
    ``CatalogError`` (``check_search_name``). A fresh dict each call; the same bytes for the
    same catalog."""
    if catalog is not None:
        check_search_name(catalog.names)
    schema = json.loads(json.dumps(CAPABILITIES_SCHEMA))
    fields = {"name": FIND_TOOLS_NAME, "description": find_tools_description(catalog)}
    if shape == "openai":
        return {"type": "function", "function": {**fields, "parameters": schema}}
    if shape == "openai_responses":
        return {"type": "function", **fields, "parameters": schema}
    if shape == "anthropic":
        return {**fields, "input_schema": schema}
    if shape == "gemini":
        return {**fields, "parameters_json_schema": schema}
    if shape == "mcp":
        return {**fields, "inputSchema": schema}
    raise ValueError(
        f"unknown shape {shape!r}; use openai, openai_responses, anthropic, gemini or mcp"
    )


def unavailable_message(found: list[Tool]) -> str | None:
    """What to tell the model when no search could run (``FoundTools.reason``), or None when
    one did: a catalog still being indexed is "not available yet", anything else "unavailable
    right now". Either way the model should go on with the tools it has."""
    reason = found.reason if isinstance(found, FoundTools) else None
    if reason is None:
        return None
    if reason is Reason.NOT_INDEXED:
        return (
            "tool search is not available yet: the tools are still being indexed; "
            "continue with the tools you have"
        )
    return "tool search is unavailable right now; continue with the tools you have"


async def find_each(
    finder: Retriever,
    catalog: Catalog,
    capabilities: Sequence[str],
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    allowed: Iterable[str] | None = None,
) -> list[FoundTools]:
    """Up to ``limit`` tools per capability, best first, none already ``bound``, none core, and
    none listed for an earlier capability (each capability gets its own ``limit`` tools), only
    among ``allowed`` (``Catalog.only``; an invalid entry raises ``AllowedToolsError``). The
    last places of each go to the usual companions of the ``bound`` tools and of its own first
    finds (``toolret.retrieval._companions``). The capabilities are ranked concurrently; one
    that fails comes back empty with the reason (``FoundTools.reason``). Never raises
    otherwise."""
    catalog = catalog.only(allowed)
    skip = set(bound)
    wanted = limit * len(capabilities)  # enough for each to keep ``limit`` after the earlier

    async def one(capability: str) -> FoundTools:
        try:
            found = await finder.find_tools(catalog, capability, bound=skip, limit=wanted)
        except Exception as error:
            log.warning("toolret: find_tools failed: %r", error)
            return FoundTools(reason=Reason.INTERNAL_ERROR)
        kept = [
            catalog[t.name]
            for t in found
            if t.name in catalog and t.name not in skip and not catalog[t.name].core
        ]
        return FoundTools(kept, found.reason if isinstance(found, FoundTools) else None)

    answers, companions = await asyncio.gather(
        asyncio.gather(*(one(capability) for capability in capabilities)),
        finder.companions(catalog),
    )
    dealt = assign_found(answers, limit)
    return companion_answers(catalog, dealt, limit, companions, anchors=sorted(skip), skip=skip)


async def answer_find_tools(
    finder: Retriever,
    catalog: Catalog,
    arguments: str | Mapping[str, Any],
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    allowed: Iterable[str] | None = None,
) -> str:
    """The tool result for a find_tools call: ``{"results": [{"capability", "tools": [{"name",
    "description"}, ...]}, ...]}``, one entry per capability asked, in order.

    ``arguments`` is the call's arguments (JSON text or a dict): ``{"capabilities": [...]}``,
    or one ``capability`` string. At most ``limit``
    (≤ ``MAX_DISCOVERED_TOOLS``) tools a capability, none already
    ``bound``, none core, only among ``allowed`` (``find_each``; an invalid entry raises
    ``AllowedToolsError``); a capability with none gets a ``note``. Bad arguments,
    or no search able to run, give a JSON ``{"error": ...}`` the model can read and act on;
    this never raises otherwise.
    """
    catalog = catalog.only(allowed)
    capabilities = capabilities_of(arguments)
    if not capabilities:
        return _error(
            'call find_tools with {"capabilities": ["<what you need, in plain language>", ...]}'
        )
    limit = max(0, min(limit, MAX_DISCOVERED_TOOLS))
    asked = capabilities[:MAX_CAPABILITIES]
    found = await find_each(finder, catalog, asked, bound=bound, limit=limit)
    if all(not tools for tools in found):
        unavailable = next((m for m in map(unavailable_message, found) if m is not None), None)
        if unavailable is not None:
            return _error(unavailable)
    results = []
    for capability, tools in zip(asked, found, strict=True):
        entry: dict[str, Any] = {
            "capability": capability,
            "tools": [{"name": t.name, "description": t.description} for t in tools],
        }
        if not tools:
            entry["note"] = unavailable_message(tools) or _NO_MATCH
        results.append(entry)
    payload: dict[str, Any] = {"results": results}
    if len(capabilities) > len(asked):
        payload["note"] = (
            f"only the first {MAX_CAPABILITIES} capabilities were searched; ask again for the rest"
        )
    return json.dumps(payload, ensure_ascii=False)


def capabilities_of(arguments: str | Mapping[str, Any] | None) -> list[str]:
    """The capabilities a find_tools (or search tool) call asks for, in order, blank ones and
    repeats dropped: ``capabilities`` (a list, or one string), else ``capability`` or ``query``
    (one string). JSON text or a dict; anything else gives none."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return []
    if not isinstance(arguments, Mapping):
        return []
    given = arguments.get("capabilities")
    if given is None:
        given = arguments.get("capability", arguments.get("query"))
    items = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    phrases = (item.strip() for item in items if isinstance(item, str))
    return list(dict.fromkeys(phrase for phrase in phrases if phrase))


def discovered_tool_names(messages: Iterable[Any]) -> list[str]:
    """The tools find_tools returned in the current turn, in order, without duplicates.

    The current turn starts after the last human message (a user message that is not only
    tool results). Any transcript ``toolret.retrieval._transcript`` reads: OpenAI Chat Completions
    and
    Responses, Anthropic, Gemini and LangChain, as dicts or SDK objects. A result answers a
    find_tools call by its id, or by name where the shape has no ids (Gemini). Anything
    malformed is skipped; this never raises.
    """
    turn = current_turn(messages)
    finds = [call for call in tool_calls(turn) if call.name == FIND_TOOLS_NAME]
    ids = {call.id for call in finds if call.id is not None}
    names: dict[str, None] = {}
    for result in tool_results(turn):
        by_id = result.call_id is not None and result.call_id in ids
        by_name = result.call_id is None and result.name == FIND_TOOLS_NAME and bool(finds)
        if by_id or by_name:
            names.update(dict.fromkeys(_names_in(result_payload(result.content))))
    return list(names)


def _error(message: str) -> str:
    return json.dumps({"error": message, "results": []}, ensure_ascii=False)


def _names_in(payload: Any) -> list[str]:
    """The tool names of a find_tools result: each capability's ``tools``, or a bare
    ``tools`` list (the gateway's results carry input schemas beside the names)."""
    if not isinstance(payload, Mapping):
        return []
    results = field(payload, "results")
    lists = [field(r, "tools") for r in results] if isinstance(results, list) else []
    lists.append(field(payload, "tools"))
    return [
        name
        for tools in lists
        if isinstance(tools, list)
        for tool in tools
        if isinstance(name := field(tool, "name"), str) and name
    ]
