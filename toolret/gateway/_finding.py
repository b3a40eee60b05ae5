"""find_tools' answer over the fleet's catalog: by meaning when the vectors are stored, else by
BM25, and then it says so.

Ranking by meaning is tried first whatever the gateway's own indexing step has reached: after a
restart the fleet's vectors are usually stored already, and reading them is all it takes. When
they are not (a fleet seen for the first time, still being embedded; indexing failed; the
store or the embedder failing), the whole fleet is ranked by its words (BM25) and the answer
carries ``"ranking": "bm25"`` and a ``note`` saying why, so a request in a language the tools
are not written in is never answered by words silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolret.errors import NotIndexedError
from toolret.gateway._exposed import found_tool
from toolret.retrieval._companions import companion_answers
from toolret.retrieval._find_tools import MAX_CAPABILITIES
from toolret.retrieval._lexical import catalog_index
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, Ranking, Reason, discover_each

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.retrieval._client import ToolRetrievalClient

__all__ = ["find_answer"]


async def find_answer(
    catalog: Catalog | None,
    capabilities: list[str],
    client: ToolRetrievalClient,
    *,
    unavailable: list[dict[str, str]],
    skip: set[str],
    failed: bool,
    called: Sequence[str] = (),
) -> dict[str, Any]:
    """Per capability (up to ``MAX_CAPABILITIES``), up to ``MAX_DISCOVERED_TOOLS`` tools of
    ``catalog`` with their schemas, best first, none core, none in ``skip`` and none repeated
    across capabilities, the last places going to the usual companions of the tools the client
    ``called`` this turn and of the first finds; ``unavailable`` as given; and, when nothing
    could be searched, why. ``failed``: the gateway's indexing of this catalog failed."""
    asked = capabilities[:MAX_CAPABILITIES]
    answer: dict[str, Any] = {
        "results": [{"capability": c, "tools": []} for c in asked],
        "unavailable": unavailable,
    }
    if catalog is None:
        answer["reason"] = "no upstream server has listed its tools yet"
        return answer
    depth = MAX_DISCOVERED_TOOLS * len(asked)
    by_words: list[str] = []

    async def rank(text: str) -> Ranking:
        """By meaning when the catalog's vectors are stored; else the whole fleet by BM25."""
        try:
            ranking = await client.rank(catalog, text, depth, exclude=skip)
        except NotIndexedError:
            why = "indexing the tools failed" if failed else "the tool index is still being built"
            by_words.append(why)
        except Exception as error:
            by_words.append(f"ranking by meaning failed ({type(error).__name__})")
        else:
            if not ranking.unranked:
                return ranking
            by_words.append("some tools have no vectors yet")
        return Ranking(catalog_index(catalog).evidence(text))

    found = await discover_each(catalog, asked, rank, bound=skip, time_budget=client.time_budget)
    companions = await client.companions(catalog)
    found = companion_answers(
        catalog, found, MAX_DISCOVERED_TOOLS, companions, anchors=called, skip=skip
    )
    for result, tools in zip(answer["results"], found, strict=True):
        result["tools"] = [found_tool(tool) for tool in tools]
    if by_words:
        answer["ranking"] = "bm25"
        answer["note"] = (
            f"{by_words[0]}: these tools were ranked by their words (BM25), not by meaning; "
            "ask again shortly for a ranking by meaning"
        )
    if not any(found) and not by_words:
        reason = next((tools.reason for tools in found if tools.reason is not None), None)
        if reason is not None:
            answer["reason"] = reason.value
            if reason is Reason.NOT_INDEXED:
                answer["note"] = "the tool index is still being built; ask again shortly"
    if len(capabilities) > len(asked):
        answer["note"] = (
            f"only the first {MAX_CAPABILITIES} capabilities were searched; ask again for the rest"
        )
    return answer
