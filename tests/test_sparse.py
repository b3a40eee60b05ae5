"""The bundled model's sparse signal: vectors, when a message gets it, what it adds, and the
database client selecting exactly what the in-memory retriever selects with it."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
import pytest
from rich.console import Console

from tests.support.embedders import (
    CountingEmbedder,
    HashSparseEmbedder,
    ProfiledEmbedder,
    SparseCountingEmbedder,
    StalledSparseEmbedder,
)
from tests.support.service_catalog import registration
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, Catalog, InMemoryRetriever, Mode, Tool
from toolret._profile import LEGACY_PROFILE, SPARSE_PROFILE, corpus_documents, profile_of
from toolret._settings import Settings, make_embedder
from toolret.cli._search import selection_table
from toolret.cli._status import sparse_progress
from toolret.embedders._sparse import SparseMatrix, SparseVector, sparse_head_of
from toolret.indexing._run import index_catalog
from toolret.retrieval._client import ToolRetrievalClient
from toolret.retrieval._find_tools import answer_find_tools
from toolret.retrieval._selection import Selection
from toolret.retrieval._short import length_share, message_words
from toolret.retrieval._signals import SIGNALS
from toolret.retrieval._sparse import (
    SPARSE_SHARE,
    catalog_languages,
    described_languages,
    described_words,
    language_of,
    sparse_weight,
)
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration
from toolret.store._read import SparseQuery
from toolret.store._sparse_read import _indexed
from toolret.store._sql import CatalogQuery
from toolret.store._vector_store import VectorStore

BUDGET = 60.0
"""Generous: these tests are about what is selected, not the speed of a loaded machine."""
OTHER_LANGUAGES = (
    "احذف جهة الاتصال المكررة",
    "Yarın için müşteriyi arama görevi oluştur",
    "یک فیلد وضعیت جدید به شرکت‌ها اضافه کن",
    "把联系人导出为表格文件",
)
ENGLISH = ("export the contacts to a csv file", "Delete the duplicate contact for Acme Corp")
LONG = (
    "احذف جهة الاتصال المكررة لشركة أكمي واحتفظ بالسجل الأحدث منهما ثم أرسل لي قائمة بكل "
    "السجلات المكررة الأخرى"
)
"""A message long enough for the sparse signal's whole weight (``sparse_full_words``)."""
CAPABILITY = "أريد حذف هذا العميل نهائيا"
"""A find_tools capability ("delete this customer for good"): five words."""
GATE = dataclasses.replace(SPARSE_PROFILE, sparse_short_words=0.0, sparse_full_words=0.0)
"""The sparse profile at its whole weight whatever the message's length: who gets the signal."""


def test_a_sparse_vector_is_ordered_normalised_and_cut_to_its_strongest() -> None:
    vector = SparseVector.of([9, 2, 5, 7], [0.0, 3.0, 4.0, 1.0], 16)
    assert vector.indices.tolist() == [2, 5, 7]  # ordered, the zero dropped
    assert float(np.linalg.norm(vector.values)) == pytest.approx(1.0)
    cut = vector.strongest(2)
    assert cut.indices.tolist() == [2, 5]
    assert cut.values.tolist() == pytest.approx([0.6, 0.8])
    assert vector.strongest(3) is vector


def test_a_sparse_matrix_scores_each_vector_as_a_dense_dot_product() -> None:
    rng = np.random.default_rng(3)
    vectors = [
        SparseVector.of(rng.choice(50, size=n, replace=False), rng.random(n), 50) for n in (5, 0, 9)
    ]
    query = SparseVector.of(rng.choice(50, size=12, replace=False), rng.random(12), 50)
    dense = np.stack([v.dense() for v in vectors]) @ query.dense()
    assert SparseMatrix.stack(vectors).dot(query) == pytest.approx(dense)


async def test_the_bundled_model_gives_unit_sparse_vectors_within_its_head() -> None:
    embedder = BundledE5Embedder()
    head = sparse_head_of(embedder)
    assert head is not None
    assert head.top_k <= 1000  # what pgvector's HNSW indexes
    english, persian = await embedder.embed_sparse(
        ["set an alarm for seven tomorrow", "فردا ساعت هفت زنگ بزن"], "query"
    )
    assert 0 < english.nnz <= head.top_k
    assert english.dimension == head.dimension == 16384
    assert float(np.linalg.norm(english.values)) == pytest.approx(1.0, abs=1e-5)
    same = SparseMatrix.stack([english]).dot(english)[0]
    assert same == pytest.approx(1.0, abs=1e-5)
    assert SparseMatrix.stack([persian]).dot(english)[0] > 0  # latents cross the scripts


