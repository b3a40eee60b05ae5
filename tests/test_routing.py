"""``route``: agents ranked by their descriptions, for a router; every agent when anything fails."""

from __future__ import annotations

import pytest

from tests.support.embedders import CountingEmbedder, unavailable
from toolret import (
    InMemoryRetriever,
    Mode,
    Reason,
    Tool,
    ToolDescriptionError,
    agent_catalog,
    route,
)
from toolret.retrieval._client import ToolRetrievalClient

BUDGET = 60.0
AGENTS = agent_catalog(
    {
        "units": "Property listings: units, buildings, leases, tenants and buyers of a real "
        "estate CRM; find, create, update or delete their records.",
        "billing": "Invoices, payments, refunds and subscription plans: what a customer owes, "
        "has paid, and how to charge or refund them.",
        "calendar": "Meetings, viewings and reminders: schedule, move or cancel appointments "
        "and set reminders for the team.",
        "support": "Questions about using the product itself: how a feature works, account "
        "settings, passwords and error messages.",
    }
)
CASES = [
    ("Refund the last payment for Acme, they were charged twice", "billing"),
    ("Book a viewing of unit B-12 on Thursday at 3pm", "calendar"),
    ("ما هي الوحدات المتاحة للإيجار في المبنى أ؟", "units"),  # Arabic: units to let in tower A
    ("Şifremi nasıl sıfırlarım?", "support"),  # Turkish: how do I reset my password?
]


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.mark.parametrize(("message", "agent"), CASES)
async def test_the_best_agent_comes_first_in_any_language(
    embedder: CountingEmbedder, message: str, agent: str
) -> None:
    retriever = InMemoryRetriever(embedder, k=1, time_budget=BUDGET)
    await retriever.index(AGENTS)
    routing = await route(retriever, AGENTS, message, k=2)
    assert routing.ranked
    assert routing.agents[0] == agent
    assert len(routing.agents) == 2
    assert routing.scores[routing.agents[0]] >= routing.scores[routing.agents[1]]


async def test_the_client_routes_as_the_in_memory_retriever_does(
    database_url: str, embedder: CountingEmbedder
) -> None:
    memory = InMemoryRetriever(embedder, time_budget=BUDGET)
    await memory.index(AGENTS)
    async with ToolRetrievalClient(database_url, embedder=embedder, time_budget=BUDGET) as client:
        unindexed = await route(client, AGENTS, CASES[0][0])
        await client.index(AGENTS)
        for message, _ in CASES:
            got = await route(client, AGENTS, message, k=2)
            assert got.agents == (await route(memory, AGENTS, message, k=2)).agents
    # Not indexed yet: every agent, in the order given, and why.
    assert (unindexed.mode, unindexed.reason) == (Mode.FULL, Reason.NOT_INDEXED)
    assert unindexed.agents == tuple(AGENTS.names)


@pytest.mark.parametrize(
    ("message", "k", "mode", "reason"),
    [
        ("   ", 1, Mode.FULL, Reason.BLANK_MESSAGE),
        ("refund the payment", 4, Mode.PASSTHROUGH, None),
    ],
)
async def test_every_agent_when_there_is_nothing_to_rank(
    embedder: CountingEmbedder, message: str, k: int, mode: Mode, reason: Reason | None
) -> None:
    routing = await route(InMemoryRetriever(embedder, time_budget=BUDGET), AGENTS, message, k=k)
    assert (routing.mode, routing.reason) == (mode, reason)
    assert routing.agents == tuple(AGENTS.names)
    assert not routing.ranked


async def test_a_failing_embedder_routes_to_every_agent() -> None:
    retriever = InMemoryRetriever(unavailable(), mode="dense", time_budget=BUDGET)
    routing = await route(retriever, AGENTS, "refund the payment")
    assert (routing.mode, routing.reason) == (Mode.FULL, Reason.EMBEDDER_UNAVAILABLE)
    assert routing.agents == tuple(AGENTS.names)


def test_agents_need_valid_names_and_some_description() -> None:
    with pytest.raises(ToolDescriptionError):
        agent_catalog({"billing": ""})
    agents = agent_catalog([Tool("billing", "Invoices", examples=("refund my order",))])
    assert agents["billing"].examples == ("refund my order",)
