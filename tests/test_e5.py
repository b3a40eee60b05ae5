"""The bundled model: prefixes, normalization, and never blocking the event loop."""

from __future__ import annotations

import asyncio

import numpy as np

from toolret import BundledE5Embedder, Embedder


async def test_queries_and_documents_are_embedded_asymmetrically() -> None:
    embedder = BundledE5Embedder()
    assert isinstance(embedder, Embedder)
    text = "delete the duplicate contact"
    query = await embedder.embed_query(text)
    document = (await embedder.embed_documents([text]))[0]
    assert query.shape == document.shape == (384,)
    assert query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1) < 1e-5
    assert not np.allclose(query, document)
    assert np.allclose((await embedder.embed_queries([text]))[0], query, atol=1e-6)


async def test_empty_batches_have_the_right_shape() -> None:
    assert (await BundledE5Embedder().embed_documents([])).shape == (0, 384)


async def test_embedding_runs_off_the_event_loop() -> None:
    embedder = BundledE5Embedder()
    texts = [f"document number {i} about customer records and tasks" for i in range(64)]
    work = asyncio.ensure_future(embedder.embed_documents(texts))
    ticks = 0
    while not work.done():
        ticks += 1
        await asyncio.sleep(0)
    assert (await work).shape == (64, 384)
    assert ticks > 1