def test_the_sparse_signal_is_opt_in_and_only_for_a_model_with_a_sparse_head() -> None:
    assert profile_of(BundledE5Embedder()).sparse_weight == 0
    assert profile_of(BundledE5Embedder(sparse=True)) == SPARSE_PROFILE
    assert SPARSE_PROFILE.sparse_weight > 0
    assert profile_of(make_embedder(Settings(sparse=True))) == SPARSE_PROFILE  # TOOLRET_SPARSE=1
    assert profile_of(make_embedder(Settings())).sparse_weight == 0
    # the sparse profile, declared by an embedder without the head: no weight
    assert profile_of(ProfiledEmbedder("query", SPARSE_PROFILE)).sparse_weight == 0
    assert LEGACY_PROFILE.sparse_weight == 0  # Gemini's


def test_a_message_gets_the_sparse_signal_only_in_a_language_the_catalog_is_not_in() -> None:
    catalog = crm_catalog()
    assert catalog_languages(catalog) == {"en"}
    for message in ENGLISH:
        assert sparse_weight(catalog, message, GATE) == 0
    for message in OTHER_LANGUAGES:
        assert sparse_weight(catalog, message, GATE) == GATE.sparse_weight
    examples = {"delete_record": ("احذف هذا السجل", "احذف جهة الاتصال", "امسح الشركة")}
    arabic = Catalog(
        [dataclasses.replace(t, examples=examples.get(t.name, ())) for t in crm_catalog().tools]
    )
    assert catalog_languages(arabic) == {"en", "ar"}  # 3 of its 14 texts: over a tenth
    assert sparse_weight(arabic, OTHER_LANGUAGES[0], GATE) == 0
    always = dataclasses.replace(GATE, sparse_when="always")
    assert sparse_weight(catalog, ENGLISH[0], always) == always.sparse_weight


async def test_the_selection_says_which_signals_ranked_each_tool() -> None:
    catalog = crm_catalog()
    async with InMemoryRetriever(SparseCountingEmbedder(), k=3, time_budget=BUDGET) as memory:
        await memory.index(catalog)
        other = await memory.select(catalog, LONG)
        english = await memory.select(catalog, ENGLISH[0])
    for selection in (other, english):
        assert selection.mode is Mode.NARROWED
        assert set(selection.signals) == set(selection.scores)
        for name, parts in selection.signals.items():
            assert set(parts) <= set(SIGNALS)
            assert sum(parts.values()) == pytest.approx(selection.scores[name])
    assert all("sparse" in parts for parts in other.signals.values())
    assert all("sparse" not in parts for parts in english.signals.values())
    assert any("lexical" in parts for parts in english.signals.values())


@pytest.fixture(scope="module")
def sparse_embedder() -> SparseCountingEmbedder:
    return SparseCountingEmbedder()


@pytest.mark.parametrize("exact_limit", [10_000, 0], ids=["exact", "indexes"])
@pytest.mark.parametrize("mode", ["dense", "hybrid"])
async def test_the_client_selects_what_the_in_memory_retriever_selects_with_the_sparse_signal(
    database_url: str, sparse_embedder: SparseCountingEmbedder, exact_limit: int, mode: str
) -> None:
    """Through the exact statement, and through both indexes (``exact_limit=0``: how a catalog
    past ``EXACT_LIMIT`` documents is ranked), messages with and without the sparse signal."""
    catalog = crm_catalog()
    memory = InMemoryRetriever(sparse_embedder, mode=mode, k=3, time_budget=BUDGET)  # type: ignore[arg-type]
    await memory.index(catalog)
    async with ToolRetrievalClient(
        database_url,
        embedder=sparse_embedder,
        mode=mode,  # type: ignore[arg-type]
        k=3,
        time_budget=BUDGET,
        exact_limit=exact_limit,
        reuse=0,
    ) as client:
        report = await client.index(catalog)
        assert report.sparse_encoded == report.documents
        for message in (*OTHER_LANGUAGES, LONG, *ENGLISH):
            want = await memory.select(catalog, message)
            got = await client.select(catalog, message)
            assert got.mode is Mode.NARROWED
            assert got.names == want.names, message
            assert got.scores == pytest.approx(want.scores, abs=1e-5)
            for name, parts in want.signals.items():
                assert got.signals[name] == pytest.approx(parts, abs=1e-5)


