"""The per-round hook: latest human message, additive, one embedding for many rounds."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.support.embedders import CountingEmbedder, GatedDocuments
from tests.support.tools import crm_catalog, numbered_catalog
from tests.support.turns import hung_retriever
from toolret import InMemoryRetriever
from toolret.retrieval._rounds import PerRoundRetrieve, make_per_round_retrieve
from toolret.retrieval._selection import Reason


async def hook(embedder: CountingEmbedder, k: int) -> PerRoundRetrieve:
    """A per-round hook on an indexed in-memory retriever."""
    retriever = InMemoryRetriever(embedder, k=k)
    await retriever.index(crm_catalog())
    return make_per_round_retrieve(retriever, crm_catalog(), k=k)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


def openai_turn(text: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a CRM assistant."},
        {"role": "user", "content": "Create a task to call Acme tomorrow"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": text},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "send an email to the contact"},
    ]


async def test_ranks_on_the_latest_human_message(embedder: CountingEmbedder) -> None:
    retrieve = await hook(embedder, k=1)
    names = await retrieve(openai_turn("Export the deals to a CSV file"))
    assert names == ["find_records", "export_records", "inspect_schema"]
    assert embedder.queries == ["Export the deals to a CSV file"]


async def test_anthropic_tool_results_are_not_a_new_human_message(
    embedder: CountingEmbedder,
) -> None:
    transcript = [
        {"role": "user", "content": [{"type": "text", "text": "Export the deals to a CSV file"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "email them"}],
        },
    ]
    retrieve = await hook(embedder, k=1)
    assert "export_records" in await retrieve(transcript)


async def test_result_is_additive_to_active_tools(embedder: CountingEmbedder) -> None:
    retrieve = await hook(embedder, k=1)
    names = await retrieve(
        "Export the deals to a CSV file", active=["create_view", "mcp_extra", "create_view"]
    )
    assert names == ["find_records", "create_view", "export_records", "inspect_schema", "mcp_extra"]


async def test_many_rounds_of_one_message_embed_it_once(embedder: CountingEmbedder) -> None:
    retrieve = await hook(embedder, k=2)
    transcript = openai_turn("Link contacts to their companies")
    rounds = [await retrieve(transcript) for _ in range(25)]
    assert embedder.queries == ["Link contacts to their companies"]
    assert all(names == rounds[0] for names in rounds)


async def test_a_broken_transcript_keeps_the_active_tools(embedder: CountingEmbedder) -> None:
    retrieve = await hook(embedder, k=2)
    assert await retrieve(42, active=["create_view"]) == ["create_view"]  # type: ignore[arg-type]


async def test_no_human_message_sends_the_full_roster(embedder: CountingEmbedder) -> None:
    retrieve = await hook(embedder, k=2)
    assert await retrieve([{"role": "system", "content": "hi"}]) == crm_catalog().names


async def test_the_hook_binds_as_many_tools_as_everything_else_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No ``k``: the retriever's own (12, like the client and ``TOOLRET_K``), not a k of its own."""
    monkeypatch.setenv("TOOLRET_MODE", "bm25")  # no model: a retriever on defaults, lexical
    retrieve = make_per_round_retrieve(InMemoryRetriever(), numbered_catalog(30))

    names = await retrieve("Candidate tool number 7")

    assert "tool_007" in names
    assert len(names) == 1 + 12


async def test_the_in_memory_retriever_reads_mode_and_k_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLRET_MODE", "bm25")
    monkeypatch.setenv("TOOLRET_K", "3")
    retriever = InMemoryRetriever()

    selection = await retriever.select(numbered_catalog(30), "Candidate tool number 7")

    assert (retriever.mode, retriever.k) == ("bm25", 3)
    assert "tool_007" in selection.names
    assert len(selection.names) == 1 + 3


async def test_concurrent_askers_of_one_turn_share_one_select(embedder: CountingEmbedder) -> None:
    """A framework checks every tool of a model call at once (the Agents SDK's is_enabled):
    they share one selection, and one query embedding."""
    import asyncio

    from toolret.retrieval._rounds import TurnSelections

    retriever = InMemoryRetriever(embedder, k=2)
    await retriever.index(crm_catalog())
    turns = TurnSelections(retriever)
    catalog = crm_catalog()
    text = "Delete the duplicate contact for Acme"
    selections = await asyncio.gather(*(turns.select(catalog, text) for _ in range(20)))
    assert len({id(selection) for selection in selections}) == 1
    assert embedder.queries.count(text) == 1
    assert turns.kept(catalog, text) is selections[0]


async def test_the_rounds_of_a_fallen_open_turn_select_once() -> None:
    """The query embedding hangs: the first round waits the budget and falls open; the turn's
    other rounds send the same full roster without selecting (a turn pays the budget once)."""
    retriever = await hung_retriever(crm_catalog())
    retrieve = make_per_round_retrieve(retriever, crm_catalog(), k=1)
    rounds = [await retrieve(openai_turn("Delete the Acme contact")) for _ in range(3)]
    assert rounds[0] == rounds[1] == rounds[2] == crm_catalog().names
    assert retriever.selections == 1


async def test_a_fallen_open_selection_is_kept_for_the_turn_only() -> None:
    """Kept for ``seconds`` (the rounds of one turn): the same words asked in a later turn are
    selected afresh, while a narrowed selection stays kept."""
    from toolret.retrieval._rounds import TurnSelections

    now = [0.0]
    retriever = await hung_retriever(crm_catalog())
    turns = TurnSelections(retriever, seconds=60, clock=lambda: now[0])
    catalog = crm_catalog()
    first = await turns.select(catalog, "yes")
    assert first.reason is Reason.TIMEOUT
    assert await turns.select(catalog, "yes") is first
    now[0] = 61.0
    assert turns.kept(catalog, "yes") is None
    await turns.select(catalog, "yes")
    assert retriever.selections == 2


async def test_a_turn_that_falls_open_while_indexing_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from toolret.retrieval._rounds import TurnSelections

    embedder = GatedDocuments()
    retriever = InMemoryRetriever(embedder, k=1, time_budget=0.2)
    turns = TurnSelections(retriever)
    catalog = crm_catalog()
    with caplog.at_level(logging.INFO, logger="toolret.selection"):
        for text in ("Delete the Acme contact", "Export the deals"):
            assert (await turns.select(catalog, text)).reason is Reason.NOT_INDEXED
    lines = [r.getMessage() for r in caplog.records if "still being indexed" in r.getMessage()]
    assert len(lines) == 1
    assert f"the {len(catalog)} tools" in lines[0]
    assert "embedding its" in lines[0]
    assert "await retriever.index(catalog)" in lines[0]
    embedder.release.set()
    await retriever.index(catalog)
    assert (await turns.select(catalog, "Create a task for tomorrow")).narrowed


@pytest.mark.parametrize("k", [0, -3, 2.5, True])
def test_an_invalid_k_is_refused_when_the_hook_is_built(k: Any) -> None:
    from toolret import ConfigurationError

    retriever = InMemoryRetriever(CountingEmbedder())
    with pytest.raises(ConfigurationError, match="k="):
        make_per_round_retrieve(retriever, crm_catalog(), k=k)
