"""The Gemini embedder: the real google-genai client against a local fake of its HTTP API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from tests.support.fake_gemini import FakeGemini, bag_of_words
from toolret._catalog import Catalog
from toolret._settings import Settings, make_embedder
from toolret._tool import Tool
from toolret.embedders import BundledE5Embedder, GeminiEmbedder
from toolret.errors import EmbedderError, EmbedderUnavailableError
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Mode

KEY = "test-key"
SAFETY_NET = 30.0
"""Seconds after which a test that should have timed out fails instead of hanging."""
Factory = Callable[..., GeminiEmbedder]


@pytest.fixture
def server() -> Iterator[FakeGemini]:
    with FakeGemini() as fake:
        yield fake


@pytest.fixture
async def gemini(server: FakeGemini) -> AsyncIterator[Factory]:
    """Build embedders pointed at the fake server, with fast backoff; closes them afterwards."""
    made: list[GeminiEmbedder] = []

    def build(**options: Any) -> GeminiEmbedder:
        defaults: dict[str, Any] = {"base_url": server.url, "backoff": 0.01, "timeout": 5.0}
        embedder = GeminiEmbedder(KEY, **(defaults | options))
        made.append(embedder)
        return embedder

    yield build
    for embedder in made:
        await embedder.aclose()


def expected(texts: list[str], dimension: int = 768) -> NDArray[np.float64]:
    """What the embedder should return: the server's vectors, scaled to unit length."""
    raw = np.array([bag_of_words(text, dimension) for text in texts], dtype=np.float64)
    unit: NDArray[np.float64] = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    return unit


# --- the wire format ------------------------------------------------------------------------


async def test_documents_go_in_batches_of_100_as_retrieval_document(
    server: FakeGemini, gemini: Factory
) -> None:
    texts = [f"document number {i} about records" for i in range(250)]
    vectors = await gemini().embed_documents(texts)

    assert [len(r.texts) for r in server.requests] == [100, 100, 50]
    assert all(r.endpoint == "batchEmbedContents" for r in server.requests)
    assert all(
        r.path.endswith("/models/gemini-embedding-001:batchEmbedContents") for r in server.requests
    )
    assert {t for r in server.requests for t in r.task_types} == {"RETRIEVAL_DOCUMENT"}
    assert {d for r in server.requests for d in r.dimensions} == {768}
    assert [t for r in server.requests for t in r.texts] == texts
    assert all(r.headers.get("x-goog-api-key") == KEY for r in server.requests)
    assert vectors.shape == (250, 768)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)  # order kept across batches


async def test_queries_go_as_retrieval_query(server: FakeGemini, gemini: Factory) -> None:
    embedder = gemini()
    vector = await embedder.embed_query("find the invoice")
    many = await embedder.embed_queries(["one query", "another query"])

    assert [r.texts for r in server.requests] == [
        ["find the invoice"],
        ["one query", "another query"],
    ]
    assert [r.task_types for r in server.requests] == [{"RETRIEVAL_QUERY"}, {"RETRIEVAL_QUERY"}]
    assert vector.shape == (768,)
    assert many.shape == (2, 768)
    np.testing.assert_allclose(vector, expected(["find the invoice"])[0], atol=1e-6)


async def test_dimension_and_batch_size_are_sent(server: FakeGemini, gemini: Factory) -> None:
    embedder = gemini(model="gemini-embedding-exp", dimension=256, batch_size=7)
    vectors = await embedder.embed_documents([f"text {i}" for i in range(15)])

    assert embedder.model_id == "gemini-embedding-exp@256"
    assert [len(r.texts) for r in server.requests] == [7, 7, 1]
    assert {d for r in server.requests for d in r.dimensions} == {256}
    assert all("/models/gemini-embedding-exp:" in r.path for r in server.requests)
    assert vectors.shape == (15, 256)


async def test_vectors_come_back_l2_normalized(gemini: Factory) -> None:
    text = "create a record create a record in the crm"
    raw_norm = float(np.linalg.norm(bag_of_words(text, 768)))
    vector = await gemini().embed_query(text)

    assert raw_norm > 2  # the server's vectors are not unit length
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-6)