async def test_a_corpus_without_sparse_vectors_is_ranked_without_them_until_indexed(
    database_url: str, sparse_embedder: SparseCountingEmbedder
) -> None:
    """A corpus published by a toolret without the sparse head (here: the model without it) is
    ranked by the dense score alone and says so; its next indexing run adds the vectors, and
    from then on the message has the sparse signal."""
    catalog = crm_catalog()
    message = LONG
    async with ToolRetrievalClient(
        database_url, embedder=CountingEmbedder(), k=3, time_budget=BUDGET
    ) as before:
        assert (await before.index(catalog)).sparse_encoded == 0
    store = VectorStore.from_url(database_url)
    try:
        query = CatalogQuery.build(catalog, sparse_embedder.model_id, "query", SPARSE_PROFILE)
        head = sparse_embedder.sparse_head.key(SPARSE_PROFILE.sparse_latents)
        vector = await sparse_embedder.embed_query(message)
        latent = (await sparse_embedder.embed_sparse([message], "query"))[0].strongest(512)
        sparse = SparseQuery(latent, 1.0, head)
        waiting = await store.rank(query, vector, limit=5, sparse=sparse)
        assert not waiting.sparse_ready
        assert waiting.sparse == {}
        documents = len({doc.key for _, doc in corpus_documents(catalog, sparse_embedder)})
        progress = await sparse_progress(store, catalog, sparse_embedder)  # toolret status
        assert progress == f"0 of {documents}"
        async with ToolRetrievalClient(  # the test indexes; nothing in the background
            database_url,
            embedder=sparse_embedder,
            k=3,
            time_budget=BUDGET,
            reuse=0,
            index_unserved=False,
        ) as client:
            dense_only = await client.select(catalog, message)
            assert all("sparse" not in parts for parts in dense_only.signals.values())
            report = await client.index(catalog)
            assert not report.published
            assert report.sparse_encoded == report.documents
            ready = await store.rank(query, vector, limit=5, sparse=sparse)
            assert ready.sparse_ready
            assert await sparse_progress(store, catalog, sparse_embedder) == "ready"
            assert set(ready.sparse) == set(ready.scores)
            with_sparse = await client.select(catalog, message)
            assert all("sparse" in parts for parts in with_sparse.signals.values())
    finally:
        await store.aclose()


def _fleet(size: int) -> Catalog:
    return Catalog(
        Tool(f"tool_{i}", f"Synthetic tool number {i}, a fleet member for the sparse test.")
        for i in range(size)
    )


async def test_the_indexes_stay_exact_when_the_first_round_cannot_prove_its_answer(
    database_url: str,
) -> None:
    """900 tools whose sparse vectors share a small pool of latents: the sparse scan's bound
    is loose, so some rankings are not proved by the first round through the indexes and read
    deeper. Every selection is still the in-memory retriever's."""
    fleet = _fleet(900)
    embedder = HashSparseEmbedder()
    memory = InMemoryRetriever(embedder, mode="dense", k=12, time_budget=BUDGET)
    await memory.index(fleet)
    unproved = 0
    async with ToolRetrievalClient(
        database_url, embedder=embedder, mode="dense", k=12, time_budget=BUDGET, reuse=0
    ) as client:
        await client.index(fleet)
        store = client.store
        query = CatalogQuery.build(fleet, embedder.model_id, "query", embedder.profile)
        head = embedder.sparse_head.key(embedder.profile.sparse_latents)
        for n in range(12):
            message = f"request number {n}"
            vector = await embedder.embed_query(message)
            latent = (await embedder.embed_sparse([message], "query"))[0]
            sparse = SparseQuery(latent.strongest(512), embedder.profile.sparse_weight, head)
            async with store._connection("test") as connection:
                found = await _indexed(store, connection, query, vector, sparse, 14, (), ())
            assert found is not None
            unproved += not found[1]
            want = await memory.select(fleet, message)
            got = await client.select(fleet, message)
            assert got.names == want.names, message
            assert got.scores == pytest.approx(want.scores, abs=1e-5)
    assert unproved, "every first round proved its answer: the deeper rounds are not tested"


