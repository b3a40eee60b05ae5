"""Gemini function calling (google-genai ``generate_content``): the turn's tools as function
declarations, and find_tools to widen them.

Gemini has no deferred loading, so each turn sends its own subset: the selection's tools as
``FunctionDeclaration`` dicts (``to_gemini``) plus ``find_tools_definition("gemini", catalog)``
(a tool of the catalog's own named find_tools raises ``CatalogError``). When the
model calls find_tools, answer it with ``answer_find_tools`` as a ``function_response`` part;
``discovered_tool_names(contents)`` reads the discoveries back from the turn's ``Content``
list, so the next round declares them too. Every ``function_call`` part of a model turn is
answered in the next turn by as many ``function_response`` parts, search or not.

    selection = await retriever.select(catalog, text)
    bound = [*selection.names, *discovered_tool_names(contents)]
    declarations = [*to_gemini(catalog.subset(bound)), find_tools_definition("gemini", catalog)]
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])

The converter lives with the other providers' (``toolret.adapters``, ``toolret.to_gemini``);
this module is the Gemini integration's one import, as the others are.
"""

from __future__ import annotations

from toolret.adapters._gemini import to_gemini

__all__ = ["to_gemini"]