async def test_no_texts_make_no_request(server: FakeGemini, gemini: Factory) -> None:
    vectors = await gemini().embed_documents([])

    assert vectors.shape == (0, 768)
    assert server.requests == []


# --- retries and failures -------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_transient_errors_are_retried(
    server: FakeGemini, gemini: Factory, status: int
) -> None:
    server.fail_next(2, status)
    vector = await gemini(max_retries=3).embed_query("list open deals")

    assert len(server.requests) == 3
    assert {r.texts[0] for r in server.requests} == {"list open deals"}
    np.testing.assert_allclose(vector, expected(["list open deals"])[0], atol=1e-6)


async def test_persistent_500_raises_after_the_retries(server: FakeGemini, gemini: Factory) -> None:
    server.fail_next(10, 500)
    embedder = gemini(max_retries=2)

    with pytest.raises(EmbedderError, match="HTTP 500") as caught:
        await embedder.embed_documents(["a document"])

    assert len(server.requests) == 3
    assert caught.value.model_id == "gemini-embedding-001@768"
    assert "try again later" in str(caught.value)


@pytest.mark.parametrize(
    ("status", "hint"),
    [(400, "AI_EMBEDDINGS_MODEL"), (403, "GEMINI_API_KEY"), (404, "AI_EMBEDDINGS_MODEL")],
)
async def test_other_4xx_fail_at_once(
    server: FakeGemini, gemini: Factory, status: int, hint: str
) -> None:
    server.fail_next(1, status, "scripted rejection")

    with pytest.raises(EmbedderError, match=f"HTTP {status}") as caught:
        await gemini(max_retries=3).embed_query("anything")

    assert len(server.requests) == 1
    assert hint in str(caught.value)
    assert "scripted rejection" in str(caught.value)
    assert caught.value.model_id == "gemini-embedding-001@768"


async def test_a_stall_beyond_the_timeout_raises(server: FakeGemini, gemini: Factory) -> None:
    server.stall_next(2)

    with pytest.raises(EmbedderError, match=r"no answer within 0\.2s") as caught:
        async with asyncio.timeout(SAFETY_NET):
            await gemini(timeout=0.2, max_retries=1).embed_query("slow")

    assert len(server.requests) == 2  # a timed-out attempt is retried like a 503
    assert caught.value.model_id == "gemini-embedding-001@768"


async def test_a_stalled_attempt_is_retried(server: FakeGemini, gemini: Factory) -> None:
    """The retry must be answered within the timeout: a second, not a fifth of one, so that a
    loaded machine's slow answer is not taken for a stall."""
    server.stall_next(1)
    async with asyncio.timeout(SAFETY_NET):
        vector = await gemini(timeout=1.0, max_retries=1).embed_query("slow then fine")

    assert len(server.requests) == 2
    assert vector.shape == (768,)


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"this is not json", "malformed response"),
        ({"embeddings": "not a list"}, "malformed response"),
        ({"embeddings": []}, "0 vectors for 1 texts"),
        ({"embeddings": [{}]}, r"\[0\] dimensions"),
        ({"embeddings": [{"values": [1.0, 2.0]}]}, r"\[2\] dimensions, not 768"),
        ({"embeddings": [{"values": [float("nan")] * 768}]}, "non-finite"),
    ],
)
async def test_malformed_responses_raise(
    server: FakeGemini, gemini: Factory, body: Any, match: str
) -> None:
    server.reply_next(body)

    with pytest.raises(EmbedderError, match=match) as caught:
        await gemini().embed_query("anything")

    assert caught.value.model_id == "gemini-embedding-001@768"


async def test_an_unreachable_server_raises(gemini: Factory) -> None:
    with FakeGemini() as gone:
        url = gone.url
    with pytest.raises(EmbedderError, match="TOOLRET_GEMINI_BASE_URL"):
        await gemini(base_url=url, max_retries=0).embed_query("anything")


