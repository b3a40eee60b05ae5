"""A retriever closes what it created and never what it was handed; both retrievers share the
lifecycle (``toolret.retrieval._base.Retriever``).

The embedder is the real ``GeminiEmbedder`` against the local Gemini wire-format server: once
closed, it refuses to embed, so whether a retriever closed it shows from outside.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_gemini import FakeGemini
from tests.support.tools import crm_catalog
from toolret import (
    ClientStateError,
    EmbedderError,
    GeminiEmbedder,
    InMemoryRetriever,
    Retriever,
    Settings,
    ToolRetrievalClient,
)
from toolret.retrieval._selection import Mode

KEY = "test-key"
MESSAGE = "Delete the duplicate contact for Acme Corp"
KINDS = ["memory", "client"]


@pytest.fixture
def server() -> Iterator[FakeGemini]:
    with FakeGemini() as fake:
        yield fake


def _retriever(
    kind: str, request: pytest.FixtureRequest, embedder: GeminiEmbedder | None, url: str
) -> Retriever:
    """A retriever of ``kind`` on ``embedder``, or, with None, on the Gemini embedder the
    settings configure (pointed at the local server)."""
    settings = Settings(GEMINI_API_KEY=KEY, gemini_base_url=url)
    if kind == "memory":
        if embedder is None:  # the in-memory retriever reads its settings from the environment
            monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
            monkeypatch.setenv("GEMINI_API_KEY", KEY)
            monkeypatch.setenv("TOOLRET_GEMINI_BASE_URL", url)
        return InMemoryRetriever(embedder, k=3, time_budget=30.0)
    database_url: str = request.getfixturevalue("database_url")
    return ToolRetrievalClient(
        database_url, embedder=embedder, settings=settings, k=3, time_budget=30.0
    )


@pytest.mark.parametrize("kind", KINDS)
async def test_an_embedder_passed_in_stays_usable_after_the_retriever_closes(
    kind: str, request: pytest.FixtureRequest, server: FakeGemini
) -> None:
    embedder = GeminiEmbedder(KEY, base_url=server.url, timeout=5.0)
    try:
        async with _retriever(kind, request, embedder, server.url) as retriever:
            await retriever.select(crm_catalog(), MESSAGE)
        assert retriever.closed
        vector = await embedder.embed_query("the caller still embeds with it")
        assert vector.shape == (embedder.dimension,)
    finally:
        await embedder.aclose()


@pytest.mark.parametrize("kind", KINDS)
async def test_an_embedder_the_retriever_created_is_closed_with_it(
    kind: str, request: pytest.FixtureRequest, server: FakeGemini
) -> None:
    async with _retriever(kind, request, None, server.url) as retriever:
        created = retriever.embedder
        await created.embed_query("embedded while the retriever is open")
    assert retriever.closed
    with pytest.raises(EmbedderError):
        await created.embed_query("embedded after the retriever closed")


@pytest.mark.parametrize("kind", KINDS)
async def test_a_closed_retriever_cannot_be_reopened_and_sends_the_full_roster(
    kind: str, request: pytest.FixtureRequest, server: FakeGemini
) -> None:
    embedder = GeminiEmbedder(KEY, base_url=server.url, timeout=5.0)
    try:
        retriever = _retriever(kind, request, embedder, server.url)
        async with retriever:
            with pytest.raises(ClientStateError, match="already open"):
                await retriever.__aenter__()
        with pytest.raises(ClientStateError, match="closed; create a new one"):
            await retriever.__aenter__()
        selection = await retriever.select(crm_catalog(), MESSAGE)
        assert selection.mode is Mode.FULL
        assert selection.names == crm_catalog().names
        await retriever.aclose()  # idempotent
    finally:
        await embedder.aclose()
