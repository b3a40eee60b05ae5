"""The request rules the providers document, as the local servers in ``tests/support/fake_llm.py``
and
``tests/support/fake_gemini.py`` enforce them.

Each check returns the message of the provider's 400 for the first rule a request breaks, or
None. The messages are the ones the APIs answer with (quoted from their error bodies where they
are known); each rule names the page that documents it, and ``tests/test_llm_rules.py`` proves,
one test per rule, that a request breaking it is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = [
    "SOURCES",
    "TOOL_CHANGES_BETA",
    "chat_violation",
    "gemini_violation",
    "messages_violation",
    "responses_violation",
]

TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"

SOURCES = {
    "tool_results": "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls",
    "parallel": "https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use",
    "tool_search": "https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool",
    "tool_caching": (
        "https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching"
    ),
    "thinking": "https://platform.claude.com/docs/en/build-with-claude/extended-thinking"
    "#extended-thinking-with-tool-use",
    "tool_changes": (
        "https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages"
    ),
    "openai_tool_search": "https://developers.openai.com/api/docs/guides/tools-tool-search",
    "openai_reasoning": "https://developers.openai.com/api/docs/guides/reasoning"
    "#keeping-reasoning-items-in-context",
    "openai_functions": "https://developers.openai.com/api/docs/guides/function-calling",
    "gemini_functions": "https://ai.google.dev/gemini-api/docs/function-calling",
}

_THINKING = ("thinking", "redacted_thinking")
_TOOL_SEARCH_MODELS = re.compile(r"^gpt-(5\.([4-9]|\d{2,})|[6-9])")


# -- Anthropic Messages ----------------------------------------------------------------------


def messages_violation(
    body: Mapping[str, Any], headers: Mapping[str, str], signatures: set[str]
) -> str | None:
    """The first documented Messages API rule ``body`` breaks. ``signatures`` are the thinking
    signatures this server has issued: a thinking block passed back must carry one of them."""
    tools = [tool for tool in body.get("tools") or [] if isinstance(tool, Mapping)]
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    betas = {b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()}
    checks = (
        _deferred_tools(tools),
        _unique_tool_use_ids(messages),
        _tool_results_follow(messages),
        _references(messages, tools),
        _tool_changes(messages, tools, betas),
        _thinking(body, messages, signatures),
    )
    return next((message for message in checks if message is not None), None)


def _deferred_tools(tools: Sequence[Mapping[str, Any]]) -> str | None:
    """Not every tool deferred (tool search); no cache breakpoint on a deferred tool (tool use
    with prompt caching: deferred tools are outside the cached prefix)."""
    if tools and all(tool.get("defer_loading") is True for tool in tools):
        return "All tools have defer_loading set. At least one tool must be non-deferred."
    for index, tool in enumerate(tools):
        if tool.get("defer_loading") is True and tool.get("cache_control") is not None:
            return (
                f"tools.{index}: cache_control cannot be set on a tool with defer_loading: "
                "deferred tools are not part of the cached prefix. Set it on the last "
                "non-deferred tool."
            )
    return None


def _unique_tool_use_ids(messages: Sequence[Mapping[str, Any]]) -> str | None:
    seen: set[str] = set()
    for m, b, block in _blocks(messages):
        if block.get("type") == "tool_use":
            if block.get("id") in seen:
                return f"messages.{m}.content.{b}: `tool_use` ids must be unique"
            seen.add(str(block.get("id")))
    return None


def _tool_results_follow(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """Every tool_use answered by a tool_result at the start of the next message, and every
    tool_result answering a tool_use of the message before it."""
    for index, message in enumerate(messages):
        previous = messages[index - 1] if index else {}
        asked = [
            str(block.get("id"))
            for block in _content(previous)
            if previous.get("role") == "assistant" and block.get("type") == "tool_use"
        ]
        content = _content(message)
        answered = [str(b.get("tool_use_id")) for b in content if b.get("type") == "tool_result"]
        if message.get("role") == "user":
            for position, block in enumerate(content):
                if block.get("type") == "tool_result" and str(block["tool_use_id"]) not in asked:
                    return (
                        f"messages.{index}.content.{position}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {block['tool_use_id']}. Each `tool_result` block "
                        "must have a corresponding `tool_use` block in the previous message."
                    )
        if not asked:
            continue
        missing = [call for call in asked if call not in answered]
        if message.get("role") != "user" or missing:
            return (
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing or asked)}. Each `tool_use` block must "
                "have a corresponding `tool_result` block in the next message."
            )
        leading = [b.get("type") for b in content[: len(answered)]]
        if any(kind != "tool_result" for kind in leading):
            return (
                f"messages.{index}.content.0: Did not find {len(asked)} `tool_result` block(s) "
                "at the beginning of this message. Messages following `tool_use` blocks must "
                "begin with a matching number of `tool_result` blocks."
            )
    return None


def _references(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> str | None:
    """A tool_reference names a tool in ``tools`` that has ``defer_loading: true``."""
    deferred = {str(t.get("name")) for t in tools if t.get("defer_loading") is True}
    declared = {str(t.get("name")) for t in tools}
    for m, b, block in _blocks(messages):
        if block.get("type") != "tool_result":
            continue
        for p, part in enumerate(_content(block)):
            name = part.get("tool_name")
            if part.get("type") != "tool_reference":
                continue
            where = f"messages.{m}.content.{b}.content.{p}"
            if name not in declared:
                return f"{where}: Tool reference '{name}' not found in available tools."
            if name not in deferred:
                return (
                    f"{where}: Tool reference '{name}' points to a tool without defer_loading; "
                    "only deferred tools can be loaded by a tool search result."
                )
    return None


def _tool_changes(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], betas: set[str]
) -> str | None:
    """tool_addition / tool_removal blocks need the beta, and name a tool declared in tools."""
    declared = {str(t.get("name")) for t in tools}
    for m, b, block in _blocks(messages):
        if block.get("type") not in ("tool_addition", "tool_removal"):
            continue
        if TOOL_CHANGES_BETA not in betas:
            return (
                f"messages.{m}.content.{b}: `{block['type']}` blocks require the "
                f"`anthropic-beta: {TOOL_CHANGES_BETA}` header."
            )
        tool = block.get("tool")
        name = tool.get("name") if isinstance(tool, Mapping) else None
        if name not in declared:
            return (
                f"messages.{m}.content.{b}.tool: tool_reference_unresolved: '{name}' is not "
                "defined at this position in the conversation."
            )
    return None


def _thinking(
    body: Mapping[str, Any], messages: Sequence[Mapping[str, Any]], signatures: set[str]
) -> str | None:
    """With thinking on, a tool-use cycle still open (the conversation ends in tool results)
    must have its assistant message start with the thinking block the API returned."""
    thinking = body.get("thinking")
    if not isinstance(thinking, Mapping) or thinking.get("type") in (None, "disabled"):
        return None
    for m, b, block in _blocks(messages):
        if block.get("type") == "thinking" and block.get("signature") not in signatures:
            return f"messages.{m}.content.{b}: Invalid `signature` in `thinking` block"
    if not messages or not _only_tool_results(messages[-1]):
        return None
    last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    first = _content(messages[last])[:1]
    if first and first[0].get("type") in _THINKING:
        return None
    found = first[0].get("type") if first else "nothing"
    return (
        f"messages.{last}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        f"`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
        "We recommend you include thinking blocks from previous turns. To avoid this "
        "requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    )


def _only_tool_results(message: Mapping[str, Any]) -> bool:
    content = _content(message)
    return (
        message.get("role") == "user"
        and bool(content)
        and all(block.get("type") == "tool_result" for block in content)
    )


# -- OpenAI Responses ------------------------------------------------------------------------


def responses_violation(body: Mapping[str, Any], required: Mapping[str, str]) -> str | None:
    """The first documented Responses API rule ``body`` breaks. ``required`` maps each output
    item this server produced after a reasoning item to that reasoning item's id."""
    tools = [tool for tool in body.get("tools") or [] if isinstance(tool, Mapping)]
    model = str(body.get("model", ""))
    if any(t.get("type") == "tool_search" for t in tools) and not _TOOL_SEARCH_MODELS.match(model):
        return (
            f"The 'tool_search' tool is not supported with model '{model}': only gpt-5.4 and "
            "later models support tool_search."
        )
    raw = body.get("input")
    items = [item for item in raw if isinstance(item, Mapping)] if isinstance(raw, list) else []
    present: set[str] = set()
    for item in items:
        item_id = item.get("id")
        needs = required.get(str(item_id)) if item_id else None
        if needs is not None and needs not in present:
            return (
                f"Item '{item_id}' of type '{item.get('type')}' was provided without its "
                f"required 'reasoning' item: '{needs}'."
            )
        if item_id:
            present.add(str(item_id))
    return _responses_outputs(items)


