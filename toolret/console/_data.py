"""What the Catalogs, Misses and Health pages show, read from the store, the embedder and the
worker's queue: dictionaries, the pages' JSON twins. Nothing here writes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from toolret.retrieval._breaker import Breaker, State, breaker_for

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.service._app import Service

__all__ = ["FIXES", "catalog_page", "health_page", "misses_page"]

FIXES = {
    "thin_description": "write a description that says what the tool does and when to use it",
    "cut_description": "shorten the description, or move what matters to its start",
    "lookalike": "say in each description when to use it rather than the other",
    "misplaced_example": "move the example to the other tool, or say in both descriptions "
    "what tells them apart",
    "missing_language": "add an example request in that language",
}
"""The fix of each kind of lint finding (``toolret.authoring._lint``)."""

_LINTS: dict[tuple[str, str], dict[str, Any]] = {}


async def catalog_page(service: Service, name: str, catalog: Catalog) -> dict[str, Any]:
    """Tools, core tools, the model, the index state and the lint findings of one catalog."""
    from toolret._profile import corpus_hash
    from toolret.store._schema import corpora

    client = service.client
    embedder = client.embedder
    corpus = corpus_hash(catalog, embedder)
    state: dict[str, Any] = {"corpus_hash": corpus, "dense": "absent", "documents": 0}
    try:
        statement = select(
            corpora.c.documents, corpora.c.published_at, corpora.c.last_seen_at
        ).where(corpora.c.model_id == embedder.model_id, corpora.c.corpus_hash == corpus)
        async with client.store.transaction() as connection:
            row = (await connection.execute(statement)).mappings().first()
        if row is not None:
            published = row["published_at"]
            state.update(
                dense="published" if published is not None else "indexing",
                documents=row["documents"],
                last_reindex=published.isoformat() if published is not None else None,
            )
    except Exception as error:  # the page still shows the catalog
        state["error"] = str(error) or type(error).__name__
    state["jobs_queued"] = await _jobs_queued(service)
    return {
        "catalog": name,
        "model": embedder.model_id,
        "mode": client.mode,
        "k": client.k,
        "tools": [
            {"name": t.name, "domain": t.domain, "core": t.core, "description": t.description}
            for t in catalog.tools
        ],
        "core": [t.name for t in catalog.core],
        "index": state,
        "schema_warnings": [
            {"tool": w.tool, "kind": w.kind, "message": w.message, "pointer": w.pointer}
            for w in catalog.warnings
        ],
        "lint": await _lint(catalog, embedder, corpus),
    }


async def _lint(catalog: Catalog, embedder: Any, corpus: str) -> dict[str, Any]:
    """The lint report of ``catalog`` with the service's embedder, once per corpus."""
    key = (embedder.model_id, corpus)
    if key not in _LINTS:
        from toolret.authoring._lint import lint_catalog

        try:
            report = await lint_catalog(catalog, embedder)
        except Exception as error:
            return {"error": str(error) or type(error).__name__, "findings": []}
        findings = [
            {**finding.as_dict(), "fix": FIXES.get(finding.kind, "")} for finding in report.findings
        ]
        _LINTS[key] = {"error": None, "findings": findings}
    return _LINTS[key]


async def _jobs_queued(service: Service) -> int | None:
    """Reindex jobs waiting in the worker's queue; None without a worker (indexed inline)."""
    if service.client.redis_url is None:
        return None
    from toolret.indexing._queue import QUEUE_NAME

    try:
        from redis.asyncio import Redis

        redis = Redis.from_url(service.client.redis_url)
        try:
            async with asyncio.timeout(service.client.time_budget):
                return int(await redis.zcard(QUEUE_NAME))
        finally:
            await redis.aclose()
    except Exception:
        return None


async def misses_page(service: Service, name: str, catalog: Catalog) -> dict[str, Any]:
    """Reported turns of the catalog: tools called but not bound, by tool and by language
    (the language of kept message texts only, ``TOOLRET_FEEDBACK_TEXT=1``)."""
    from toolret._profile import corpus_hash
    from toolret._settings import Settings
    from toolret.feedback._store import FeedbackStore
    from toolret.retrieval._sparse import language_of

    embedder = service.client.embedder
    corpus = corpus_hash(catalog, embedder)
    feedback = FeedbackStore(service.client.store)
    stats = await feedback.stats(embedder.model_id, corpus)
    cases = await feedback.cases(embedder.model_id, corpus)
    by_language: dict[str, dict[str, int]] = {}
    for text, called in cases:
        language = language_of(text)
        for tool in called:
            counts = by_language.setdefault(language, {})
            counts[tool] = counts.get(tool, 0) + 1
    return {
        "catalog": name,
        "model": embedder.model_id,
        "turns": stats.turns,
        "tools": [
            {
                "tool": t.tool,
                "misses": t.misses,
                "hits": t.hits,
                "via_find_tools": t.via_find_tools,
                "bound_instead": [tool for tool, _ in t.confused_with],
            }
            for t in stats.tools
            if t.misses
        ],
        "by_language": by_language,
        "texts": [{"message": text, "called": list(called)} for text, called in cases],
        "texts_kept": Settings().feedback_text,
    }


async def health_page(service: Service) -> dict[str, Any]:
    """Store, embedder and worker reachability, and selections per minute by outcome."""
    from toolret.service._minutes import MINUTES

    client = service.client
    budget = client.time_budget
    store = await _checked(breaker_for("store", client.store_name), client.store.ping(), budget)
    embedder = await _checked(
        breaker_for("embedder", client.embedder.model_id),
        client.embedder.embed_query("toolret console health"),
        budget,
    )
    worker: dict[str, Any] = {"state": "none", "detail": "no REDIS_URL: indexing runs inline"}
    if client.redis_url is not None:
        queued = await _jobs_queued(service)
        worker = {
            "state": "ok" if queued is not None else "unreachable",
            "detail": f"{queued} jobs queued" if queued is not None else "Redis did not answer",
        }
    minutes = service.minutes.last_hour()
    outcomes = sorted({outcome for minute in minutes for outcome in minute})
    return {
        "store": store,
        "embedder": {**embedder, "model": client.embedder.model_id},
        "worker": worker,
        "minutes": MINUTES,
        "outcomes": outcomes,
        "per_minute": minutes,
        "selections": sum(sum(minute.values()) for minute in minutes),
    }


async def _checked(
    breaker: Breaker, call: Coroutine[Any, Any, Any], budget: float
) -> dict[str, Any]:
    """A dependency's state: while its breaker is open (selections fall open at once), what the
    breaker says, without calling it; else a call of its own, timed."""
    if breaker.state is not State.CLOSED:
        call.close()
        detail = str(breaker.refusal())
        return {"state": breaker.state.value, "detail": detail, "ms": None}
    return await _probe(call, budget)


async def _probe(call: Any, budget: float) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        async with asyncio.timeout(budget):
            await call
    except Exception as error:
        detail = str(error) or type(error).__name__
        return {"state": "unreachable", "detail": detail, "ms": None}
    return {"state": "ok", "detail": "", "ms": round((time.perf_counter() - started) * 1000, 1)}