@pytest.mark.parametrize("key", ["", "   "])
def test_a_missing_key_is_unavailable(key: str) -> None:
    with pytest.raises(EmbedderUnavailableError, match="GEMINI_API_KEY") as caught:
        GeminiEmbedder(key)

    assert caught.value.model_id == "gemini-embedding-001@768"


@pytest.mark.parametrize(
    "options", [{"batch_size": 101}, {"batch_size": 0}, {"timeout": 0}, {"max_retries": -1}]
)
def test_impossible_settings_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        GeminiEmbedder(KEY, **options)


async def test_aclose_closes_the_connections(server: FakeGemini, gemini: Factory) -> None:
    embedder = gemini()
    await embedder.embed_query("open a connection")
    assert server.open_connections == 1  # kept alive by the client's pool

    await embedder.aclose()

    assert server.wait_for_connections(0)
    with pytest.raises(EmbedderError, match="after aclose"):
        await embedder.embed_query("again")
    await embedder.aclose()  # idempotent


# --- settings and the retrieval policy ------------------------------------------------------


async def test_settings_pick_gemini_when_a_key_is_set(
    server: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("TOOLRET_GEMINI_BASE_URL", server.url)
    monkeypatch.setenv("AI_EMBEDDINGS_MODEL", "gemini-embedding-001")
    monkeypatch.setenv("TOOLRET_EMBEDDING_DIMENSION", "512")
    embedder = make_embedder(Settings())
    try:
        assert isinstance(embedder, GeminiEmbedder)
        assert embedder.model_id == "gemini-embedding-001@512"
        await embedder.embed_query("through the settings")
    finally:
        await embedder.aclose()

    assert server.requests[0].dimensions == {512}
    assert server.requests[0].headers.get("x-goog-api-key") == KEY


async def test_settings_object_points_gemini_at_a_base_url(server: FakeGemini) -> None:
    embedder = make_embedder(Settings(GEMINI_API_KEY=KEY, gemini_base_url=server.url))
    try:
        assert isinstance(embedder, GeminiEmbedder)
        await embedder.embed_documents(["configured in code"])
    finally:
        await embedder.aclose()

    assert server.requests[0].texts == ["configured in code"]


@pytest.mark.parametrize("key", [None, ""])
def test_settings_pick_the_bundled_model_without_a_key(
    monkeypatch: pytest.MonkeyPatch, key: str | None
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("TOOLRET_GEMINI_API_KEY", raising=False)
    if key is not None:
        monkeypatch.setenv("GEMINI_API_KEY", key)

    assert isinstance(make_embedder(Settings()), BundledE5Embedder)


def _tool(name: str, description: str) -> Tool:
    return Tool(name=name, description=description, domain="records")


CATALOG = Catalog(
    [
        _tool("create_invoice", "Create a new invoice for a customer with line items and totals."),
        _tool("delete_contact", "Delete a contact person permanently from the address book."),
        _tool("schedule_meeting", "Schedule a calendar meeting with attendees at a chosen time."),
        _tool("export_report", "Export a sales report as a spreadsheet file for download."),
        _tool("send_email", "Send an email message to one or more recipients right away."),
        _tool("archive_project", "Archive a finished project so it no longer shows as active."),
        _tool("search_tickets", "Search support tickets by status, priority and assignee."),
        _tool("help", "Explain what this assistant can do and list the available tools."),
    ],
    core=["help"],
)


async def test_an_in_memory_retriever_narrows_with_gemini(
    server: FakeGemini, gemini: Factory
) -> None:
    retriever = InMemoryRetriever(gemini(), k=2, time_budget=10.0)
    selection = await retriever.select(CATALOG, "please schedule a meeting with the attendees")

    assert selection.mode is Mode.NARROWED
    assert "schedule_meeting" in selection.names
    assert "help" in selection.names
    assert len(selection.names) == 3
    assert max(selection.scores, key=selection.scores.__getitem__) == "schedule_meeting"
    assert [r.task_types for r in server.requests] == [{"RETRIEVAL_DOCUMENT"}, {"RETRIEVAL_QUERY"}]
    assert len(server.requests[0].texts) == len(CATALOG.tools)
