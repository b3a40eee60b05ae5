"""Hybrid ranking in the database client: the same selections as the in-memory retriever.

The client gets dense scores from one SQL statement (the ``k`` best, plus the tools with
lexical evidence) and BM25 from the catalog in process; whatever the catalog, its fused top
``k`` must be the in-memory retriever's, which fuses every tool.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import numpy as np
import pytest

from tests.support.embedders import CountingEmbedder, HashEmbedder
from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import Catalog, InMemoryRetriever, Mode, Tool
from toolret._profile import profile_of
from toolret._settings import RetrievalMode
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._hybrid import INCLUDE_LIMIT, lexical_hits, widen
from toolret.retrieval._lexical import catalog_index, hybrid_weight
from toolret.store._sql import EXACT_LIMIT, CatalogQuery

BUDGET = 60.0
"""Generous: these tests are about what is selected, not the speed of a loaded machine."""
MESSAGES = (
    "export the contacts to a csv file",  # shares words with one tool
    "Delete the duplicate contact for Acme Corp",
    "send the quote to the client by email and remind me on Friday",
    "احذف جهة الاتصال المكررة",  # shares no word with the catalog: dense alone
    "Yarın için müşteriyi arama görevi oluştur",
    # more informative words than the weight's threshold: the lexical weight grows
    "export the contact records to a csv file, then email the company and add a comment",
)


def test_the_parity_messages_include_one_whose_lexical_weight_grows() -> None:
    catalog = crm_catalog()
    profile = profile_of(CountingEmbedder())
    grown = [m for m in MESSAGES if hybrid_weight(catalog, m, profile) > profile.lexical_weight]
    assert grown, "no message weighs BM25 more than the base weight: parity is not tested there"


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


def _with_examples() -> Catalog:
    examples = {
        "delete_record": ("get rid of this contact", "bu kaydı sil", "احذف هذا السجل"),
        "create_task": ("remind me to call him", "yarın için görev ekle"),
    }
    return Catalog(dataclasses.replace(t, examples=examples.get(t.name, ())) for t in CRM_TOOLS)


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
@pytest.mark.parametrize("examples", [False, True], ids=["descriptions", "examples"])
@pytest.mark.parametrize("exact_limit", [EXACT_LIMIT, 0], ids=["exact", "summary-index"])
async def test_the_client_selects_what_the_in_memory_retriever_selects(
    database_url: str,
    embedder: CountingEmbedder,
    mode: RetrievalMode,
    examples: bool,
    exact_limit: int,
) -> None:
    """Through the exact statement and through the summary index (``exact_limit=0``: how a
    catalog past ``EXACT_LIMIT`` documents is ranked), lexical hits scored beside it."""
    catalog = _with_examples() if examples else crm_catalog()
    memory = InMemoryRetriever(embedder, mode=mode, k=3, time_budget=BUDGET)
    await memory.index(catalog)
    async with ToolRetrievalClient(
        database_url,
        embedder=embedder,
        mode=mode,
        k=3,
        time_budget=BUDGET,
        exact_limit=exact_limit,
        reuse=0,
    ) as client:
        await client.index(catalog)
        for message in MESSAGES:
            want = await memory.select(catalog, message)
            got = await client.select(catalog, message)
            assert got.mode is Mode.NARROWED
            assert got.names == want.names, message
            assert got.scores == pytest.approx(want.scores, abs=1e-5)
            bound = got.names[-2:]
            found = await client.find_tools(catalog, message, bound=bound, limit=2)
            expected = await memory.find_tools(catalog, message, bound=bound, limit=2)
            assert [t.name for t in found] == [t.name for t in expected]


def test_the_default_mode_is_hybrid(database_url: str) -> None:
    assert ToolRetrievalClient(database_url).mode == "hybrid"
    assert InMemoryRetriever().mode == "hybrid"


WORDS = ("alpha", "bravo", "charlie", "delta")


def _fleet(size: int) -> Catalog:
    """``size`` tools; each of four words is in a quarter of them, so a message naming all four
    has lexical evidence for about two thirds of the catalog: more than the first statement
    asks for (``INCLUDE_LIMIT``)."""
    rng = np.random.default_rng(11)
    tools = []
    for i in range(size):
        words = [w for j, w in enumerate(WORDS) if rng.random() < 0.25 + 0.01 * j]
        text = f"Synthetic tool number {i}, filler for the test: " + " ".join(words)
        tools.append(Tool(f"tool_{i}", text))
    return Catalog(tools)


@pytest.fixture(scope="module")
def fleet() -> Catalog:
    return _fleet(900)


@pytest.fixture
async def fleet_client(database_url: str, fleet: Catalog) -> AsyncIterator[ToolRetrievalClient]:
    async with ToolRetrievalClient(
        database_url, embedder=HashEmbedder(), k=12, time_budget=BUDGET, exact_limit=10_000
    ) as client:
        await client.index(fleet)
        yield client


async def test_hybrid_stays_exact_when_the_lexical_hits_are_too_many_for_one_statement(
    fleet: Catalog, fleet_client: ToolRetrievalClient
) -> None:
    memory = InMemoryRetriever(HashEmbedder(), k=12, time_budget=BUDGET)
    await memory.index(fleet)
    widened = 0
    for n in range(12):
        message = f"request {n}: {' '.join(WORDS[: 1 + n % 4])}"
        lexical = lexical_hits(fleet, catalog_index(fleet).score_map(message))
        if len(lexical.hits) > INCLUDE_LIMIT:  # the first statement alone may not certify
            vector = await fleet_client.embedder.embed_query(message)
            query = CatalogQuery.build(fleet, HashEmbedder.model_id, "query")
            first = await fleet_client.store.rank(query, vector, limit=12, include=lexical.first)
            weight = hybrid_weight(fleet, message, profile_of(fleet_client.embedder))
            widened += bool(widen(fleet, first.scores, lexical, weight, 12))
        want = await memory.select(fleet, message)
        got = await fleet_client.select(fleet, message)
        assert got.names == want.names, message
        assert got.scores == pytest.approx(want.scores, abs=1e-5)
    assert widened, "no message needed the second statement: the test proves nothing"


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
async def test_tools_described_alike_tie_the_same_way_in_both_retrievers(
    database_url: str, mode: RetrievalMode
) -> None:
    """A fleet lists two tools with the same description (toollens-dev has them): equal scores,
    and the ``k``-th place between them. Both retrievers give it to the name that sorts first,
    as the store's statements order them."""
    same = "Authentication: not required. Returns the items of the service."
    tools = [
        *(
            Tool(f"tool_{i:02d}", f"Synthetic tool {i} of a fleet, for a tie at the boundary.")
            for i in range(20)
        ),
        Tool("zulu__items", same),
        Tool("alpha__items", same),
    ]
    catalog = Catalog(tools)
    memory = InMemoryRetriever(HashEmbedder(), mode=mode, time_budget=BUDGET)
    await memory.index(catalog)
    message = "which items does it return"
    order = (await memory.rank(catalog, message)).scores
    ranked = sorted(order, key=lambda name: -order[name])
    k = min(ranked.index("alpha__items"), ranked.index("zulu__items")) + 1  # between the two
    assert order["alpha__items"] == order["zulu__items"]
    async with ToolRetrievalClient(
        database_url, embedder=HashEmbedder(), mode=mode, k=k, time_budget=BUDGET
    ) as client:
        await client.index(catalog)
        got = await client.select(catalog, message)
    want = await memory.select(catalog, message, k=k)
    assert got.names == want.names
    assert "alpha__items" in got.names
    assert "zulu__items" not in got.names
