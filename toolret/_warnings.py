"""Whose tool it is: the warnings a catalog keeps instead of refusing a tool, and their words.

A third party's tool (``Tool.third_party``: an MCP server's listing, provider tool JSON) is kept
with a thin description or an input schema model providers refuse: the application cannot fix
it, so the advice is what it can do instead (keywords, examples, ``allowed``). A tool an
integration read from the user's own agent (``Tool.read_from``: a PydanticAI function, an Agents
SDK function tool, a LangChain tool) is kept too, as the hook that reads it must not fail a
turn; but it is theirs, so the advice says where they write its description and which call
lints it. Each catalog logs one summary line per kind and owner on ``toolret.catalog``.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toolret._tool import AgentSource, Tool

__all__ = ["CatalogWarning", "log_warnings", "log_warnings_once", "schema_warning", "thin_warning"]

log = logging.getLogger("toolret.catalog")

NAMED_IN_SUMMARY = 3
"""Tools a summary line names before "and N more": the full list is ``catalog.warnings``."""
LOGGED_SUMMARIES = 1024
"""Warning summaries remembered as logged: a catalog built again with the same warnings (a
service rebuilding a registered catalog, a gateway listing its fleet again) is not logged
again; a change to them is."""


@dataclass(frozen=True)
class CatalogWarning:
    """Something wrong with a tool that the catalog keeps: a third party's, which the
    application cannot fix, or one of the user's own read by an integration from their agent.

    ``kind`` says what: ``thin_description``, an empty or too-thin description;
    ``invalid_schema``, its input schema is one model providers refuse, and ``pointer`` is
    where in it (a JSON pointer). ``message`` says what it costs and what the application can do
    instead.
    """

    tool: str
    kind: Literal["thin_description", "invalid_schema"]
    message: str
    pointer: str | None = None


def thin_warning(tool: Tool, what: str, minimum: int) -> CatalogWarning:
    """The warning for a kept tool's thin description (``what``: "an empty", "a thin (…)")."""
    return CatalogWarning(
        tool.name,
        "thin_description",
        f"tool {tool.name!r} has {what} description (under {minimum} characters), so retrieval "
        f"finds it by little more than its name; {_thin_advice(tool.read_from)}",
    )


def schema_warning(tool: Tool, where: str, pointer: str) -> CatalogWarning:
    """The warning for a kept tool's input schema that model providers refuse."""
    if tool.read_from is not None:
        advice = (
            f"It is one of your tools, read from your {tool.read_from.framework} agent, and is "
            "kept; fix its parameters where you define it"
        )
    else:
        advice = (
            "It comes from outside the application and is kept; leave it out of requests to "
            "such a provider (allowed=[...]), or ask its author to fix it"
        )
    return CatalogWarning(tool.name, "invalid_schema", f"{where}. {advice}", pointer=pointer)


def _thin_advice(source: AgentSource | None) -> str:
    """What to do about a thin description the catalog keeps: the user's own, or a third
    party's."""
    if source is None:
        return (
            "it comes from outside the application and is kept. Pass keywords={...} or "
            "examples={...} for it to the adapter, or ask its author for a description saying "
            "what it does and when to use it"
        )
    return (
        f"it is one of your tools, read from your {source.framework} agent, and is kept: say "
        "what it does and when to use it where you define it (its docstring or description); "
        f"`await toolret.lint_catalog({source.catalog_function}(tools))` lists every finding"
    )


_logged: OrderedDict[int, None] = OrderedDict()
_SUMMARIES = {
    "thin_description": (
        "third-party with a thin description",
        "kept, but they rank worse; `toolret lint --catalog ...` says what to add",
    ),
    "invalid_schema": (
        "third-party with an input schema model providers refuse",
        "kept, but a request that sends one fails at the provider; leave them out with "
        "allowed=[...], or ask their authors",
    ),
}


def log_warnings_once(warnings: Sequence[CatalogWarning], given: Sequence[Tool]) -> None:
    """``log_warnings``, once per set of warnings, however often the same catalog is built
    (``LOGGED_SUMMARIES``)."""
    signature = hash((len(given), tuple(warnings)))
    if signature in _logged:
        _logged.move_to_end(signature)
        return
    _logged[signature] = None
    if len(_logged) > LOGGED_SUMMARIES:
        _logged.popitem(last=False)
    log_warnings(warnings, given)


def log_warnings(warnings: Sequence[CatalogWarning], given: Sequence[Tool]) -> None:
    """One line per kind of warning of a catalog of the tools ``given`` (and per whose tools
    they are), however many tools."""
    tools, sources = len(given), {tool.name: tool.read_from for tool in given}
    for kind, (what, cost) in _SUMMARIES.items():
        theirs = list(dict.fromkeys(w.tool for w in warnings if w.kind == kind))
        for source in dict.fromkeys(sources[name] for name in theirs):
            names = [name for name in theirs if sources[name] == source]
            _log_summary(names, tools, *_summary(kind, source, what, cost))


def _summary(kind: str, source: AgentSource | None, what: str, cost: str) -> tuple[str, str]:
    """A summary line's "what" and "cost": a third party's tools, or the user's own agent's."""
    if source is None:
        return what, f"{cost}; the list is in catalog.warnings"
    lint = f"`await toolret.lint_catalog({source.catalog_function}(tools))` lists them"
    if kind == "thin_description":
        return f"your {source.framework} agent's, with a thin description", (
            f"kept, but they rank worse: say what each does where you define it; {lint}"
        )
    return f"your {source.framework} agent's, with an input schema model providers refuse", (
        f"kept, but a request that sends one fails at the provider; {lint}"
    )


def _log_summary(names: list[str], tools: int, what: str, cost: str) -> None:
    if names:
        shown = ", ".join(names[:NAMED_IN_SUMMARY])
        more = len(names) - NAMED_IN_SUMMARY
        log.warning(
            "toolret: %d of %d tools are %s (%s%s): %s",
            len(names),
            tools,
            what,
            shown,
            f" and {more} more" if more > 0 else "",
            cost,
        )
