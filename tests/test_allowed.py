"""``allowed``: ranking only among the tools a caller may use, from the same indexed corpus.

The bar: a selection (and find_tools) over ``allowed`` is the selection over a catalog of just
those tools, with no new corpus, no new vector and no document embedded. Both retrievers, the
client through its exact statement and through the index statement (``exact_limit=1``).
"""

from __future__ import annotations

import json

import asyncpg
import pytest

from tests.support.embedders import CountingEmbedder
from tests.support.service_catalog import MESSAGES
from toolret import Catalog, InMemoryRetriever
from toolret.demo.roster import catalog as roster
from toolret.errors import AllowedToolsError
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._find_tools import answer_find_tools, find_each
from toolret.retrieval._selection import Mode

K = 3
CORE = ["find_records", "get_record"]
TOOLS = roster.tools[:24]
ALLOWED = ["find_records", "delete_*", "create_*", "export_records", "merge_records", "nowhere"]


def whole() -> Catalog:
    return Catalog(TOOLS, core=CORE)


def cut_by_hand() -> Catalog:
    """The catalog of just the allowed tools, built as an application would build it."""
    prefixes = tuple(p[:-1] for p in ALLOWED if p.endswith("*"))
    kept = [t for t in TOOLS if t.name in ALLOWED or t.name.startswith(prefixes)]
    return Catalog(kept, core=[name for name in CORE if name in ALLOWED])


def test_only_keeps_the_allowed_tools_and_the_corpus_of_the_whole() -> None:
    catalog = whole()
    cut = catalog.only(ALLOWED)
    assert cut.names == [t.name for t in catalog if t.name in cut_by_hand()]
    assert set(cut.names) == set(cut_by_hand().names)
    assert [t.name for t in cut.core] == ["find_records"], "core tools obey allowed"
    assert cut.corpus_hash("m") == catalog.corpus_hash("m") != cut_by_hand().corpus_hash("m")
    assert catalog.only(list(reversed(ALLOWED))) is cut, "one cut per list, built once"
    assert catalog.only(None) is catalog
    narrower = cut.only(["delete_*", "get_record"])
    assert narrower.names == [n for n in cut.names if n.startswith("delete_")]
    assert "get_record" not in narrower, "a cut of a cut cannot widen it"


@pytest.mark.parametrize("allowed", [["a b"], ["git*hub"], [""], ["x" * 65], [3], "find_records"])
def test_an_entry_that_is_neither_a_name_nor_a_prefix_pattern_is_refused(allowed: object) -> None:
    with pytest.raises(AllowedToolsError) as raised:
        whole().only(allowed)  # type: ignore[arg-type]
    assert repr(raised.value.pattern)[:20] in str(raised.value)


async def test_in_memory_selection_over_allowed_is_the_selection_over_the_cut_catalog() -> None:
    embedder = CountingEmbedder()
    async with (
        InMemoryRetriever(embedder, k=K) as retriever,
        InMemoryRetriever(CountingEmbedder(), k=K) as reference,
    ):
        catalog = whole()
        await retriever.index(catalog)
        await reference.index(cut_by_hand())
        embedded = len(embedder.documents)
        for message in MESSAGES:
            selection = await retriever.select(catalog, message, allowed=ALLOWED)
            expected = await reference.select(cut_by_hand(), message)
            assert selection.mode is Mode.NARROWED
            assert set(selection.names) == set(expected.names), message
            assert "get_record" not in selection.names
            found = await retriever.find_tools(catalog, message, allowed=ALLOWED)
            assert [t.name for t in found] == [
                t.name for t in await reference.find_tools(cut_by_hand(), message)
            ]
        assert len(embedder.documents) == embedded, "nothing re-embedded"
        with pytest.raises(AllowedToolsError):
            await retriever.select(catalog, MESSAGES[0], allowed=["no spaces allowed"])


async def _counts(url: str) -> tuple[int, int]:
    connection = await asyncpg.connect(url)
    try:
        corpora = await connection.fetchval("SELECT count(*) FROM toolret_corpora")
        vectors = await connection.fetchval("SELECT count(*) FROM toolret_vectors")
    finally:
        await connection.close()
    return int(corpora), int(vectors)


@pytest.mark.parametrize("exact_limit", [500, 1], ids=["exact", "index"])
async def test_client_selection_over_allowed_makes_no_corpus_and_embeds_nothing(
    database_url: str, exact_limit: int
) -> None:
    embedder = CountingEmbedder()
    async with ToolRetrievalClient(
        database_url, embedder=embedder, k=K, exact_limit=exact_limit, time_budget=30.0
    ) as client:
        catalog = whole()
        await client.index(catalog)
        before = await _counts(database_url)
        embedded = len(embedder.documents)
        selections = {m: await client.select(catalog, m, allowed=ALLOWED) for m in MESSAGES}
        found = await find_each(client, catalog, MESSAGES[:2], allowed=ALLOWED)
        answer = json.loads(
            await answer_find_tools(
                client, catalog, {"capabilities": MESSAGES[:2]}, allowed=ALLOWED
            )
        )
        assert await _counts(database_url) == before, "no new corpus, no new vector"
        assert len(embedder.documents) == embedded, "no document embedded"

        reference = cut_by_hand()
        await client.index(reference)  # its own corpus, every vector already stored
        assert len(embedder.documents) == embedded
        for message, selection in selections.items():
            expected = await client.select(reference, message)
            assert selection.mode is Mode.NARROWED, selection
            assert selection.reason is None
            assert set(selection.names) == set(expected.names), message
            assert len(selection.names) == 1 + K
        expected_found = await find_each(client, reference, MESSAGES[:2])
        assert [[t.name for t in f] for f in found] == [[t.name for t in f] for f in expected_found]
        listed = [[t["name"] for t in r["tools"]] for r in answer["results"]]
        assert listed == [[t.name for t in f] for f in expected_found]
