"""Examples on a fleet: learned from traffic, or suggested and kept, for a catalog built with
``catalog_from_mcp`` (tools named ``server__tool``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arq.worker import Worker

from tests.support.fake_gemini import FakeGemini
from tests.support.tools import CRM_TOOLS, mcp_catalog
from toolret import BundledE5Embedder, Catalog, Settings
from toolret._profile import corpus_hash
from toolret.adapters import catalog_from_mcp
from toolret.adapters._source import load_examples
from toolret.authoring._suggest import suggest_examples, write_examples
from toolret.feedback._signals import called_tool_names
from toolret.feedback._store import FeedbackStore
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode
from toolret.store._vector_store import VectorStore

K = 3
BUDGET = 30.0
MESSAGE = "Please look after the Acme account this week"


@pytest.fixture
async def indexed(database_url: str) -> AsyncIterator[VectorStore]:
    """A store with the CRM tools, served by two MCP servers, published for the bundled model."""
    async with VectorStore.from_url(database_url) as store:
        async with ToolRetrievalClient(store=store, embedder=BundledE5Embedder()) as client:
            await client.index(mcp_catalog())
        yield store


def test_a_namespaced_responses_call_names_the_catalog_tool() -> None:
    """OpenAI Responses sends an MCP tool's call as its server's namespace and its own name."""
    catalog = mcp_catalog()
    turn = [
        {"role": "user", "content": MESSAGE},
        {"type": "function_call", "call_id": "c1", "namespace": "work", "name": "create_task"},
        {"type": "function_call", "call_id": "c2", "name": "crm__delete_record"},
    ]
    assert called_tool_names(turn, catalog) == ["work__create_task", "crm__delete_record"]
    assert called_tool_names(turn) == ["create_task", "crm__delete_record"]


async def test_a_miss_on_a_fleet_is_learned_and_then_bound(
    indexed: VectorStore, redis_url: str, worker: Callable[..., Worker]
) -> None:
    catalog = mcp_catalog()
    embedder = BundledE5Embedder()
    settings = Settings(redis_url=redis_url, learn=True)
    async with ToolRetrievalClient(
        store=indexed, embedder=embedder, settings=settings, k=K, time_budget=BUDGET
    ) as client:
        ranking = await client.rank(catalog, MESSAGE, k=len(catalog.candidates))
        needed = min(ranking.scores, key=lambda name: ranking.scores[name])
        server, _, original = needed.partition("__")
        before = await client.select(catalog, MESSAGE)
        assert before.mode is Mode.NARROWED
        assert needed not in before.names
        transcript = [
            {"role": "user", "content": MESSAGE},
            {"type": "function_call", "call_id": "c1", "namespace": server, "name": original},
        ]
        assert await client.report_turn(catalog, before, transcript)
        await client.flush()
        run = worker(ctx={"store": indexed, "embedder": embedder})
        await run.main()
        assert (run.jobs_complete, run.jobs_failed) == (1, 0)
        after = await client.select(catalog, MESSAGE)
        assert needed in after.names

        # The fleet changes: a server is added and another tool's description edited. The new
        # catalog is a new corpus; the tool whose own description did not change keeps what
        # was learned for it, and one whose description changed starts afresh.
        grown = _fleet(edit={"crm__create_view": "Create a saved board view of an object."})
        await client.index(grown)
        kept = await client.select(grown, MESSAGE)
        assert kept.mode is Mode.NARROWED
        assert needed in kept.names
        rewritten = _fleet(edit={needed: "Archive the thing for later reference by the team."})
        await client.index(rewritten)
    feedback = FeedbackStore(indexed)
    for fleet, learned in ((catalog, 1), (grown, 1), (rewritten, 0)):
        counts = await feedback.learned_counts(embedder.model_id, corpus_hash(fleet, embedder))
        assert counts.get(needed, 0) == learned


def _fleet(*, edit: dict[str, str]) -> Catalog:
    """The CRM fleet with a third server and the descriptions ``edit`` names rewritten."""
    servers: dict[str, list[dict[str, Any]]] = {"crm": [], "work": []}
    for tool in CRM_TOOLS:
        server = "work" if tool.domain in {"comments", "tasks"} else "crm"
        description = edit.get(f"{server}__{tool.name}", tool.description)
        listing = {"name": tool.name, "description": description}
        servers[server].append({**listing, "inputSchema": {"type": "object", "properties": {}}})
    servers["docs"] = [
        {
            "name": "search_docs",
            "description": "Search the help center articles for a phrase.",
            "inputSchema": {"type": "object", "properties": {}},
        }
    ]
    return catalog_from_mcp(servers, core=["crm__find_records", "crm__inspect_schema"])


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as fake:
        yield fake


async def test_suggested_examples_for_a_fleet_load_back_onto_its_tools(
    gemini: FakeGemini, tmp_path: Path
) -> None:
    catalog = mcp_catalog()
    suggested = await suggest_examples(
        catalog, ["en", "tr"], api_key="test-key", per_tool=1, base_url=gemini.url
    )
    assert list(suggested) == [tool.name for tool in catalog.candidates]
    path = write_examples(tmp_path / "fleet.examples.toml", suggested)
    servers: dict[str, list[dict[str, Any]]] = {"crm": [], "work": []}
    for tool in CRM_TOOLS:
        server = "work" if tool.domain in {"comments", "tasks"} else "crm"
        servers[server].append({"name": tool.name, "description": tool.description})
    with_examples = catalog_from_mcp(servers, examples=load_examples(path))
    assert with_examples["work__create_task"].examples == suggested["work__create_task"]
    assert all(with_examples[name].examples for name in suggested)
