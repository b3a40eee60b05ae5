"""The in-memory retriever on the bundled multilingual model."""

from __future__ import annotations

import dataclasses

import pytest

from tests.embedders import CountingEmbedder, GatedDocuments, HangingQueries, erroring, unavailable
from tests.tools import CRM_TOOLS, crm_catalog
from toolret import Catalog, ConfigurationError, InMemoryRetriever, Mode, Reason, Selection


async def ready(retriever: InMemoryRetriever, catalog: Catalog, message: str) -> Selection:
    """Index first, so a loaded machine cannot turn the first selection into not_indexed."""
    await retriever.index(catalog)
    return await retriever.select(catalog, message)


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.mark.parametrize(
    ("message", "tool"),
    [
        (
            "احذف جهة الاتصال المكررة لشركة أكمي",
            "delete_record",
        ),  # Arabic: delete the duplicate contact
        ("Yarın için müşteriyi arama görevi oluştur", "create_task"),  # Turkish: make a task
        ("Please write a note on this deal for the team", "add_comment"),
    ],
)
async def test_dense_ranks_the_right_tool_first_in_any_language(
    embedder: CountingEmbedder, message: str, tool: str
) -> None:
    retriever = InMemoryRetriever(embedder, k=3)
    await retriever.index(crm_catalog())
    selection = await retriever.select(crm_catalog(), message)
    assert selection.mode is Mode.NARROWED
    assert max(selection.scores, key=lambda name: selection.scores[name]) == tool
    assert len(selection.tools) == 2 + 3


async def test_a_tool_scores_its_best_vector_description_or_example(
    embedder: CountingEmbedder,
) -> None:
    message = "pipeline stage board"
    plain = await ready(InMemoryRetriever(embedder, k=8), crm_catalog(), message)
    tools = [
        dataclasses.replace(t, examples=(message,)) if t.name == "export_records" else t
        for t in CRM_TOOLS
    ]
    with_example = await ready(InMemoryRetriever(embedder, k=1), Catalog(tools), message)
    assert list(with_example.scores) == ["export_records"]
    assert with_example.scores["export_records"] > max(plain.scores.values())


async def test_query_embeddings_are_cached_per_text(embedder: CountingEmbedder) -> None:
    retriever = InMemoryRetriever(embedder, k=3)
    catalog = crm_catalog()
    await retriever.index(catalog)
    before = len(embedder.queries)
    for _ in range(5):
        await retriever.select(catalog, "archive the old deal")
    assert embedder.queries[before:] == ["archive the old deal"]


async def test_index_embeds_each_document_once(embedder: CountingEmbedder) -> None:
    retriever = InMemoryRetriever(embedder, k=3)
    catalog = crm_catalog()
    before = len(embedder.documents)
    await retriever.index(catalog)
    await retriever.select(catalog, "delete it")
    await retriever.index(catalog)
    assert len(embedder.documents) - before == len(catalog)


async def test_bm25_mode_needs_no_embedder() -> None:
    retriever = InMemoryRetriever(unavailable(), mode="bm25", k=2)
    selection = await retriever.select(crm_catalog(), "export the records to a csv file")
    assert selection.mode is Mode.NARROWED
    assert "export_records" in selection.names


async def test_hybrid_is_the_union_of_dense_and_lexical_top_k(embedder: CountingEmbedder) -> None:
    catalog = crm_catalog()
    message = "export csv"
    dense = await ready(InMemoryRetriever(embedder, k=2), catalog, message)
    lexical = await ready(InMemoryRetriever(embedder, mode="bm25", k=2), catalog, message)
    hybrid = await ready(InMemoryRetriever(embedder, mode="hybrid", k=2), catalog, message)
    assert set(hybrid.names) == set(dense.names) | set(lexical.names)


def test_unknown_mode_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown retrieval mode"):
        InMemoryRetriever(mode="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "reason"),
    [(unavailable, Reason.EMBEDDER_UNAVAILABLE), (erroring, Reason.EMBEDDER_ERROR)],
)
async def test_embedder_failures_fall_open(make: type, reason: Reason) -> None:
    retriever = InMemoryRetriever(make(), k=3)
    await retriever.index(crm_catalog())
    selection = await retriever.select(crm_catalog(), "delete this contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, reason)
    assert len(selection.tools) == len(CRM_TOOLS)


async def test_a_hanging_embedder_falls_open_within_the_budget() -> None:
    retriever = InMemoryRetriever(HangingQueries(), k=3, time_budget=0.2)
    await retriever.index(crm_catalog())
    selection = await retriever.select(crm_catalog(), "delete this contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.TIMEOUT)


async def test_a_turn_does_not_wait_for_the_first_build() -> None:
    embedder = GatedDocuments()
    retriever = InMemoryRetriever(embedder, k=3, time_budget=2.0)
    catalog = crm_catalog()
    selection = await retriever.select(catalog, "delete this contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.NOT_INDEXED)
    embedder.release.set()
    await retriever.index(catalog)
    selection = await retriever.select(catalog, "delete this contact")
    assert selection.mode is Mode.NARROWED
    assert embedder.documents.count(catalog.tools[0].retrieval_text) == 1


async def test_find_tools_excludes_bound_and_core_and_caps_at_five(
    embedder: CountingEmbedder,
) -> None:
    retriever = InMemoryRetriever(embedder)
    catalog = crm_catalog()
    await retriever.index(catalog)
    found = await retriever.find_tools(catalog, "ربط كائنين بعلاقة", bound=["create_field"])
    names = [tool.name for tool in found]
    assert names[0] == "create_relation"
    assert len(names) == 5
    assert not {"create_field", "inspect_schema", "find_records"} & set(names)
    assert await retriever.find_tools(catalog, "   ") == []
