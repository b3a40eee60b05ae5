"""``ToolRetrievalClient`` with the bundled model on real Postgres: select, find_tools, states."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest

from tests.support.embedders import CountingEmbedder
from tests.support.serve_process import free_port
from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import BundledE5Embedder, Catalog, ClientStateError, ConfigurationError, Settings
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._selection import Mode, Reason

K = 3
BUDGET = 30.0
"""Generous: these tests are about what is selected, and a loaded CI machine is slow."""


@pytest.fixture
async def client(database_url: str) -> AsyncIterator[ToolRetrievalClient]:
    """A client on an indexed CRM catalog (nine candidates, two core tools)."""
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    ) as opened:
        await opened.index(crm_catalog())
        yield opened


def _candidates(names: list[str], catalog: Catalog) -> list[str]:
    return [name for name in names if not catalog[name].core]


@pytest.mark.parametrize(
    ("message", "tool"),
    [
        ("Delete the duplicate contact for Acme Corp", "delete_record"),
        ("أضف تعليقا على هذا السجل", "add_comment"),
        ("Yarın için müşteriyi arama görevi oluştur", "create_task"),
        ("show deals as a kanban board grouped by stage", "create_view"),
    ],
)
async def test_select_binds_core_tools_and_the_best_k(
    client: ToolRetrievalClient, message: str, tool: str
) -> None:
    catalog = crm_catalog()
    selection = await client.select(catalog, message)
    assert selection.mode is Mode.NARROWED
    assert selection.reason is None
    assert {t.name for t in catalog.core} <= set(selection.names)
    assert len(_candidates(selection.names, catalog)) == K
    assert tool in selection.names
    assert selection.names == [t.name for t in catalog.tools if t.name in selection.names]
    assert set(selection.scores) == set(_candidates(selection.names, catalog))


async def test_exactly_k_tools_are_bound_when_tools_have_examples(database_url: str) -> None:
    examples = ("do this for me", "ich brauche das", "bunu yap")
    catalog = Catalog(
        [dataclasses.replace(t, examples=examples[: i % 4]) for i, t in enumerate(CRM_TOOLS)]
    )
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    ) as client:
        await client.index(catalog)
        for message in ("do this for me", "email the customer", "bunu yap lütfen"):
            selection = await client.select(catalog, message)
            assert selection.mode is Mode.NARROWED
            assert len(_candidates(selection.names, catalog)) == K


async def test_a_workspace_subset_of_an_indexed_catalog_is_ranked_within_itself(
    client: ToolRetrievalClient,
) -> None:
    full = crm_catalog()
    workspace = Catalog([full[name] for name in full.names if name != "delete_record"])
    selection = await client.select(workspace, "Delete the duplicate contact for Acme Corp")
    assert selection.mode is Mode.NARROWED
    assert "delete_record" not in selection.names
    assert set(selection.names) <= set(workspace.names)


async def test_a_catalog_that_is_not_indexed_gets_the_full_roster(database_url: str) -> None:
    catalog = crm_catalog()
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    ) as client:
        selection = await client.select(catalog, "Delete the duplicate contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.NOT_INDEXED)
    assert selection.names == catalog.names


async def test_an_edited_tool_is_bound_until_its_new_version_is_indexed(
    client: ToolRetrievalClient,
) -> None:
    catalog = crm_catalog()
    tools = list(catalog.tools)
    position = catalog.position("export_records")
    tools[position] = dataclasses.replace(
        tools[position], description="Export records of an object to a spreadsheet file."
    )
    edited = Catalog(tools)
    selection = await client.select(edited, "Delete the duplicate contact for Acme Corp")
    assert (selection.mode, selection.reason) == (Mode.NARROWED, Reason.PARTLY_INDEXED)
    assert selection.unranked == ("export_records",)
    assert "export_records" in selection.names
    assert len(_candidates(selection.names, edited)) == K + 1


async def test_passthrough_resume_and_blank_never_touch_the_database() -> None:
    """A client on a closed port still passes small catalogs through and honours resume."""
    catalog = crm_catalog()
    embedder = CountingEmbedder()
    async with ToolRetrievalClient(
        "postgresql://postgres@127.0.0.1:1/none", embedder=embedder, k=K, time_budget=BUDGET
    ) as client:
        assert (await client.select(catalog, "anything", k=20)).mode is Mode.PASSTHROUGH
        resumed = await client.select(catalog, "Delete the contact", resume=True)
        assert (resumed.mode, resumed.reason) == (Mode.FULL, Reason.RESUME)
        blank = await client.select(catalog, "   ")
        assert (blank.mode, blank.reason) == (Mode.FULL, Reason.BLANK_MESSAGE)
    assert embedder.queries == []


async def test_find_tools_returns_unbound_tools_best_first(client: ToolRetrievalClient) -> None:
    catalog = crm_catalog()
    found = await client.find_tools(catalog, "attach a note to a record", limit=2)
    assert [tool.name for tool in found][:1] == ["add_comment"]
    assert len(found) == 2
    again = await client.find_tools(catalog, "attach a note to a record", bound=["add_comment"])
    names = [tool.name for tool in again]
    assert "add_comment" not in names
    assert len(names) == 5
    assert not {tool.name for tool in catalog.core} & set(names)
    assert await client.find_tools(catalog, "  ") == []


async def test_a_closed_client_cannot_be_reopened_and_fails_open(database_url: str) -> None:
    catalog = crm_catalog()
    client = ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    )
    async with client:
        with pytest.raises(ClientStateError):
            async with client:
                pass
    assert client.closed
    with pytest.raises(ClientStateError):
        async with client:
            pass
    with pytest.raises(ClientStateError):
        await client.index(catalog)
    selection = await client.select(catalog, "Delete the duplicate contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.INTERNAL_ERROR)
    assert await client.find_tools(catalog, "delete a contact") == []
    await client.aclose()  # idempotent


def test_a_client_needs_a_database() -> None:
    with pytest.raises(ConfigurationError, match="DATABASE_URL"):
        ToolRetrievalClient(settings=Settings(DATABASE_URL=None, TOOLRET_DATABASE_URL=None))


async def test_settings_provide_k_and_the_time_budget(database_url: str) -> None:
    settings = Settings(DATABASE_URL=database_url, k=4, time_budget_ms=900)
    async with ToolRetrievalClient(settings=settings, embedder=BundledE5Embedder()) as client:
        assert (client.k, client.time_budget) == (4, 0.9)


async def test_opening_a_client_opens_its_first_pooled_connection_in_the_background(
    database_url: str,
) -> None:
    """The first selection need not spend its budget connecting (a loaded host takes a
    second): opening starts the pool's first connection beside the embedder's warm-up, and
    ``warm_up()`` waits for both."""
    async with ToolRetrievalClient(
        database_url, embedder=BundledE5Embedder(), time_budget=BUDGET
    ) as opened:
        await opened.warm_up()
        assert opened.store.engine.pool.checkedin() == 1  # type: ignore[attr-defined]


async def test_an_unreachable_database_at_opening_is_the_first_selections_to_meet() -> None:
    """Opening the first connection in the background never raises: ``warm_up()`` returns,
    and the first selection falls open with the store's reason, as it would have anyway."""
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    async with ToolRetrievalClient(
        url, embedder=BundledE5Embedder(), k=K, time_budget=BUDGET
    ) as opened:
        await opened.warm_up()
        selection = await opened.select(crm_catalog(), "Delete the duplicate contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.STORE_ERROR)
