"""The in-memory retriever on the bundled multilingual model."""

from __future__ import annotations

import dataclasses
import time

import pytest

from tests.support.budget import assert_within_budget
from tests.support.embedders import (
    CountingEmbedder,
    GatedDocuments,
    HangingQueries,
    ProfiledEmbedder,
    erroring,
    unavailable,
)
from tests.support.tools import CRM_TOOLS, crm_catalog
from toolret import Catalog, ConfigurationError, InMemoryRetriever, Mode, Reason, Selection
from toolret._profile import LEGACY_PROFILE, corpus_documents
from toolret.embedders._base import embed_role
from toolret.retrieval._lexical import catalog_index
from toolret.retrieval._selection import Ranking


async def ready(retriever: InMemoryRetriever, catalog: Catalog, message: str) -> Selection:
    """Index first, with a budget no loaded machine exceeds, so the selection is ranked."""
    retriever.time_budget = 60.0
    await retriever.index(catalog)
    return await retriever.select(catalog, message)


async def ranked(retriever: InMemoryRetriever, catalog: Catalog, message: str) -> Ranking:
    """``rank`` after indexing, with a budget no loaded machine exceeds."""
    retriever.time_budget = 60.0
    await retriever.index(catalog)
    return await retriever.rank(catalog, message)


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
        # Turkish: give Ahmet a to-do task due Friday
        ("Ahmet'e cuma gününe kadar yapılacak bir görev ata", "create_task"),
        ("Please write a note on this deal for the team", "add_comment"),
    ],
)
async def test_dense_ranks_the_right_tool_first_in_any_language(
    embedder: CountingEmbedder, message: str, tool: str
) -> None:
    selection = await ready(InMemoryRetriever(embedder, k=3), crm_catalog(), message)
    assert selection.mode is Mode.NARROWED
    assert max(selection.scores, key=lambda name: selection.scores[name]) == tool
    assert len(selection.tools) == 2 + 3


EXAMPLES = ("pipeline stage board", "a kanban of the deals by stage", "add a dropdown field")
MESSAGE = "show my deals on a board grouped by stage"


def _with_examples() -> Catalog:
    return Catalog(
        dataclasses.replace(t, examples=EXAMPLES) if t.name == "create_view" else t
        for t in CRM_TOOLS
    )


async def _cosines(embedder: CountingEmbedder, catalog: Catalog) -> tuple[list[float], float]:
    """The message's cosine to create_view's examples (best first) and to its description."""
    query = await embedder.embed_query(MESSAGE)
    role = embedder.example_role
    examples = await embed_role(embedder, list(EXAMPLES), role)
    (_, description), *_ = corpus_documents(Catalog([catalog["create_view"]]), embedder)
    described = (await embedder.embed_documents([description.text]))[0]
    return sorted((examples @ query).tolist(), reverse=True), float(described @ query)


async def test_a_tool_blends_its_description_and_its_two_best_examples(
    embedder: CountingEmbedder,
) -> None:
    catalog = _with_examples()
    ranking = await ranked(InMemoryRetriever(embedder, mode="dense"), catalog, MESSAGE)
    examples, description = await _cosines(embedder, catalog)
    expected = 0.5 * description + 0.5 * (examples[0] + examples[1]) / 2
    assert ranking.scores["create_view"] == pytest.approx(expected, abs=1e-5)
    plain = await ranked(InMemoryRetriever(embedder, mode="dense"), crm_catalog(), MESSAGE)
    assert ranking.scores["export_records"] == pytest.approx(plain.scores["export_records"])


async def test_a_max_profile_scores_each_tool_by_its_best_vector() -> None:
    legacy = ProfiledEmbedder("document", LEGACY_PROFILE)
    catalog = _with_examples()
    ranking = await ranked(InMemoryRetriever(legacy, mode="dense"), catalog, MESSAGE)
    examples, description = await _cosines(legacy, catalog)
    assert ranking.scores["create_view"] == pytest.approx(max(*examples, description), abs=1e-5)


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


async def test_hybrid_adds_lexical_evidence_and_binds_k_tools(embedder: CountingEmbedder) -> None:
    catalog = crm_catalog()
    message = "export csv"
    dense = await ranked(InMemoryRetriever(embedder, mode="dense", k=2), catalog, message)
    hybrid = await ready(InMemoryRetriever(embedder, mode="hybrid", k=2), catalog, message)
    assert len(hybrid.tools) == len(catalog.core) + 2
    weight = embedder.profile.lexical_weight
    # export_records is the only tool with "export" and "csv": it gains the whole weight.
    assert hybrid.scores["export_records"] == pytest.approx(dense.scores["export_records"] + weight)


async def test_a_long_message_weighs_bm25_more(embedder: CountingEmbedder) -> None:
    """Past five informative words the lexical weight grows: every tool sharing the message's
    words gains the message's weight x its share of the best BM25 score."""
    catalog = crm_catalog()
    message = "export the contact records to a csv file, then email the company and add a comment"
    dense = await ranked(InMemoryRetriever(embedder, mode="dense", k=2), catalog, message)
    hybrid = await ranked(InMemoryRetriever(embedder, mode="hybrid", k=2), catalog, message)
    index = catalog_index(catalog)
    weight = embedder.profile.lexical_weight_for(index.words(message))
    assert weight > 2 * embedder.profile.lexical_weight
    lexical = index.evidence(message)
    best = max(lexical.values())
    for name, score in dense.scores.items():
        gained = weight * lexical.get(name, 0.0) / best
        assert hybrid.scores[name] == pytest.approx(score + gained), name


@pytest.mark.parametrize(
    "message",
    [
        "احذف جهة الاتصال المكررة لشركة أكمي",  # Arabic: shares no word with the catalog
        "is it in there",  # English, but only stopwords
    ],
)
async def test_hybrid_without_lexical_signal_is_dense(
    embedder: CountingEmbedder, message: str
) -> None:
    catalog = crm_catalog()
    dense = await ready(InMemoryRetriever(embedder, mode="dense", k=3), catalog, message)
    hybrid = await ready(InMemoryRetriever(embedder, mode="hybrid", k=3), catalog, message)
    assert hybrid.names == dense.names
    assert hybrid.scores == pytest.approx(dense.scores)


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
    budget = 0.5
    retriever = InMemoryRetriever(HangingQueries(), k=3, time_budget=budget)
    await retriever.index(crm_catalog())
    started = time.perf_counter()
    selection = await retriever.select(crm_catalog(), "delete this contact")
    wall = time.perf_counter() - started
    assert (selection.mode, selection.reason) == (Mode.FULL, Reason.TIMEOUT)
    assert_within_budget(wall, budget)
    assert_within_budget(selection.elapsed_ms / 1000, budget)


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
