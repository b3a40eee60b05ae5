"""Reuse within a turn: a message asked again gets the selection (and find_tools the ranking)
already made, and what differs between rounds — the stable list, the tools bound — still
decides what is sent.

The client's database is put out of reach by a lock the ranking statement waits on (a short
statement timeout): an answer that still narrows came from what the client kept.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.locks import locked_table
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._reuse import RecentSelections
from toolret.retrieval._rounds import make_per_round_retrieve
from toolret.retrieval._selection import TIE_SLACK, Mode, Ranking, Reason, Selection, select_guarded
from toolret.retrieval._stable import StableToolList

K = 3
BUDGET = 30.0
MESSAGE = "Delete the duplicate contact for Acme Corp"
CAPABILITY = "write a note on a record"


def _client(database_url: str, **options: Any) -> ToolRetrievalClient:
    return ToolRetrievalClient(
        database_url,
        embedder=BundledE5Embedder(),
        k=K,
        time_budget=BUDGET,
        statement_timeout=0.3,
        **options,
    )


@pytest.fixture
async def indexed(database_url: str) -> str:
    async with _client(database_url) as client:
        await client.index(crm_catalog())
    return database_url


async def test_a_message_asked_again_is_answered_with_the_selection_made(indexed: str) -> None:
    catalog = crm_catalog()
    async with _client(indexed) as client:
        first = await client.select(catalog, MESSAGE)
        assert first.mode is Mode.NARROWED
        async with locked_table(indexed):
            again = await client.select(catalog, MESSAGE)
            other = await client.select(catalog, "Export the deals to a CSV file")
        assert again.mode is Mode.NARROWED
        assert again.names == first.names
        assert dict(again.scores) == dict(first.scores)
        assert (other.mode, other.reason) == (Mode.FULL, Reason.TIMEOUT)  # not kept: asked
        async with locked_table(indexed):
            # a larger k within the exact depth of the ranking kept (k + TIE_SLACK): no query
            wider = await client.select(catalog, MESSAGE, k=K + 1)
            deeper = await client.select(catalog, MESSAGE, k=K + TIE_SLACK + 1)  # asked
    async with _client(indexed, reuse=0) as fresh:
        expected = await fresh.select(catalog, MESSAGE, k=K + 1)
    assert (wider.mode, wider.names) == (Mode.NARROWED, expected.names)
    assert (deeper.mode, deeper.reason) == (Mode.FULL, Reason.TIMEOUT)


async def test_a_reported_turn_ends_the_reuse_of_its_message(indexed: str) -> None:
    """``report_turn`` ends the turn: the same message asked afterwards goes to the database
    (so an example learned from the report counts), another kept message still does not."""
    catalog = crm_catalog()
    other = "Export the deals to a CSV file"
    async with _client(indexed) as client:
        first = await client.select(catalog, MESSAGE)
        assert (await client.select(catalog, other)).mode is Mode.NARROWED
        transcript = [
            {"role": "user", "content": MESSAGE},
            {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "add_comment"}}]},
        ]
        assert await client.report_turn(catalog, first, transcript) is False  # no Redis
        async with locked_table(indexed):
            again = await client.select(catalog, MESSAGE)
            kept = await client.select(catalog, other)
        assert (again.mode, again.reason) == (Mode.FULL, Reason.TIMEOUT)
        assert kept.mode is Mode.NARROWED


async def test_with_reuse_off_every_selection_asks_the_database(indexed: str) -> None:
    catalog = crm_catalog()
    async with _client(indexed, reuse=0) as client:
        assert (await client.select(catalog, MESSAGE)).mode is Mode.NARROWED
        async with locked_table(indexed):
            again = await client.select(catalog, MESSAGE)
    assert (again.mode, again.reason) == (Mode.FULL, Reason.TIMEOUT)


async def test_a_full_roster_is_not_kept(database_url: str) -> None:
    catalog = crm_catalog()
    async with _client(database_url) as client:
        before = await client.select(catalog, MESSAGE)
        assert (before.mode, before.reason) == (Mode.FULL, Reason.NOT_INDEXED)
        await client.index(catalog)
        assert (await client.select(catalog, MESSAGE)).mode is Mode.NARROWED


async def test_each_conversations_stable_list_applies_to_the_kept_selection(indexed: str) -> None:
    """Two conversations (two stable lists) ask the same message: the second is answered from
    the kept selection, through its own list, as a client without reuse answers it."""
    catalog = crm_catalog()
    history = ["export_records", "create_view"]
    async with _client(indexed, reuse=0) as fresh:
        expected = [
            (await fresh.select(catalog, MESSAGE, stable=StableToolList(catalog, names))).names
            for names in ((), history)
        ]
    async with _client(indexed) as client:
        new = StableToolList(catalog)
        assert (await client.select(catalog, MESSAGE, stable=new)).names == expected[0]
        old = StableToolList(catalog, history)
        async with locked_table(indexed):
            answered = await client.select(catalog, MESSAGE, stable=old)
        assert answered.names == expected[1] != expected[0]  # its own list, not the first's
        plain = await client.select(catalog, MESSAGE)
        assert answered.schema_tokens is not None
        assert plain.schema_tokens is not None
        assert answered.schema_tokens > plain.schema_tokens  # counted for what it sends


async def test_find_tools_with_a_grown_bound_is_answered_from_the_kept_ranking(
    indexed: str,
) -> None:
    """Round one binds the selection and discovers tools; round two asks again with those
    bound too: the answer comes from round one's ranking and equals a fresh client's."""
    catalog = crm_catalog()
    limit = 2
    async with _client(indexed, reuse=0) as fresh:
        selection = await fresh.select(catalog, MESSAGE)
        bound = selection.names
        first = [
            t.name for t in await fresh.find_tools(catalog, CAPABILITY, bound=bound, limit=limit)
        ]
        grown = [*bound, *first]
        second = [
            t.name for t in await fresh.find_tools(catalog, CAPABILITY, bound=grown, limit=limit)
        ]
    assert len(first) == len(second) == limit
    assert not set(first) & set(second)
    async with _client(indexed) as client:
        found = await client.find_tools(catalog, CAPABILITY, bound=bound, limit=limit)
        assert [t.name for t in found] == first
        async with locked_table(indexed):
            again = await client.find_tools(catalog, CAPABILITY, bound=grown, limit=limit)
            # fewer tools bound than any kept ranking left out: it must ask, and cannot
            narrower = await client.find_tools(catalog, CAPABILITY, bound=grown[1:], limit=8)
        assert [t.name for t in again] == second
        assert narrower == []


async def test_the_per_round_hook_reuses_the_selection_each_round(indexed: str) -> None:
    catalog = crm_catalog()
    async with _client(indexed) as client:
        retrieve = make_per_round_retrieve(client, catalog, k=K)
        first = await retrieve(MESSAGE)
        async with locked_table(indexed):
            rounds = [await retrieve(MESSAGE, active=first) for _ in range(5)]
    assert rounds == [first] * 5


# -- the policy itself, with a ranking function that counts its calls ---------------------------


async def test_select_guarded_ranks_once_per_message_and_applies_each_policy() -> None:
    catalog = crm_catalog()
    calls: list[str] = []

    async def rank(text: str) -> Ranking:
        calls.append(text)
        return Ranking({tool.name: 1.0 / (i + 1) for i, tool in enumerate(catalog.candidates)})

    recent = RecentSelections()
    plain = await select_guarded(catalog, MESSAGE, rank, k=K, recent=recent)
    stable = StableToolList(catalog, ["export_records"])
    kept = await select_guarded(catalog, MESSAGE, rank, k=K, recent=recent, stable=stable)
    resumed = await select_guarded(catalog, MESSAGE, rank, k=K, recent=recent, resume=True)
    assert calls == [MESSAGE]
    core = [tool.name for tool in catalog.core]
    assert kept.names == stable.names
    assert kept.names[: len(core) + 1] == [*core, "export_records"]  # first-seen order
    assert set(plain.names) < set(kept.names)
    assert (resumed.mode, resumed.reason) == (Mode.FULL, Reason.RESUME)


def test_a_kept_selection_expires_and_belongs_to_its_catalog() -> None:
    now = [0.0]
    recent = RecentSelections(60.0, clock=lambda: now[0])
    catalog, other = crm_catalog(), crm_catalog()
    selection = Selection(catalog.tools[:3], Mode.NARROWED)
    recent.keep(catalog, MESSAGE, K, selection)
    recent.keep(catalog, "blank", K, Selection(catalog.tools, Mode.FULL, Reason.TIMEOUT))
    assert recent.get(catalog, MESSAGE, K) is selection
    assert recent.get(catalog, "blank", K) is None
    assert recent.get(other, MESSAGE, K) is None  # an equal catalog, not this one
    now[0] = 61.0
    assert recent.get(catalog, MESSAGE, K) is None
