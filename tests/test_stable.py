"""Cache-stable tool lists: the bound set only grows, core first, as a byte-identical prefix."""

from __future__ import annotations

import itertools

import pytest

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, InMemoryRetriever, StableToolList
from toolret.retrieval import _tokens as tokens
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._rounds import make_per_round_retrieve
from toolret.retrieval._selection import Mode, Reason, Selection, full_roster

MESSAGES = (
    "export the records to a csv file",
    "delete the duplicate contact",
    "add a comment on this record",
    "create a task to call them tomorrow",
    "export the records to a csv file",
)


def prefix_of(previous: Selection, current: Selection) -> bool:
    before = "".join(tokens.tool_json(tool) for tool in previous.tools)
    return "".join(tokens.tool_json(tool) for tool in current.tools).startswith(before)


async def test_each_turn_extends_the_last_as_a_byte_identical_prefix() -> None:
    catalog = crm_catalog()
    retriever = InMemoryRetriever(mode="bm25", k=2)
    stable = StableToolList(catalog)
    turns = [await retriever.select(catalog, text, stable=stable) for text in MESSAGES]
    assert all(prefix_of(a, b) for a, b in itertools.pairwise(turns))
    core = [tool.name for tool in catalog.core]
    assert all(turn.names[: len(core)] == core for turn in turns)
    assert turns[-1].names == turns[-2].names  # a repeated need adds nothing
    assert len(turns[-1].tools) > len(turns[0].tools)


async def test_the_per_turn_subset_breaks_the_prefix_the_stable_list_keeps() -> None:
    catalog = crm_catalog()
    retriever = InMemoryRetriever(mode="bm25", k=2)
    subset = [await retriever.select(catalog, text) for text in MESSAGES[:2]]
    assert not prefix_of(subset[0], subset[1])


def test_new_tools_come_in_first_seen_order_after_core() -> None:
    catalog = crm_catalog()
    stable = StableToolList(catalog)
    stable.extend(["delete_record", "create_record", "no_such_tool"])
    stable.extend(["create_record", "add_comment"])
    assert stable.names == [
        *(tool.name for tool in catalog.core),
        "delete_record",
        "create_record",
        "add_comment",
    ]
    restored = StableToolList(catalog, stable.names)
    assert restored.names == stable.names


def test_a_full_roster_turn_extends_the_list_without_joining_it() -> None:
    catalog = crm_catalog()
    stable = StableToolList(catalog, ["delete_record"])
    before = stable.names
    sent = stable.apply(full_roster(catalog, Reason.TIMEOUT))
    assert sent.mode is Mode.FULL
    assert sent.names[: len(before)] == before
    assert sorted(sent.names) == sorted(catalog.names)
    assert stable.names == before


def test_a_limit_starts_the_list_over_from_core_and_the_turn() -> None:
    catalog = crm_catalog()
    core = [tool.name for tool in catalog.core]
    stable = StableToolList(catalog, ["delete_record", "create_record"], limit=len(core) + 2)
    turn = Selection(catalog.subset([*core, "add_comment"]), Mode.NARROWED)
    assert stable.apply(turn).names == [*core, "add_comment"]
    assert stable.restarts == 1


@pytest.mark.parametrize("k", [1, 2])
async def test_the_per_round_hook_keeps_the_prefix(k: int) -> None:
    catalog = crm_catalog()
    stable = StableToolList(catalog)
    retrieve = make_per_round_retrieve(
        InMemoryRetriever(mode="bm25", k=k), catalog, k=k, stable=stable
    )
    first = await retrieve("export the records to a csv file")
    second = await retrieve("delete the duplicate contact", active=[*first, "find_tools"])
    assert second[: len(first)] == first
    assert second[-1] == "find_tools"  # names the catalog does not know stay, at the end
    assert len(second) > len(first) + 1


def test_the_eval_counts_a_changed_subset_as_a_broken_prefix() -> None:
    from evals.studies.cache_stability import prefix_kept, summarize

    catalog = crm_catalog()
    core = [tool.name for tool in catalog.core]
    one = Selection(catalog.subset([*core, "delete_record"]), Mode.NARROWED)
    two = Selection(catalog.subset([*core, "create_record"]), Mode.NARROWED)
    stable = StableToolList(catalog)
    grown = [stable.apply(one), stable.apply(two)]
    assert not prefix_kept(one.tools, two.tools)
    assert prefix_kept(grown[0].tools, grown[1].tools)
    assert summarize("subset", [one, two]).prefix_share == 0.0
    result = summarize("stable", grown)
    assert result.prefix_share == 1.0
    assert result.tools_at_last_turn == len(core) + 2


async def test_the_database_client_keeps_the_prefix_too(database_url: str) -> None:
    catalog = crm_catalog()
    stable = StableToolList(catalog)
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=2, time_budget=60
    ) as client:
        await client.index(catalog)
        turns = [await client.select(catalog, text, stable=stable) for text in MESSAGES[:3]]
    assert all(turn.mode is Mode.NARROWED for turn in turns)
    assert all(prefix_of(a, b) for a, b in itertools.pairwise(turns))
    assert turns[-1].names == stable.names
