"""The selection policy: every rule and every fail-open reason."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.tools import crm_catalog, numbered_catalog
from toolret import (
    Catalog,
    EmbedderError,
    EmbedderUnavailableError,
    Mode,
    NotIndexedError,
    Reason,
    SchemaMissingError,
    Selection,
    StoreError,
    Tool,
)
from toolret.retrieval._selection import Ranking, narrow, select_guarded


def descending(catalog_size: int) -> Ranking:
    """tool_000 scores best, then tool_001, ..."""
    return Ranking({f"tool_{i:03d}": 1 - i / 100 for i in range(catalog_size)})


class Recorder:
    """A rank function that returns a fixed ranking and counts calls."""

    def __init__(self, ranking: Ranking) -> None:
        self.ranking = ranking
        self.calls: list[str] = []

    async def __call__(self, message: str) -> Ranking:
        self.calls.append(message)
        return self.ranking


def test_narrow_keeps_core_and_top_k_in_catalog_order() -> None:
    catalog = numbered_catalog(30, core=2)
    ranking = Ranking({f"tool_{i:03d}": float(i) for i in range(30)})
    selection = narrow(catalog, ranking, 5)
    assert selection.mode is Mode.NARROWED
    assert selection.names == ["core_0", "core_1", *[f"tool_{i:03d}" for i in range(25, 30)]]
    assert set(selection.scores) == {f"tool_{i:03d}" for i in range(25, 30)}


def test_narrow_never_counts_core_tools_towards_k() -> None:
    catalog = numbered_catalog(20, core=2)
    ranking = Ranking({"core_0": 9.0, "core_1": 9.0, **descending(20).scores})
    selection = narrow(catalog, ranking, 3)
    assert selection.names == ["core_0", "core_1", "tool_000", "tool_001", "tool_002"]


def test_ties_go_to_the_name_that_sorts_first_as_in_the_store() -> None:
    catalog = Catalog(
        [
            Tool(name, "A tool described exactly like the other one, word for word.")
            for name in ("zeta_search", "alpha_search", "mid_search")
        ]
    )
    selection = narrow(catalog, Ranking(dict.fromkeys(catalog.names, 0.5)), 2)
    assert selection.names == ["alpha_search", "mid_search"]  # in catalog order, as always


def test_unranked_tools_are_bound_anyway_and_say_so() -> None:
    catalog = numbered_catalog(20)
    ranking = Ranking({"tool_000": 0.9, "tool_001": 0.8}, unranked=("tool_019", "tool_019"))
    selection = narrow(catalog, ranking, 1)
    assert selection.names == ["core_0", "tool_000", "tool_019"]
    assert selection.unranked == ("tool_019",)
    assert (selection.mode, selection.reason) == (Mode.NARROWED, Reason.PARTLY_INDEXED)
    assert narrow(catalog, Ranking({"tool_000": 0.9, "tool_001": 0.8}), 1).reason is None


def test_an_empty_ranking_is_not_indexed() -> None:
    selection = narrow(numbered_catalog(20), Ranking({}), 5)
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.NOT_INDEXED)


def test_chosen_candidates_override_top_k() -> None:
    catalog = numbered_catalog(20)
    ranking = Ranking(descending(20).scores, chosen=("tool_010", "tool_000"))
    assert narrow(catalog, ranking, 1).names == ["core_0", "tool_000", "tool_010"]


async def test_guarded_selection_narrows() -> None:
    catalog = numbered_catalog(20)
    rank = Recorder(descending(20))
    selection = await select_guarded(catalog, "hello", rank, k=3)
    assert selection.names == ["core_0", "tool_000", "tool_001", "tool_002"]
    assert selection.narrowed
    assert rank.calls == ["hello"]


async def test_passthrough_never_ranks() -> None:
    catalog = numbered_catalog(12, core=3)
    rank = Recorder(descending(12))
    selection = await select_guarded(catalog, "hello", rank, k=12)
    assert (selection.mode, selection.reason) == (Mode.PASSTHROUGH, None)
    assert selection.names == catalog.names
    assert rank.calls == []


@pytest.mark.parametrize("message", ["", "   ", "\n\t"])
async def test_blank_message_gets_the_full_roster(message: str) -> None:
    catalog = numbered_catalog(20)
    rank = Recorder(descending(20))
    selection = await select_guarded(catalog, message, rank, k=3)
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.BLANK_MESSAGE)
    assert selection.names == catalog.names
    assert rank.calls == []


async def test_resume_never_retrieves() -> None:
    catalog = numbered_catalog(20)
    rank = Recorder(descending(20))
    selection = await select_guarded(catalog, "approve it", rank, k=3, resume=True)
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.RESUME)
    assert selection.names == catalog.names
    assert rank.calls == []


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (EmbedderUnavailableError("no key"), Reason.EMBEDDER_UNAVAILABLE),
        (EmbedderError("boom"), Reason.EMBEDDER_ERROR),
        (NotIndexedError("later", model_id="m", corpus_hash="h"), Reason.NOT_INDEXED),
        (SchemaMissingError("migrate", database="db"), Reason.SCHEMA_MISSING),
        (StoreError("db down"), Reason.STORE_ERROR),
        (TimeoutError(), Reason.TIMEOUT),
        (RuntimeError("a bug"), Reason.INTERNAL_ERROR),
    ],
)
async def test_every_failure_gets_the_full_roster_with_its_reason(
    error: Exception, reason: Reason
) -> None:
    catalog = numbered_catalog(20)

    async def failing(message: str) -> Ranking:
        raise error

    selection = await select_guarded(catalog, "hello", failing, k=3)
    assert (selection.mode, selection.reason) == (Mode.FULL, reason)
    assert selection.names == catalog.names


async def test_a_hanging_ranking_is_cut_off_by_the_time_budget() -> None:
    catalog = numbered_catalog(20)
    never = asyncio.Event()

    async def hanging(message: str) -> Ranking:
        await never.wait()
        raise AssertionError("unreachable")

    selection = await select_guarded(catalog, "hello", hanging, k=3, time_budget=0.05)
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.TIMEOUT)
    assert selection.elapsed_ms >= 50


async def test_cancellation_from_outside_propagates() -> None:
    started = asyncio.Event()

    async def hanging(message: str) -> Ranking:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    task = asyncio.ensure_future(select_guarded(numbered_catalog(20), "hi", hanging, k=3))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_selection_names_follow_catalog_order() -> None:
    catalog = crm_catalog()
    selection = Selection(catalog.subset(["send_email", "inspect_schema"]), Mode.NARROWED)
    assert selection.names == ["send_email", "inspect_schema"]