def _responses_outputs(items: Sequence[Mapping[str, Any]]) -> str | None:
    """Every function call and client tool search answered, every output answering a call."""
    calls = {"function_call": "function_call_output", "tool_search_call": "tool_search_output"}
    asked = {
        str(i.get("call_id")): str(i["type"])
        for i in items
        if i.get("type") in calls
        and (i.get("type") != "tool_search_call" or i.get("execution") == "client")
    }
    outputs = {str(i.get("call_id")) for i in items if i.get("type") in calls.values()}
    for call_id in outputs - set(asked):
        return f"No tool call found for function call output with call_id {call_id}."
    for call_id, kind in asked.items():
        if call_id not in outputs:
            what = "function call" if kind == "function_call" else "tool search call"
            return f"No tool output found for {what} {call_id}."
    return None


# -- OpenAI Chat Completions -----------------------------------------------------------------


def chat_violation(body: Mapping[str, Any]) -> str | None:
    """Every assistant ``tool_calls`` answered by ``tool`` messages right after it."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    waiting: list[str] = []
    for message in messages:
        if message.get("role") == "tool":
            if message.get("tool_call_id") not in waiting:
                return (
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'."
                )
            waiting.remove(str(message.get("tool_call_id")))
            continue
        if waiting:
            break
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        waiting = [str(call.get("id")) for call in calls or [] if isinstance(call, Mapping)]
    if waiting:
        return (
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {', '.join(waiting)}"
        )
    return None


# -- Gemini generateContent ------------------------------------------------------------------


def gemini_violation(body: Mapping[str, Any]) -> str | None:
    """A model turn's function calls answered by as many function responses in the next turn."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, Mapping)]
    for index, content in enumerate(contents):
        calls = _parts(content, "functionCall", "function_call")
        if not calls or index + 1 >= len(contents):
            continue
        responses = _parts(contents[index + 1], "functionResponse", "function_response")
        if len(responses) != len(calls):
            return (
                "Please ensure that the number of function response parts is equal to the "
                "number of function call parts of the function call turn."
            )
    return None


def _parts(content: Mapping[str, Any], *keys: str) -> list[Mapping[str, Any]]:
    parts = content.get("parts") or []
    return [p for p in parts if isinstance(p, Mapping) and any(p.get(k) for k in keys)]


# -- reading ---------------------------------------------------------------------------------


def _content(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, Mapping)]


def _blocks(messages: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, int, Mapping[str, Any]]]:
    for m, message in enumerate(messages):
        for b, block in enumerate(_content(message)):
            yield m, b, block