async def test_gc_removes_the_sparse_vectors_no_corpus_references(database_url: str) -> None:
    embedder = HashSparseEmbedder()
    old, kept = (
        _fleet(3),
        Catalog(
            Tool(f"kept_{i}", f"A tool kept in use by the application, number {i} of three.")
            for i in range(3)
        ),
    )
    async with VectorStore.from_url(database_url) as store:
        for catalog in (old, kept):
            assert (await index_catalog(store, embedder, catalog)).sparse_encoded == 3
        later = datetime.now(UTC) + timedelta(days=8)
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute(
                "UPDATE toolret_corpora SET last_seen_at = $1 WHERE corpus_hash = $2",
                later,
                kept.corpus_hash(embedder.model_id, "query", embedder.profile.template),
            )
            await store.gc(timedelta(days=7), now=later)
            left = await connection.fetch(
                "SELECT doc_key FROM toolret_sparse_vectors WHERE model_id = $1",
                embedder.model_id,
            )
        finally:
            await connection.close()
    keys = {doc.key for _, doc in kept.documents("query", embedder.profile.template)}
    assert {row[0] for row in left} == keys


def test_toolret_search_shows_what_each_signal_added() -> None:
    selection = Selection(
        crm_catalog().subset(["delete_record", "inspect_schema"]),
        Mode.NARROWED,
        scores={"delete_record": 1.05},
        signals={"delete_record": {"dense": 0.8, "sparse": 0.2, "lexical": 0.05}},
    )
    console = Console(width=200, record=True)
    console.print(selection_table(crm_catalog(), selection))
    text = console.export_text()
    header = next(line for line in text.splitlines() if "tool" in line and "why" in line)
    assert [w for w in header.split() if w.isalpha()][-3:] == ["dense", "sparse", "lexical"]
    row = next(line for line in text.splitlines() if "delete_record" in line)
    numbers = [w for w in row.split() if w[0].isdigit()]
    assert numbers == ["1.050", "0.800", "0.200", "0.050"]


CHINESE_DESCRIPTIONS = {
    "send_email": "通过电子邮件把消息、报价或合同发送给某个联系人或公司，"
    "可以附带文件，发送后记录在时间线上。",
    "export_records": "把某个对象（联系人、公司或商机）的全部记录导出为 CSV 表格文件，"
    "供用户下载或导入其他系统。",
}


def test_the_described_gate_sends_any_message_whose_tools_are_described_in_another_language() -> (
    None
):
    """A message gets the signal when some of the catalog's tools are described in another
    language than its own: an English message on a catalog with two of its eleven tools
    described in Chinese, and a Chinese one there too (a tenth-share rule sent neither)."""
    described = dataclasses.replace(GATE, sparse_when="described_elsewhere")
    share = dataclasses.replace(GATE, sparse_when="other_language")  # before
    english_only = crm_catalog()
    mixed = Catalog(
        [
            dataclasses.replace(t, description=CHINESE_DESCRIPTIONS.get(t.name, t.description))
            for t in crm_catalog().tools
        ]
    )
    assert described_languages(english_only) == {"en"}
    assert described_languages(mixed) == {"en", "zh"}
    for message in ENGLISH:
        assert sparse_weight(english_only, message, described) == 0
        assert sparse_weight(mixed, message, described) == described.sparse_weight
        assert sparse_weight(mixed, message, share) == 0  # zh is over a tenth of its texts
    assert sparse_weight(mixed, OTHER_LANGUAGES[3], described) == described.sparse_weight
    assert sparse_weight(mixed, OTHER_LANGUAGES[3], share) == 0
    for message in OTHER_LANGUAGES:
        assert sparse_weight(english_only, message, described) == described.sparse_weight
    # a short English message the identifier reads as another language still counts as English
    assert language_of("set alarm for seven") != "en"
    assert sparse_weight(english_only, "set alarm for seven", described) == 0


def _terse() -> Catalog:
    return Catalog(
        [
            Tool(f"tool_{i}", words)
            for i, words in enumerate(
                (
                    "add to playlist",
                    "weather find",
                    "alarm set alarm",
                    "book restaurant",
                    "play music",
                    "rate book",
                )
            )
        ],
        min_description_length=1,
    )


def test_a_catalog_of_terse_descriptions_gets_no_sparse_signal() -> None:
    """Two- or three-word descriptions (``add to playlist``): latent terms match by accident."""
    terse = _terse()
    gated = dataclasses.replace(GATE, sparse_min_words=5.0)
    anywhere = dataclasses.replace(GATE, sparse_min_words=0.0)
    assert described_words(terse) < 5 <= described_words(crm_catalog())
    assert sparse_weight(terse, OTHER_LANGUAGES[0], gated) == 0
    assert sparse_weight(terse, OTHER_LANGUAGES[0], anywhere) > 0
    assert sparse_weight(crm_catalog(), OTHER_LANGUAGES[0], gated) == gated.sparse_weight


