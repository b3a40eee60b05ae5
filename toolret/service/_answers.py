"""The answers of ``POST /v1/select`` and ``POST /v1/find_tools`` for a request already parsed
and authorised: the routes send them as JSON, and the console
(``toolret.console``) shows the same dictionaries, so a page can never disagree with the API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, discover_each

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.service._app import Service
    from toolret.service._auth import Grant
    from toolret.service._models import FindToolsRequest, SelectRequest

__all__ = ["answer_find_tools", "answer_select"]


async def answer_select(service: Service, grant: Grant, body: SelectRequest) -> dict[str, Any]:
    """``/v1/select``'s answer: the selection (and, with ``explain``, why)."""
    grant.check(body.catalog)
    catalog = grant.cut(await service.registry.get(body.catalog), body.allowed)
    stable = None
    if body.bound is not None:
        from toolret.retrieval._stable import StableToolList

        stable = StableToolList(catalog, names=body.bound)
    why = None
    if body.explain:
        from toolret.retrieval._explain import explain

        selection, explanation = await explain(
            service.client, catalog, body.message, k=body.k, resume=body.resume, stable=stable
        )
        why = explanation.as_dict()
    else:
        selection = await service.client.select(
            catalog, body.message, resume=body.resume, k=body.k, stable=stable
        )
    service.unindexed(catalog, selection.reason)
    service.minutes.record(selection)
    answer: dict[str, Any] = {
        "names": selection.names,
        "mode": selection.mode.value,
        "reason": selection.reason.value if selection.reason is not None else None,
        "unranked": list(selection.unranked),
        "schema_tokens": selection.schema_tokens,
        "roster_tokens": selection.roster_tokens,
    }
    if why is not None:
        answer["explain"] = why
    return answer


async def answer_find_tools(
    service: Service, grant: Grant, body: FindToolsRequest
) -> dict[str, Any]:
    """``/v1/find_tools``' answer: up to ``limit`` tools per capability, none repeated."""
    from toolret.retrieval._companions import companion_answers
    from toolret.retrieval._find_tools import capabilities_of

    grant.check(body.catalog)
    catalog: Catalog = grant.cut(await service.registry.get(body.catalog), body.allowed)
    client = service.client
    exclude = set(body.bound)
    asked = capabilities_of(body.model_dump(include={"capabilities", "query"}, exclude_none=True))
    depth = MAX_DISCOVERED_TOOLS * max(1, len(asked))
    found = await discover_each(  # what client.find_tools runs, keeping why nothing was found
        catalog,
        asked,
        lambda text: client.rank(catalog, text, depth, exclude=exclude),
        bound=exclude,
        limit=body.limit,
        time_budget=client.time_budget,
    )
    companions = await client.companions(catalog)
    found = companion_answers(
        catalog, found, body.limit, companions, anchors=sorted(exclude), skip=exclude
    )
    for tools in found:
        service.unindexed(catalog, tools.reason)
    reasons = [tools.reason.value if tools.reason is not None else None for tools in found]
    reason = None if any(found) else next((r for r in reasons if r is not None), None)
    if not asked:
        reason = "blank_query"
    listed = [[{"name": t.name, "description": t.description} for t in tools] for tools in found]
    results = [
        {"capability": capability, "tools": tools, "reason": why}
        for capability, tools, why in zip(asked, listed, reasons, strict=True)
    ]
    every = [tool for tools in listed for tool in tools]
    return {"results": results, "tools": every, "reason": reason}