async def test_neither_retriever_encodes_sparse_vectors_for_a_catalog_too_terse_for_them(
    database_url: str,
) -> None:
    """No message can get the signal there, so no document pays the second pass either."""
    embedder = SparseCountingEmbedder()
    async with InMemoryRetriever(embedder, k=3, time_budget=BUDGET) as memory:
        await memory.index(_terse())
        await memory.select(_terse(), LONG)
    assert embedder.sparse_texts == []
    async with ToolRetrievalClient(
        database_url, embedder=embedder, k=3, time_budget=BUDGET
    ) as client:
        report = await client.index(_terse())
        assert report.published
        assert report.sparse_encoded == 0
        assert (await client.select(_terse(), LONG)).mode is Mode.NARROWED
    assert embedder.sparse_texts == []
    assert SPARSE_PROFILE.sparse_min_words == 5


async def test_a_sparse_pass_past_its_share_of_the_budget_ranks_by_dense_not_falls_open(
    database_url: str,
) -> None:
    """Both retrievers wait ``SPARSE_SHARE`` of the budget for the message's sparse vector, then
    rank it as a message without the signal: the selection narrows, alike in both."""
    embedder = StalledSparseEmbedder()
    catalog = crm_catalog()
    message = LONG
    async with (
        InMemoryRetriever(embedder, k=3, time_budget=8.0) as memory,
        ToolRetrievalClient(database_url, embedder=embedder, k=3, time_budget=8.0) as client,
    ):
        await memory.index(catalog)
        await client.index(catalog)
        embedder.stalled = True
        selections = [await memory.select(catalog, message), await client.select(catalog, message)]
    for selection in selections:
        assert selection.mode is Mode.NARROWED
        assert all("sparse" not in parts for parts in selection.signals.values())
    assert selections[0].names == selections[1].names
    assert SPARSE_SHARE * 8.0 < 8.0 / 2  # the rest of the budget is the dense ranking's


def test_a_short_phrase_gets_little_or_no_sparse_weight_and_a_full_message_all_of_it() -> None:
    """In a capability phrase of a few words one shared latent term outweighs a dense ranking
    that was right: the weight follows the message's length, in any script."""
    catalog = crm_catalog()
    short, full = SPARSE_PROFILE.sparse_short_words, SPARSE_PROFILE.sparse_full_words
    assert 0 < short < full
    four = OTHER_LANGUAGES[0]  # "delete the duplicate contact": the Agents SDK guide's message
    assert message_words(four) <= short
    assert sparse_weight(catalog, four, GATE) == GATE.sparse_weight  # the gate sends it
    assert sparse_weight(catalog, four, SPARSE_PROFILE) == 0
    part = (message_words(CAPABILITY) - short) / (full - short)
    assert 0 < part < 1
    assert sparse_weight(catalog, CAPABILITY, SPARSE_PROFILE) == pytest.approx(
        part * SPARSE_PROFILE.sparse_weight
    )
    assert message_words(LONG) >= full
    assert sparse_weight(catalog, LONG, SPARSE_PROFILE) == SPARSE_PROFILE.sparse_weight
    assert message_words("把联系人导出为表格文件") == 5.5  # two characters a word
    assert message_words("我设备的IP地址是193.114.112.1。") == 4.5  # 3.5, and the Latin words one
    assert length_share(CAPABILITY, 0.0, 0.0) == 1  # no ramp: the whole weight


@pytest.mark.slow
async def test_a_short_capability_keeps_the_tool_dense_ranks_first_in_both_retrievers(
    database_url: str,
) -> None:
    """The TypeScript client's capability on the service's CRM registration: with the sparse
    signal at its whole weight ``delete_object`` came before ``delete_record``."""
    catalog = build_catalog(CatalogRegistration.model_validate(registration()))
    embedder = BundledE5Embedder(sparse=True)
    async with (
        InMemoryRetriever(embedder, time_budget=BUDGET) as memory,
        ToolRetrievalClient(database_url, embedder=embedder, time_budget=BUDGET) as client,
    ):
        await memory.index(catalog)
        await client.index(catalog)
        answers = [
            await answer_find_tools(r, catalog, {"capability": CAPABILITY}, bound=["create_record"])
            for r in (memory, client)
        ]
    for answer in answers:
        assert json.loads(answer)["results"][0]["tools"][0]["name"] == "delete_record"
    assert answers[0] == answers[1]
